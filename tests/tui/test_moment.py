"""Moment: what the panes may show of the backward at the cursor, whatever else the record holds."""

from graphscope.session import SessionState
from graphscope.trace.record.model import EXPLODING_GRAD, LeafGrad, OptimizerEvent
from graphscope.tui.moment import Moment
from graphscope.tui.record_index import RecordIndex
from tests.hand_records import mlp_record


def at(record, step=None, position=0, index=None):
    state = None if step is None else SessionState(kind="paused", pass_index=position, step=step)
    return Moment(index or RecordIndex(record), state)


def test_an_op_nodes_grad_is_its_steps_grad_output():
    record = mlp_record()
    p = record.passes[0]
    assert at(record).grad_of(p.order[2]) is p.steps[2].grad_output


def test_a_parameters_grad_is_the_grad_accumulated_into_it():
    record = mlp_record()
    w2 = next(n.id for n in record.nodes.values() if n.parameter == "fc2.weight" and n.pass_index == 0)
    moment = at(record)
    assert moment.grad_of(w2) is not None and moment.stepped(w2)


def test_nodes_past_the_frontier_have_no_grad_yet():
    record = mlp_record(passes=1, stepped=2)
    p = record.passes[0]
    moment = at(record)
    assert moment.stepped(p.order[1]) and not moment.stepped(p.order[2])
    assert moment.grad_of(p.order[2]) is None


def test_a_step_reached_back_in_time_shows_what_was_known_then():
    full = mlp_record(passes=1)
    # The same pass as a live record holds it with its script paused before step 2: steps 0 and 1
    # run, step 2 recorded with the grad it is about to receive.
    partial = mlp_record(passes=1, stepped=3)
    partial.passes[0].steps[2].grad_inputs = []
    partial.passes[0].steps[2].leaf_grads = []
    back, live = at(full, step=2), at(partial, step=2)
    for node_id in full.nodes:
        assert back.stepped(node_id) == live.stepped(node_id), node_id
        assert (back.grad_of(node_id) is None) == (live.grad_of(node_id) is None), node_id
    current = back.step_of(full.passes[0].order[2])
    assert current.grad_output is full.passes[0].steps[2].grad_output  # it is receiving its grad
    assert current.grad_inputs == [] and current.leaf_grads == []  # nothing it passes on yet


def test_leaf_grads_show_at_the_end_of_the_pass_even_when_the_last_step_gained_them_late():
    record = mlp_record(passes=1)
    p = record.passes[0]
    last = p.steps[-1]
    late = last.leaf_grads[:]
    last.leaf_grads.clear()
    index = RecordIndex(record)
    leaf = late[0].node
    assert not at(record, step=len(p.order), index=index).leaf_grads(leaf)  # cached before they came
    last.leaf_grads.extend(late)  # the recorder adds them once the paused step has run
    moment = at(record, step=len(p.order), index=index)
    assert [lg.grad for lg in moment.leaf_grads(leaf)][-1] is late[0].grad
    assert moment.grad_of(leaf) is late[0].grad
    assert all(isinstance(lg, LeafGrad) for lg in moment.leaf_grads(leaf))


def test_a_pass_after_the_cursor_has_not_run_its_backward_yet():
    # Stepped back from pass 1 into pass 0: a live record holds pass 1 up to where its script is
    # paused, a snapshot all of it; at the cursor neither has happened.
    record = mlp_record(passes=2)
    moment = at(record, step=3, position=0)
    later = record.passes[1]
    leaf = next(n.id for n in record.nodes.values() if n.parameter == "fc2.weight" and n.pass_index == 1)
    assert all(moment.step_of(n) is None and not moment.stepped(n) for n in later.order)
    assert moment.leaf_grads(leaf) == [] and moment.grad_of(leaf) is None
    earlier = at(record, step=0, position=1)  # and a pass before the cursor has run all of it
    assert all(earlier.stepped(n) for n in record.passes[0].order)


def test_the_known_record_cuts_the_cursor_s_pass_at_the_cursor():
    record = mlp_record(passes=1)
    known = at(record, step=2).known_record()
    steps = known.passes[0].steps
    assert [s.node for s in steps] == list(record.passes[0].order[:3])
    assert steps[:2] == record.passes[0].steps[:2]
    assert steps[2].grad_output is record.passes[0].steps[2].grad_output and steps[2].grad_inputs == []
    assert len(record.passes[0].steps) == len(record.passes[0].order)  # the record itself is untouched


def test_optimizer_events_are_known_once_the_cursor_is_past_them():
    record = mlp_record(passes=3)
    record.optimizer = [OptimizerEvent("step", k, "SGD") for k in (1, 2, 3)]  # after each pass's backward
    assert [e.passes for e in at(record, step=0, position=0).optimizer_events()] == []
    assert [e.passes for e in at(record, step=7, position=1).optimizer_events()] == [1]  # not the one after it
    over = Moment(RecordIndex(record), SessionState(kind="finished", pass_index=2, step=7))
    assert [e.passes for e in over.optimizer_events()] == [1, 2, 3]  # the run is over, at its end


def test_a_step_breakpoint_s_pause_is_stepping_and_says_so():
    record = mlp_record(passes=1)
    state = SessionState(kind="paused", pass_index=0, step=7, reason="breakpoint 2: optimizer step")
    moment = Moment(RecordIndex(record), state)
    assert moment.before_optimizer_step and moment.on_step and moment.at_pass_end
    leaves = moment.stepped_leaves()
    assert {record.nodes[n].parameter for n in leaves} == {"fc1.weight", "fc1.bias", "fc2.weight"}
    plain_end = Moment(RecordIndex(record), SessionState(kind="paused", pass_index=0, step=7, reason="step"))
    assert plain_end.at_pass_end and not plain_end.on_step and not plain_end.before_optimizer_step


def test_the_findings_at_the_cursor_know_nothing_of_later_passes_nor_of_grad_norms_before_the_pass_ends():
    record = mlp_record(passes=3)
    record.passes[1].grad_norms = {"fc1.weight": 5000.0}
    end = len(record.passes[1].order)

    def exploding(position, step):
        return [f.pass_index for f in at(record, step=step, position=position).findings() if f.kind == EXPLODING_GRAD]

    assert exploding(0, len(record.passes[0].order)) == []  # its pass is after the cursor's
    assert exploding(1, 0) == []  # the norms are worked out as the pass ends
    assert exploding(1, end) == [1]
    assert exploding(2, 0) == [1]


def test_the_console_known_at_the_cursor_is_what_was_written_by_then():
    from graphscope.trace.record.model import ConsoleLine

    record = mlp_record(passes=2)
    n = len(record.passes[0].order)
    record.optimizer = [OptimizerEvent("zero_grad", 0), OptimizerEvent("step", 1)]
    record.console = [
        ConsoleLine("stdout", "forward 0", 0, None, 1),  # before pass 0's backward (after zero_grad)
        ConsoleLine("stdout", "hook at step 2", 1, 2, 1),  # during it, from step 1's backward
        ConsoleLine("stdout", "after backward 0", 1, None, 1),  # before optimizer.step()
        ConsoleLine("stdout", "after step", 1, None, 2),
        ConsoleLine("stdout", "forward 1", 1, None, 2),
    ]

    def known(step, reason=""):
        state = SessionState(kind="paused", pass_index=0, step=step, reason=reason)
        return [line.text for line in Moment(RecordIndex(record), state).known_console()]

    assert known(0) == known(1) == ["forward 0"]
    assert known(2) == known(n) == ["forward 0", "hook at step 2"]
    assert known(n, "breakpoint 2: optimizer step") == ["forward 0", "hook at step 2", "after backward 0"]
    ended = SessionState(kind="finished", pass_index=1, step=len(record.passes[1].order), exit_code=0)
    assert len(Moment(RecordIndex(record), ended).known_console()) == 5


def test_the_passes_known_at_the_cursor_end_with_its_own_without_grad_norms_until_its_end():
    record = mlp_record(passes=3)
    n = len(record.passes[1].order)
    mid = Moment(RecordIndex(record), SessionState(kind="paused", pass_index=1, step=2)).known_passes()
    assert [p.index for p in mid] == [0, 1] and mid[1].grad_norms == {} and mid[0].grad_norms
    end = Moment(RecordIndex(record), SessionState(kind="paused", pass_index=1, step=n)).known_passes()
    assert end[1].grad_norms == record.passes[1].grad_norms
