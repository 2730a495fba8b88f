"""Replay: a loaded snapshot answers the session's commands by moving a cursor over the recorded steps."""

from tui_records import mlp_record, nan_record

from graphscope.session import Breakpoint
from graphscope.trace.record import SourceSite
from graphscope.tui.replay import Replay, line_matches, matches


def test_starts_at_the_first_step_of_the_first_pass():
    replay = Replay(mlp_record())
    state = replay.state
    assert (state.pass_index, state.step, state.kind) == (0, 0, "finished")
    assert state.node == replay.record.passes[0].order[0]


def test_step_moves_forward_and_step_back_returns():
    replay = Replay(mlp_record())
    replay.step()
    replay.step()
    assert replay.state.step == 2
    replay.step_back()
    assert replay.state.step == 1


def test_stepping_past_the_end_of_a_pass_enters_the_next():
    replay = Replay(mlp_record(passes=2))
    order = replay.record.passes[0].order
    replay.goto(len(order))
    assert replay.state.node is None
    replay.step()
    assert (replay.state.pass_index, replay.state.step) == (1, 0)
    replay.step_back()
    assert (replay.state.pass_index, replay.state.step) == (0, len(order))


def test_step_back_at_the_very_start_stays():
    replay = Replay(mlp_record())
    replay.step_back()
    assert (replay.state.pass_index, replay.state.step) == (0, 0)


def test_continue_stops_at_a_breakpoint():
    replay = Replay(mlp_record())
    relu = next(n.id for n in replay.record.nodes.values() if n.op == "relu" and n.pass_index == 0)
    replay.add_breakpoint(Breakpoint(kind="op", value="relu"))
    replay.continue_()
    assert replay.state.node == relu
    assert replay.state.reason.startswith("breakpoint 1")


def test_continue_without_breakpoints_stops_at_the_end_of_the_pass():
    replay = Replay(mlp_record())
    replay.continue_()
    assert replay.state.step == len(replay.record.passes[0].order)
    assert replay.state.reason == "end of pass"


def test_a_disabled_breakpoint_does_not_stop():
    replay = Replay(mlp_record())
    bp = replay.add_breakpoint(Breakpoint(kind="op", value="relu"))
    replay.toggle_breakpoint(bp.id)
    replay.continue_()
    assert replay.state.node is None


def test_removed_breakpoints_are_gone():
    replay = Replay(mlp_record())
    bp = replay.add_breakpoint(Breakpoint(kind="op", value="relu"))
    replay.remove_breakpoint(bp.id)
    assert replay.breakpoints == []


def test_run_to_end_goes_to_the_end_of_the_last_pass():
    replay = Replay(mlp_record(passes=3))
    replay.run_to_end()
    assert replay.state.pass_index == 2
    assert replay.state.node is None


def test_listeners_hear_every_move():
    replay = Replay(mlp_record())
    heard = []
    replay.add_listener(heard.append)
    replay.step()
    replay.step_back()
    assert [s.step for s in heard] == [1, 0]


def test_a_failed_record_replays_as_failed():
    from tui_records import failed_record

    replay = Replay(failed_record())
    assert replay.state.kind == "failed"
    assert replay.state.error is replay.record.error


def test_nan_breakpoint_matches_a_nonfinite_value():
    record = nan_record()
    node = record.nodes[record.passes[1].order[-1]]
    assert matches(Breakpoint(kind="nan"), node.id, node)


def test_module_breakpoint_matches_submodules_only_on_a_dot():
    record = mlp_record()
    node = next(n for n in record.nodes.values() if n.module == "model.fc1")
    assert matches(Breakpoint(kind="module", value="model"), node.id, node)
    assert not matches(Breakpoint(kind="module", value="model.fc"), node.id, node)


def test_line_breakpoints_match_by_file_name_and_line():
    site = SourceSite("/home/me/model.py", 42, "forward", "")
    assert line_matches("model.py:42", site)
    assert line_matches("/home/me/model.py:42", site)
    assert not line_matches("model.py:43", site)
    assert not line_matches("other.py:42", site)


def test_fetch_gives_nothing_for_a_snapshot():
    assert Replay(mlp_record()).fetch(1, "value") is None
