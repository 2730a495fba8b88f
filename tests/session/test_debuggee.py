"""Debuggee: a loaded snapshot answers the session's commands by moving a cursor over the recorded steps."""

from graphscope.session import Breakpoint, Debuggee, NodeKey
from graphscope.session.breakpoint import line_matches
from graphscope.session.debuggee import RecordFacts
from tests.hand_records import mlp_record, nan_record


def test_starts_at_the_first_step_of_the_first_pass():
    debuggee = Debuggee(mlp_record())
    state = debuggee.state
    assert (state.pass_index, state.step, state.kind) == (0, 0, "finished")
    assert state.node == debuggee.record.passes[0].order[0]


def test_step_moves_forward_and_step_back_returns():
    debuggee = Debuggee(mlp_record())
    debuggee.step()
    debuggee.step()
    assert debuggee.state.step == 2
    debuggee.step_back()
    assert debuggee.state.step == 1


def test_stepping_past_the_end_of_a_pass_enters_the_next():
    debuggee = Debuggee(mlp_record(passes=2))
    order = debuggee.record.passes[0].order
    debuggee.goto(len(order))
    assert debuggee.state.node is None
    debuggee.step()
    assert (debuggee.state.pass_index, debuggee.state.step) == (1, 0)
    debuggee.step_back()
    assert (debuggee.state.pass_index, debuggee.state.step) == (0, len(order))


def test_step_back_at_the_very_start_stays_and_says_why():
    debuggee = Debuggee(mlp_record())
    debuggee.step_back()
    assert (debuggee.state.pass_index, debuggee.state.step) == (0, 0)
    assert debuggee.state.reason == "nothing earlier in the record"


def test_continue_stops_at_a_breakpoint():
    debuggee = Debuggee(mlp_record())
    relu = next(n.id for n in debuggee.record.nodes.values() if n.op == "relu" and n.pass_index == 0)
    debuggee.add_breakpoint(Breakpoint(kind="op", value="relu"))
    debuggee.continue_()
    assert debuggee.state.node == relu
    assert debuggee.state.reason == "breakpoint 1: op relu"


def test_continue_without_breakpoints_goes_to_the_end_of_the_run_not_of_the_pass():
    debuggee = Debuggee(mlp_record(passes=3))
    debuggee.continue_()
    assert (debuggee.state.pass_index, debuggee.state.step) == (2, len(debuggee.record.passes[2].order))
    assert debuggee.state.reason == "end of the run"


class CountedSteps(list):
    """A pass's steps that count how many are read one by one."""

    reads = 0  # since the test began

    def __getitem__(self, i):
        CountedSteps.reads += 1
        return super().__getitem__(i)


def test_continue_with_no_enabled_breakpoint_does_not_read_every_step_it_passes():
    debuggee = Debuggee(mlp_record(passes=3))
    CountedSteps.reads = 0
    for p in debuggee.record.passes:
        p.steps = CountedSteps(p.steps)
    debuggee.add_breakpoint(Breakpoint(kind="op", value="relu", enabled=False))
    walked = sum(len(p.order) for p in debuggee.record.passes)
    debuggee.continue_()
    assert debuggee.state.reason == "end of the run"
    assert walked > 1 and CountedSteps.reads == 0  # nothing to match a step against: the walk reads none of them


def test_a_node_breakpoint_holds_in_every_later_pass():
    debuggee = Debuggee(mlp_record(passes=3))
    record = debuggee.record
    relu = next(n for n in record.nodes.values() if n.op == "relu" and n.pass_index == 0)
    key = NodeKey(relu.op, relu.site.file, relu.site.line, relu.module)
    debuggee.add_breakpoint(Breakpoint(kind="node", value=key))
    hits = []
    for _ in range(3):
        debuggee.continue_()
        hits.append((debuggee.state.pass_index, record.nodes[debuggee.state.node].op))
    assert hits == [(0, "relu"), (1, "relu"), (2, "relu")]


def test_a_breakpoint_that_matches_nothing_yet_is_flagged():
    debuggee = Debuggee(mlp_record())
    assert debuggee.unmatched(Breakpoint(kind="op", value="lienar"))
    assert not debuggee.unmatched(Breakpoint(kind="op", value="relu"))


def test_a_disabled_breakpoint_does_not_stop():
    debuggee = Debuggee(mlp_record())
    bp = debuggee.add_breakpoint(Breakpoint(kind="op", value="relu"))
    debuggee.toggle_breakpoint(bp.id)
    debuggee.continue_()
    assert debuggee.state.node is None


def test_removed_breakpoints_are_gone():
    debuggee = Debuggee(mlp_record())
    bp = debuggee.add_breakpoint(Breakpoint(kind="op", value="relu"))
    debuggee.remove_breakpoint(bp.id)
    assert debuggee.breakpoints == []


def test_run_to_end_goes_to_the_end_of_the_last_pass():
    debuggee = Debuggee(mlp_record(passes=3))
    debuggee.run_to_end()
    assert debuggee.state.pass_index == 2
    assert debuggee.state.node is None


def test_listeners_hear_every_move():
    debuggee = Debuggee(mlp_record())
    heard = []
    debuggee.add_listener(heard.append)
    debuggee.step()
    debuggee.step_back()
    assert [s.step for s in heard] == [1, 0]


def test_a_failed_record_debuggees_as_failed():
    from tests.hand_records import failed_record

    debuggee = Debuggee(failed_record())
    assert debuggee.state.kind == "failed"
    assert debuggee.state.error is debuggee.record.error


def test_nan_breakpoint_matches_a_nonfinite_value():
    record = nan_record()
    node = record.nodes[record.passes[1].order[-1]]
    assert Breakpoint(kind="nan").matches(RecordFacts(node, None))


def test_a_grad_norm_breakpoint_pauses_a_snapshot_too():
    debuggee = Debuggee(mlp_record())
    debuggee.add_breakpoint(Breakpoint(kind="grad_norm", value=0.0))
    debuggee.continue_()
    assert debuggee.state.reason == "breakpoint 1: grad norm > 0"


def test_module_breakpoint_matches_submodules_only_on_a_dot():
    record = mlp_record()
    node = next(n for n in record.nodes.values() if n.module == "model.fc1")
    assert Breakpoint(kind="module", value="model").matches(RecordFacts(node, None))
    assert not Breakpoint(kind="module", value="model.fc").matches(RecordFacts(node, None))


def test_line_breakpoints_match_a_path_suffix_on_a_component_boundary():
    assert line_matches("model.py:42", "/home/me/model.py", 42)
    assert line_matches("me/model.py:42", "/home/me/model.py", 42)
    assert line_matches("/home/me/model.py:42", "/home/me/model.py", 42)
    assert not line_matches("model.py:43", "/home/me/model.py", 42)
    assert not line_matches("other.py:42", "/home/me/model.py", 42)
    assert not line_matches("l.py:42", "/home/me/model.py", 42)
    assert not line_matches("you/model.py:42", "/home/me/model.py", 42)


def test_goto_pass_moves_the_cursor_to_the_first_step_of_that_pass_back_and_on():
    debuggee = Debuggee(mlp_record(passes=3))
    assert debuggee.goto_pass(2)
    assert (debuggee.state.pass_index, debuggee.state.step) == (2, 0)
    assert debuggee.state.node == debuggee.record.passes[2].order[0]
    assert debuggee.state.reason == "pass 2"
    assert debuggee.goto_pass(0)
    assert (debuggee.state.pass_index, debuggee.state.step) == (0, 0)


def test_goto_pass_refuses_a_pass_not_kept_in_full_and_leaves_the_cursor():
    record = mlp_record(passes=3)
    record.passes[1].detailed, record.passes[1].order, record.passes[1].steps = False, (), []
    debuggee = Debuggee(record)
    debuggee.step()
    assert not debuggee.goto_pass(1)
    assert not debuggee.goto_pass(7)
    assert (debuggee.state.pass_index, debuggee.state.step) == (0, 1)
