"""optimizer.zero_grad() and optimizer.step() are events in the record, checked against torch's optimizers."""

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope import nn, optim
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.record.model import OPTIMIZER_STEP, ZERO_GRAD
from graphscope.trace.recording.recorder import Policy, Recorder
from tests.trace.trace_helpers import line_of

X = [[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [2.0, 0.0, 1.0], [-1.0, 1.0, 0.5]]
Y = [1.0, -2.0, 0.5, 3.0]
W0 = [0.3, -0.2, 0.1]

OPTIMIZERS = {
    "sgd": (lambda lib, p: lib.optim.SGD(p, lr=0.1)),
    "sgd momentum": (lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9)),
    "sgd momentum weight decay": (lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01)),
    "adam": (lambda lib, p: lib.optim.Adam(p, lr=0.1)),
    "adamw": (lambda lib, p: lib.optim.AdamW(p, lr=0.1, weight_decay=0.1)),
}


def train(lib, make, steps):
    """`steps` steps of least squares on (X, Y) from W0 with lib's optimizer; w after each step."""
    w = lib.tensor(W0, requires_grad=True)
    x, y = lib.tensor(X), lib.tensor(Y)
    opt = make(lib, [w])
    values = []
    for _ in range(steps):
        opt.zero_grad()  # zero here
        ((x @ w - y) ** 2).mean().backward()
        opt.step()  # step here
        values.append(w.detach().clone())
    return opt, w, values


def record(run, policy=None):
    recorder = Recorder(policy or Policy.every_pass())
    with hooks.observe(recorder):
        result = run()
    return recorder.finish(), result


def steps_of(rec):
    return [e for e in rec.optimizer if e.kind == OPTIMIZER_STEP]


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_each_step_records_before_update_and_after_as_torch_computes_them(name):
    make = OPTIMIZERS[name]
    rec, _ = record(lambda: train(gs, make, 3))
    _, _, torch_values = train(torch, make, 3)
    expected = [W0] + [v.tolist() for v in torch_values]
    events = steps_of(rec)
    assert [e.passes for e in events] == [1, 2, 3]
    for k, event in enumerate(events):
        (change,) = event.params
        np.testing.assert_allclose(change.before.values, expected[k], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(change.after.values, expected[k + 1], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(
            change.update.values, np.subtract(expected[k + 1], expected[k]), rtol=1e-4, atol=1e-7
        )


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_the_state_after_each_step_is_torchs(name):
    make = OPTIMIZERS[name]
    rec, _ = record(lambda: train(gs, make, 2))
    opt, w, _ = train(torch, make, 2)
    (change,) = steps_of(rec)[-1].params
    state = dict(change.state)
    for key, value in opt.state[w].items():
        if key == "step":
            assert state["step"] == str(int(value))
        else:
            np.testing.assert_allclose(state[key].values, value.tolist(), rtol=1e-5)
    assert set(state) == set(opt.state[w])


def test_the_grad_a_step_read_is_recorded_with_it():
    rec, _ = record(lambda: train(gs, OPTIMIZERS["sgd"], 1))
    w = torch.tensor(W0, requires_grad=True)
    ((torch.tensor(X) @ w - torch.tensor(Y)) ** 2).mean().backward()
    (change,) = steps_of(rec)[0].params
    np.testing.assert_allclose(change.grad.values, w.grad.tolist(), rtol=1e-6)


def test_a_step_event_names_the_optimizer_its_settings_and_the_users_line():
    rec, _ = record(lambda: train(gs, OPTIMIZERS["adam"], 1))
    zero, step = rec.optimizer
    assert (zero.kind, zero.passes, zero.optimizer, zero.site.line) == (ZERO_GRAD, 0, "Adam", line_of("zero here"))
    assert zero.params == []  # nothing to clear yet
    assert (step.kind, step.passes, step.site.line) == (OPTIMIZER_STEP, 1, line_of("step here"))
    settings = dict(step.settings)
    assert settings["lr"] == "0.1" and settings["betas"] == "(0.9, 0.999)" and settings["eps"] == "1e-08"
    (change,) = step.params
    leaf = next(n.leaf for n in rec.nodes.values() if n.parameter == "w")
    assert (change.leaf, change.label) == (leaf, "w")


def test_zero_grad_records_the_grads_it_cleared():
    rec, _ = record(lambda: train(gs, OPTIMIZERS["sgd"], 2))
    zeros = [e for e in rec.optimizer if e.kind == ZERO_GRAD]
    (change,) = zeros[1].params
    (lg,) = [lg for st in rec.passes[0].steps for lg in st.leaf_grads]
    assert change.before == lg.now and change.after is None  # set to None: nothing after


def test_a_parameter_without_a_grad_is_left_out_of_the_step():
    a = gs.tensor([1.0], requires_grad=True)
    b = gs.tensor([2.0], requires_grad=True)

    def run():
        (a * 2).sum().backward()
        optim.SGD([a, b], lr=0.1).step()

    rec, _ = record(run)
    (step,) = rec.optimizer
    assert [c.label for c in step.params] == ["a"]


def test_each_parameter_group_is_an_event_with_its_own_settings():
    model = nn.Linear(2, 1)

    def run():
        model(gs.ones(3, 2)).sum().backward()
        optim.SGD([{"params": [model.weight]}, {"params": [model.bias], "lr": 0.5}], lr=0.1).step()

    rec, _ = record(run)
    first, second = rec.optimizer
    assert (dict(first.settings)["lr"], [c.label for c in first.params]) == ("0.1", ["weight"])
    assert (dict(second.settings)["lr"], [c.label for c in second.params]) == ("0.5", ["bias"])
    np.testing.assert_allclose(second.params[0].update.values, [-0.5 * 3.0])


def test_lbfgs_is_one_step_event_however_many_times_it_calls_the_closure():
    w = gs.tensor([0.0, 0.0], requires_grad=True)
    target = gs.tensor([1.0, -2.0])

    def run():
        opt = optim.LBFGS([w], lr=1, max_iter=5)

        def closure():
            opt.zero_grad()
            loss = ((w - target) ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)

    rec, _ = record(run)
    (step,) = steps_of(rec)
    (change,) = step.params
    assert step.passes == 1 and len(rec.passes) > 1  # announced after the closure's first call
    np.testing.assert_allclose(change.before.values, [0.0, 0.0])
    np.testing.assert_allclose(change.after.values, w.detach().numpy(), rtol=1e-6)


def test_a_users_optimizer_with_its_own_step_is_announced_once():
    class HalfSGD(optim.SGD):
        def step(self, closure=None):
            for group in self.param_groups:
                group["lr"] = group["lr"] / 2
            return super().step(closure)

    w = gs.tensor([1.0], requires_grad=True)

    def run():
        (w * 4).sum().backward()
        HalfSGD([w], lr=1.0).step()

    rec, _ = record(run)
    (step,) = rec.optimizer
    assert step.optimizer == "HalfSGD"
    np.testing.assert_allclose(step.params[0].update.values, [-2.0])  # its own halved lr


def test_events_of_passes_out_of_the_detail_window_keep_their_rows_and_drop_their_values():
    rec, _ = record(lambda: train(gs, OPTIMIZERS["sgd momentum"], 8), Policy(keep_first=1, keep_last=2))
    events = steps_of(rec)
    assert [e.passes for e in events] == list(range(1, 9))
    kept = [e.passes - 1 for e in events if e.params]
    assert kept == [0, 6, 7] == [p.index for p in rec.passes if p.detailed]
    assert all(e.optimizer == "SGD" and dict(e.settings)["momentum"] == "0.9" for e in events)
    assert all(c.before is not None and c.after is not None for e in events for c in e.params)


def test_a_recorded_training_run_round_trips_through_a_snapshot():
    rec, _ = record(lambda: train(gs, OPTIMIZERS["adam"], 5), Policy(keep_first=1, keep_last=2))
    assert snapshot.loads(snapshot.dumps(rec)) == rec


def test_an_observer_hears_each_step_begin_and_end_once_with_the_optimizer():
    calls = []

    class Listener(hooks.Observer):
        def optimizer_step_begun(self, optimizer):
            calls.append(("begun", optimizer))

        def optimizer_step_ended(self, optimizer):
            calls.append(("ended", optimizer))

    with hooks.observe(Listener()):
        opt, _, _ = train(gs, OPTIMIZERS["sgd momentum"], 2)
    assert calls == [("begun", opt), ("ended", opt)] * 2


def test_the_events_of_a_pass_the_debugger_paused_in_keep_their_values():
    recorder = Recorder(Policy(keep_first=1, keep_last=2))

    class PauseInPass3(hooks.Observer):  # what the step gate does when it pauses
        def backward_begun(self, root, order):
            if len(recorder.record.passes) == 4:
                recorder.keep(3)

    with hooks.observe(recorder), hooks.observe(PauseInPass3()):
        train(gs, OPTIMIZERS["sgd"], 9)
    rec = recorder.finish()
    kept = [e.passes - 1 for e in steps_of(rec) if e.params]
    assert kept == [0, 3, 7, 8] == [p.index for p in rec.passes if p.detailed]


def test_a_parameter_too_large_to_copy_keeps_its_summaries_but_no_update(monkeypatch):
    monkeypatch.setattr("graphscope.trace.recording.recorder.SUMMARIZE_AT_ONCE", 2)  # w (3 elements) is "large"
    rec, _ = record(lambda: train(gs, OPTIMIZERS["sgd"], 2))
    (change,) = steps_of(rec)[1].params
    assert change.before is not None and change.after is not None and change.update is None
    np.testing.assert_allclose(change.after.values - change.before.values, -0.1 * change.grad.values, rtol=1e-4)
