"""A hand-written update (`with no_grad(): w -= lr * w.grad`) is an event like optimizer.step(): before, update,
after."""

import numpy as np
import torch

import graphscope as gs
from graphscope import optim
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.analysis import findings
from graphscope.trace.explain.optimizer_step import explain_change
from graphscope.trace.record.model import ACCUMULATED_GRAD, GRAD_RESET, HAND_UPDATE, OPTIMIZER_STEP
from graphscope.trace.recording.recorder import Policy, Recorder
from tests.trace.trace_helpers import line_of

X = [1.0, 2.0, -1.0]
W0 = [0.3, -0.2, 0.1]
B0 = [0.5]


def descend(lib, steps, lr=0.1):
    """`steps` steps of gradient descent written by hand, as PyTorch's autograd lesson does."""
    w, b = lib.tensor(W0, requires_grad=True), lib.tensor(B0, requires_grad=True)
    x = lib.tensor(X)
    values = []
    for _ in range(steps):
        ((x * w).sum() + b).pow(2).sum().backward()
        with lib.no_grad():
            w -= lr * w.grad  # update w
            b.sub_(lr * b.grad)  # update b
        w.grad.zero_()  # zero w
        b.grad = None  # clear b
        values.append((w.detach().clone().tolist(), b.detach().clone().tolist()))
    return values


def record(run, policy=None):
    recorder = Recorder(policy or Policy.every_pass())
    with hooks.observe(recorder):
        run()
    return recorder.finish()


def updates_of(rec):
    return [e for e in rec.optimizer if e.kind == HAND_UPDATE]


def test_a_hand_written_update_is_one_event_per_pass_with_before_update_and_after_as_torch_computes_them():
    rec = record(lambda: descend(gs, 3))
    expected = descend(torch, 3)
    events = updates_of(rec)
    assert [e.passes for e in events] == [1, 2, 3]
    befores = [(W0, B0)] + expected[:-1]
    for event, before, after in zip(events, befores, expected):
        w, b = event.params
        assert (w.label, b.label) == ("w", "b")
        for change, was, now in ((w, before[0], after[0]), (b, before[1], after[1])):
            np.testing.assert_allclose(change.before.values, was, rtol=1e-6)
            np.testing.assert_allclose(change.after.values, now, rtol=1e-6)
            np.testing.assert_allclose(change.update.values, np.subtract(now, was), rtol=1e-5, atol=1e-7)


def test_the_update_event_is_at_the_users_line_with_the_grad_it_read_and_the_resets_follow_it():
    rec = record(lambda: descend(gs, 1))
    update, zeroed, cleared = rec.optimizer
    assert (update.kind, update.site.line) == (HAND_UPDATE, line_of("update w"))
    assert [(e.kind, e.site.line) for e in (zeroed, cleared)] == [
        (GRAD_RESET, line_of("zero w")),
        (GRAD_RESET, line_of("clear b")),
    ]
    w_grad = torch.tensor(W0, requires_grad=True)
    ((torch.tensor(X) * w_grad).sum() + torch.tensor(B0)).pow(2).sum().backward()
    np.testing.assert_allclose(update.params[0].grad.values, w_grad.grad.tolist(), rtol=1e-6)


def test_a_second_update_of_the_same_leaf_is_an_event_of_its_own():
    w = gs.tensor([1.0, 2.0], requires_grad=True)

    def run():
        (w * w).sum().backward()
        with gs.no_grad():
            w.sub_(0.5 * w.grad)
            w.clamp_(max=0.5)

    first, second = updates_of(record(run))
    np.testing.assert_allclose(first.params[0].after.values, [0.0, 0.0])
    np.testing.assert_allclose(second.params[0].before.values, [0.0, 0.0])
    np.testing.assert_allclose(second.params[0].after.values, [0.0, 0.0])


def test_an_update_inside_optimizer_step_is_the_steps_own_and_initialisation_is_no_event():
    class HandSGD(optim.Optimizer):
        def __init__(self, params, lr):
            super().__init__(params, {"lr": lr})

        def step(self, closure=None):
            with gs.no_grad():
                for group in self.param_groups:
                    for p in group["params"]:
                        p.add_(p.grad, alpha=-group["lr"])

    w = gs.tensor([1.0, 2.0], requires_grad=True)

    def run():
        with gs.no_grad():
            w.fill_(3.0)  # before any pass: initialisation
        (w * w).sum().backward()
        HandSGD([w], lr=0.1).step()

    (step,) = record(run).optimizer
    assert step.kind == OPTIMIZER_STEP
    np.testing.assert_allclose(step.params[0].update.values, [-0.6, -0.6], rtol=1e-6)


def test_a_hand_update_explains_its_before_update_and_after():
    rec = record(lambda: descend(gs, 1))
    event = updates_of(rec)[0]
    lines = explain_change(rec, event, event.params[1])
    assert lines[0].startswith("b: updated by the script after backward pass 0")
    assert any(line.startswith("value before") for line in lines)
    assert any(line.startswith("value after") for line in lines)


def test_a_run_with_hand_updates_round_trips_through_a_snapshot():
    rec = record(lambda: descend(gs, 4), Policy(keep_first=1, keep_last=1))
    assert [bool(e.params) for e in updates_of(rec)] == [True, False, False, True]
    assert snapshot.loads(snapshot.dumps(rec)) == rec


def test_hand_updates_without_zeroing_are_found_to_accumulate_grads():
    w = gs.tensor([1.0, 2.0], requires_grad=True)

    def run():
        for _ in range(4):
            (w * w).sum().backward()
            with gs.no_grad():
                w.sub_(0.01 * w.grad)  # no zeroing after it

    rec = record(run)
    (finding,) = [f for f in findings.find(rec) if f.kind == ACCUMULATED_GRAD]
    assert finding.site.line == line_of("no zeroing after it")
