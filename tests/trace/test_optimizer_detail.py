"""Optimizer events are journaled as rows and copies; only passes kept in detail turn them into parameter changes."""

import dataclasses

import numpy as np
import torch

import graphscope as gs
from graphscope import optim
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.record.model import OPTIMIZER_STEP
from graphscope.trace.recording.recorder import Policy, Recorder

X = [[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [2.0, 0.0, 1.0], [-1.0, 1.0, 0.5]]
Y = [1.0, -2.0, 0.5, 3.0]
W0 = [0.3, -0.2, 0.1]


def train(lib, steps, make=lambda lib, p: lib.optim.Adam(p, lr=0.1)):
    """`steps` steps of least squares from W0; w after each step."""
    w = lib.tensor(W0, requires_grad=True)
    x, y = lib.tensor(X), lib.tensor(Y)
    opt = make(lib, [w])
    values = []
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w - y) ** 2).mean().backward()
        opt.step()
        values.append(w.detach().clone().tolist())
    return values


def record(run, policy, *observers):
    recorder = Recorder(policy)
    with hooks.observe(recorder):
        for observer in observers:
            hooks.install(observer(recorder))
        try:
            run()
        finally:
            for observer in list(hooks.observers):
                if observer is not recorder:
                    hooks.uninstall(observer)
    return recorder.finish()


def row(event):
    return dataclasses.replace(event, params=[])


def test_events_in_the_window_equal_every_pass_ones_and_the_rest_are_their_rows():
    windowed = record(lambda: train(gs, 8), Policy(keep_first=1, keep_last=2))
    every = record(lambda: train(gs, 8), Policy.every_pass())
    detailed = {p.index for p in windowed.passes if p.detailed}
    assert detailed == {0, 6, 7} and len(windowed.optimizer) == len(every.optimizer) == 16
    for ours, full in zip(windowed.optimizer, every.optimizer):
        assert ours == (full if ours.passes - 1 in detailed else row(full))


def test_with_no_window_only_the_first_pass_keeps_its_events_detail():
    """`--keep first=1` (no last passes): each pass leaves the detail window as its backward ends, before
    its optimizer step. Its events are rows from the start; they once waited with their copies of every
    parameter and grad until the recording ended, then went into the record in detail (spiral_classifier:
    4.3x the time and 5x the memory of the default window)."""
    windowed = record(lambda: train(gs, 8), Policy(keep_first=1, keep_last=0))
    every = record(lambda: train(gs, 8), Policy.every_pass())
    assert {p.index for p in windowed.passes if p.detailed} == {0}
    assert len(windowed.optimizer) == len(every.optimizer) == 16
    for ours, full in zip(windowed.optimizer, every.optimizer):
        assert ours == (full if ours.passes == 1 else row(full))


def test_the_steps_kept_in_the_window_are_torchs():
    rec = record(lambda: train(gs, 8), Policy(keep_first=1, keep_last=2))
    expected = [W0] + train(torch, 8)
    kept = [e for e in rec.optimizer if e.kind == OPTIMIZER_STEP and e.params]
    assert [e.passes for e in kept] == [1, 7, 8]
    for event in kept:
        (change,) = event.params
        k = event.passes - 1
        np.testing.assert_allclose(change.before.values, expected[k], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(change.after.values, expected[k + 1], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(
            change.update.values, np.subtract(expected[k + 1], expected[k]), rtol=1e-4, atol=1e-7
        )


class FlushInStep(hooks.Observer):
    """Flushes the record as a step begins, as the session does when it pauses there."""

    def __init__(self, recorder):
        self.recorder = recorder

    def optimizer_step_begun(self, optimizer):
        self.recorder.flush()


def test_a_flush_as_a_step_begins_leaves_its_numbers_as_without_it():
    def run():
        train(gs, 3, lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9))

    flushed = record(run, Policy.every_pass(), FlushInStep)
    plain = record(run, Policy.every_pass())
    assert flushed.optimizer == plain.optimizer
    step = flushed.optimizer[-1]
    (change,) = step.params
    assert change.after is not None and change.update is not None and dict(change.state)["momentum_buffer"]


def test_a_pass_that_leaves_the_window_while_a_closure_steps_keeps_the_step_a_row():
    w = gs.tensor([0.0, 0.0], requires_grad=True)

    def quartic():  # not quadratic: each step calls it 5 times
        w.grad = None
        loss = ((w - gs.tensor([1.0, -2.0])) ** 4).sum()
        loss.backward()
        return loss

    def run():
        opt = optim.LBFGS([w], lr=1, max_iter=5)
        for _ in range(3):
            opt.step(quartic)

    rec = record(run, Policy(keep_first=1, keep_last=1))
    steps = [e for e in rec.optimizer if e.kind == OPTIMIZER_STEP]
    detailed = {p.index for p in rec.passes if p.detailed}
    assert [e.passes for e in steps] == [1, 6, 11]  # passes 5 and 10 left the window within steps
    assert [bool(e.params) for e in steps] == [e.passes - 1 in detailed for e in steps] == [True, False, False]
    assert snapshot.loads(snapshot.dumps(rec)) == rec
