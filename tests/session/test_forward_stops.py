"""Stops in the forward pass: where a NaN is born, on a node's creation, op by op; conditions on values and grads."""

import os

import pytest

from graphscope.session import Breakpoint, Debuggee
from graphscope.session.condition import Condition
from graphscope.trace import snapshot

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "samples")
NAN = os.path.join(SAMPLES, "exploding_nan.py")
TRAINING = os.path.join(SAMPLES, "training_loop.py")


def test_the_default_nan_breakpoint_stops_where_the_forward_makes_the_nan(run_session):
    driver = run_session(path=NAN, pause=False)
    state = driver.paused()
    assert state.reason == "breakpoint 1: NaN/Inf" and state.created == state.node is not None
    record = driver.session.record
    last = record.passes[-1]  # held in the forward: what has happened is up to the end of the pass before
    assert (state.pass_index, state.step) == (len(record.passes) - 1, len(last.order))
    node = record.nodes[state.created]
    assert node.op == "log" and node.site.line == 45 and node.output.has_nonfinite
    (sigma,) = (record.nodes[i].output for i in node.inputs)
    assert sigma.min < 0 and not sigma.has_nonfinite  # sigma went negative: log made the NaN
    assert len(record.passes) == node.pass_index  # its pass's backward has not begun


def test_a_step_from_a_forward_stop_goes_op_by_op_then_into_the_backward(run_session):
    driver = run_session(path=TRAINING, argv=["1"], pause=False, breakpoints=["op:linear"])
    first = driver.paused()
    record = driver.session.record
    assert record.nodes[first.created].op == "linear" and first.reason == "breakpoint 2: op linear, created"
    created = [first.created]
    while True:
        state = driver.command("step")
        if state.created is None:
            break
        created.append(state.created)
    forward = [n.id for n in record.nodes.values() if not n.is_leaf and n.pass_index == 0]
    assert created == forward  # every op of the first forward, in the order it was made
    assert [record.nodes[i].op for i in created] == ["linear", "relu", "linear", "relu", "linear", "cross_entropy"]
    assert (state.pass_index, state.step, state.node) == (0, 0, record.passes[0].order[0])  # the loss's backward


def test_a_step_back_from_a_forward_stop_walks_back_through_the_nodes_made(run_session):
    driver = run_session(path=TRAINING, argv=["1"], pause=False, breakpoints=["op:cross_entropy"])
    state = driver.paused()
    back = driver.command("step_back")
    assert back.created == state.created - 2 and driver.session.record.nodes[back.created].op == "linear"
    again = driver.command("step")
    assert again.created == state.created  # recorded already: nothing runs


def test_a_conditional_breakpoint_stops_only_where_its_condition_holds(run_session):
    driver = run_session(path=NAN, pause=False, break_on_nan=False, breakpoints=["op:log if value any nan"])
    bp = driver.session.breakpoints[0]
    state = driver.paused()
    record = driver.session.record
    node = record.nodes[state.created]
    assert state.reason == f"breakpoint {bp.id}: op log, created if value any nan"
    assert node.op == "log" and node.output.nan_count > 0
    earlier = [n for n in record.nodes.values() if n.op == "log" and n.id != node.id]
    assert earlier and not any(n.output.has_nonfinite for n in earlier)  # passed by: their values were finite


def test_a_grad_condition_stops_before_the_backward_step_where_it_holds(run_session):
    driver = run_session(path=NAN, pause=False, break_on_nan=False, breakpoints=["backward:any if grad norm > 1000"])
    state = driver.paused()
    record = driver.session.record
    steps = record.passes[state.pass_index].steps
    assert state.created is None and steps[state.step].grad_output.norm > 1000
    others = [
        s
        for k, p in enumerate(record.passes)
        for i, s in enumerate(p.steps)
        if (k, i) != (state.pass_index, state.step)
    ]
    assert others and all(s.grad_output.norm <= 1000 for s in others)  # (a step is made at each read: by position)


def test_a_snapshot_stops_where_the_live_run_stopped(run_session, tmp_path):
    breakpoints = ["op:log if value any nan", "backward:any if grad norm > 1000", "nan"]
    driver = run_session(path=NAN, pause=False, break_on_nan=False, breakpoints=breakpoints)
    live = [driver.paused()]
    while live[-1].kind == "paused":
        live.append(driver.command("continue_"))
    path = tmp_path / "nan.json"
    snapshot.dump(driver.session.record, str(path))
    view = Debuggee(snapshot.load(str(path)))
    for text in breakpoints:
        view.add_breakpoint(Breakpoint.parse(text))
    walked = [view.state]
    view._position, view._step = None, 0  # before the first pass, where the live run began
    for _ in live[:-1]:
        view.continue_()
        walked.append(view.state)
    stops = [(s.created, s.pass_index, s.step, s.reason) for s in live[:-1]]
    assert [(s.created, s.pass_index, s.step, s.reason) for s in walked[1:]] == stops
    assert any(s.created is not None for s in live) and any(s.created is None for s in live[:-1])


def test_a_snapshot_steps_through_a_forward_op_by_op(run_session, tmp_path):
    driver = run_session(path=NAN, argv=["3"], pause=False, break_on_nan=False)
    driver.done()
    snapshot.dump(driver.session.record, str(tmp_path / "run.json"))
    record = snapshot.load(str(tmp_path / "run.json"))
    view = Debuggee(record)
    view.add_breakpoint(Breakpoint.parse("op:log"))
    view._position, view._step = None, 0
    view.continue_()
    first = view.state
    assert record.nodes[first.created].op == "log" and record.nodes[first.created].pass_index == 0
    view.step()
    assert view.state.created > first.created
    view.step_back()
    assert view.state.created == first.created


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("max > 1e3", "value max > 1000"),
        ("grad norm > 10", "grad norm > 10"),
        ("any nan", "value any nan"),
        ("frac zero > 0.9", "value frac zero > 0.9"),
        ("value min <= -2", "value min <= -2"),
    ],
)
def test_conditions_read_as_typed(text, words):
    assert str(Condition.parse(text)) == words


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("max", "a condition looks like"),
        ("median > 3", "unknown statistic 'median'"),
        ("max > big", "needs a number after '>'"),
        ("max > nan", "compares with NaN"),
    ],
)
def test_a_bad_condition_says_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        Condition.parse(text)


def test_a_bad_breakpoint_says_what_it_looks_like():
    with pytest.raises(ValueError, match="a breakpoint looks like op:log"):
        Breakpoint.parse("op")
    with pytest.raises(ValueError, match="an 'any' breakpoint needs a condition"):
        Breakpoint.parse("any")
