"""A `step` breakpoint pauses before optimizer.step(), at the end of its pass, live and in the snapshot alike."""

import pytest

from graphscope.session import Breakpoint, Debuggee
from graphscope.trace import snapshot

TRAINING = """
import graphscope as gs
w = gs.tensor([1.0, -2.0], requires_grad=True)
x = gs.tensor([[1.0, 2.0], [3.0, 4.0]])
opt = gs.optim.SGD([w], lr=0.1)
for i in range(3):
    opt.zero_grad()
    loss = ((x @ w) ** 2).sum()
    loss.backward()
    opt.step()
print("w", w.tolist())
"""


def test_the_breakpoints_own_rules():
    bp = Breakpoint("step")
    assert bp.describe() == "optimizer step" and bp.pauses_at_step()
    assert not bp.matches_site("mul", None, "model.py", 3)
    assert not Breakpoint("op", "mul").pauses_at_step()


def test_continue_pauses_before_each_optimizer_step_at_the_end_of_the_pass(run_session):
    driver = run_session(TRAINING)
    driver.paused()
    bp = driver.session.add_breakpoint(Breakpoint("step"))
    record = driver.session.record
    for index in range(3):
        state = driver.command("continue_")
        order = record.passes[index].order
        assert state.kind == "paused" and state.reason == f"breakpoint {bp.id}: optimizer step"
        assert (state.pass_index, state.step, state.node) == (index, len(order), None)
        step = record.optimizer[-1]  # the step about to run: its values before, not yet after
        assert (step.kind, step.passes) == ("step", index + 1)
        assert step.params[0].before is not None and step.params[0].after is None
    done = driver.command("continue_")
    assert done.kind == "finished"
    assert [e.params[0].after is not None for e in record.optimizer if e.kind == "step"] == [True] * 3


def test_a_pass_end_reached_by_stepping_is_not_paused_at_twice(run_session):
    driver = run_session(TRAINING)
    driver.paused()
    driver.session.add_breakpoint(Breakpoint("step"))
    order = driver.session.record.passes[0].order
    for _ in order:
        state = driver.command("step")
    assert (state.pass_index, state.step, state.reason) == (0, len(order), "end of pass")
    moved = driver.command("continue_")  # the step follows this very moment: on to the next pass's
    assert (moved.pass_index, moved.step, moved.reason) == (
        1,
        len(driver.session.record.passes[1].order),
        "breakpoint 2: optimizer step",
    )


def test_a_disabled_step_breakpoint_does_not_pause(run_session):
    driver = run_session(TRAINING)
    driver.paused()
    bp = driver.session.add_breakpoint(Breakpoint("step"))
    driver.session.toggle_breakpoint(bp.id)
    assert driver.command("continue_").kind == "finished"


@pytest.mark.parametrize("pause_first", [True, False])
def test_the_snapshot_pauses_where_the_live_run_paused(run_session, tmp_path, pause_first):
    driver = run_session(TRAINING)
    driver.paused()
    live = driver.session
    live.add_breakpoint(Breakpoint("step"))
    if pause_first:
        driver.command("step")
    seen = [driver.command("continue_") for _ in range(4)]
    path = tmp_path / "run.json"
    snapshot.dump(live.record, path)
    view = Debuggee(snapshot.load(path), str(path), break_on_nan=True)  # as the session has it
    view.add_breakpoint(Breakpoint("step"))
    if pause_first:
        view.step()
    replayed = []
    for _ in range(4):
        view.continue_()
        replayed.append(view.state)
    assert [(s.pass_index, s.step, s.reason) for s in replayed[:3]] == [
        (s.pass_index, s.step, s.reason) for s in seen[:3]
    ]
    assert seen[3].kind == "finished" and replayed[3].reason == "end of the run"


def test_a_step_breakpoint_matches_nothing_until_a_step_is_recorded(run_session):
    driver = run_session(TRAINING)
    driver.paused()
    bp = Breakpoint("step")
    assert driver.session.unmatched(bp)
    driver.session.add_breakpoint(bp)
    driver.command("continue_")
    assert not driver.session.unmatched(bp)
