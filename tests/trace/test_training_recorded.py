"""The training series a recording fills: every pass's loss, grad norms, update ratios, learning rates and
module outputs' statistics, whatever the detail window keeps, each checked against NumPy on the run's own
arrays."""

import math
import weakref

import numpy as np
import pytest

import graphscope as gs
from graphscope import nn, optim
from graphscope.trace.record.model import BackwardPass, Record
from graphscope.trace.recording.recorder import Policy
from graphscope.trace.recording.training_series import TrainingRecording
from tests.trace.trace_helpers import recorded

ONLY_LAST = Policy(keep_first=0, keep_last=1)  # every pass but the last loses its detail


def norm(a):
    return float(np.sqrt(np.sum(np.asarray(a, dtype=np.float64) ** 2)))


def mlp_run(passes, flush_mid_forward=None):
    """A Linear-ReLU-Linear-Tanh net trained with SGD; what the run saw, per pass, to check against."""
    gs.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 4), nn.Tanh())
    with gs.no_grad():
        net[0].bias[:2] = -100.0  # units 0 and 1 are dead for every row
        net[2].weight *= 20.0  # the tanh saturates
    opt = optim.SGD(net.parameters(), lr=0.05)
    x, y = gs.randn(8, 3), gs.randn(8, 4)
    seen = []

    def run():
        for _ in range(passes):
            opt.zero_grad()
            out = net(x)
            if flush_mid_forward is not None:
                flush_mid_forward()
            loss = ((out - y) ** 2).mean()
            loss.backward()
            with gs.no_grad():  # the forward's module outputs again (no graph: nothing recorded)
                lin = net[0](x)
                hidden = net[1](lin)
            before = {name: p.detach().cpu().numpy().copy() for name, p in net.named_parameters()}
            grads = {name: norm(p.grad.cpu().numpy()) for name, p in net.named_parameters()}
            opt.step()
            after = {name: p.detach().cpu().numpy().copy() for name, p in net.named_parameters()}
            seen.append(
                dict(
                    loss=loss.item(),
                    grads=grads,
                    ratios={k: norm(after[k] - before[k]) / norm(before[k]) for k in before},
                    hidden=hidden.cpu().numpy().copy(),
                    out=out.detach().cpu().numpy().copy(),
                    lin=lin.cpu().numpy().copy(),
                )
            )

    return run, seen


def test_every_pass_has_its_loss_grad_norms_update_ratios_and_lr_whatever_the_window_keeps():
    run, seen = mlp_run(5)
    _, rec, _ = recorded(run, ONLY_LAST)
    t = rec.training
    assert [p.detailed for p in rec.passes] == [False] * 4 + [True]
    assert t.passes == 5 and t.loss.dtype == np.float64
    np.testing.assert_allclose(t.loss, [s["loss"] for s in seen], rtol=1e-6)
    assert list(t.params) == list(rec.passes[0].grad_norms)
    assert set(t.params) == {"0.weight", "0.bias", "2.weight", "2.bias"}
    for name, series in t.params.items():
        np.testing.assert_allclose(series.grad_norm, [s["grads"][name] for s in seen], rtol=1e-5)
        np.testing.assert_allclose(series.update_ratio, [s["ratios"][name] for s in seen], rtol=1e-4)
        np.testing.assert_array_equal(series.lr, [0.05] * 5)


def test_each_module_output_has_mean_std_and_the_dead_or_saturated_fraction_of_its_kind():
    run, seen = mlp_run(3)
    _, rec, _ = recorded(run, ONLY_LAST)
    acts = rec.training.activations
    assert {m: a.kind for m, a in acts.items()} == {
        "net.0": "other",
        "net.1": "relu",
        "net.2": "other",
        "net.3": "tanh",
    }
    relu, tanh, linear = acts["net.1"], acts["net.3"], acts["net.0"]
    for i, s in enumerate(seen):
        hidden, out = s["hidden"], s["out"]
        assert relu.mean[i] == pytest.approx(hidden.mean(), rel=1e-6)
        assert relu.std[i] == pytest.approx(hidden.std(), rel=1e-5)
        assert relu.dead[i] == pytest.approx(np.mean(~hidden.any(axis=0)))  # units zero for every row
        assert tanh.saturated[i] == pytest.approx(np.mean(np.abs(out) >= 0.99))
        assert linear.mean[i] == pytest.approx(s["lin"].mean(), rel=1e-5)
    assert relu.dead[0] >= 2 / 6 and tanh.saturated[0] > 0.2
    # the fractions another kind has no meaning for are NaN
    assert np.isnan(relu.saturated).all() and np.isnan(tanh.dead).all()
    assert np.isnan(linear.saturated).all() and np.isnan(linear.dead).all()


def test_a_relus_dead_fraction_is_what_the_records_dead_column_says_for_a_kept_pass():
    run, _ = mlp_run(2)
    _, rec, _ = recorded(run, ONLY_LAST)
    relu = next(n for n in rec.nodes.values() if n.op == "relu" and n.pass_index == 1)
    dead, units = relu.dead_units
    assert rec.training.activations["net.1"].dead[1] == dead / units


def test_a_flush_in_the_middle_of_a_forward_loses_no_module_output():
    holder = []
    run, seen = mlp_run(3, flush_mid_forward=lambda: holder[0].flush())
    from graphscope.engine import hooks
    from graphscope.trace.recording.recorder import Recorder

    recorder = Recorder(Policy(keep_last=None))  # every pass put into the record, mid-forward too
    holder.append(recorder)
    with hooks.observe(recorder):
        run()
    acts = recorder.finish().training.activations
    assert list(acts) == ["net.0", "net.1", "net.2", "net.3"]
    np.testing.assert_allclose(acts["net.3"].mean, [s["out"].mean() for s in seen], rtol=1e-5)


def test_a_hand_update_has_its_ratio_and_no_learning_rate_and_a_pass_no_update_followed_has_none():
    w = gs.tensor([3.0, 4.0], requires_grad=True)

    def run():
        (w * w).sum().backward()
        with gs.no_grad():
            w.sub_(0.1 * w.grad)  # |Δw| = 0.2 |w|
        w.grad = None
        (w * w).sum().backward()  # nothing updates after this one

    _, rec, _ = recorded(run, ONLY_LAST)
    (series,) = rec.training.params.values()
    assert series.update_ratio[0] == pytest.approx(0.2)
    assert math.isnan(series.update_ratio[1])
    assert np.isnan(series.lr).all()
    np.testing.assert_allclose(series.grad_norm, [10.0, 8.0])


def test_the_columns_grow_past_their_first_buffer_with_every_pass_in_place():
    w = gs.tensor([1.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.01)

    def run():
        for _ in range(150):
            opt.zero_grad()
            (w * w).sum().backward()
            opt.step()

    _, rec, _ = recorded(run, ONLY_LAST)
    t = rec.training
    assert t.passes == len(t.loss) == 150
    expected = 0.98 ** np.arange(150)  # w shrinks by 2 lr each step
    np.testing.assert_allclose(t.loss, expected**2, rtol=1e-5)
    (series,) = t.params.values()
    np.testing.assert_allclose(series.update_ratio, np.full(150, 0.02), rtol=1e-5)
    assert len(series.grad_norm) == len(series.lr) == 150


def test_a_nonfinite_loss_is_kept_as_it_was():
    w = gs.tensor([1.0], requires_grad=True)

    def run():
        (w * math.inf).sum().backward()

    _, rec, _ = recorded(run, ONLY_LAST)
    assert rec.training.loss.tolist() == [math.inf]


def test_module_outputs_past_the_passes_held_at_once_are_all_figured():
    run, seen = mlp_run(70)
    _, rec, _ = recorded(run, ONLY_LAST)
    relu = rec.training.activations["net.1"]
    assert rec.training.passes == len(relu.mean) == 70
    np.testing.assert_allclose(relu.mean, [s["hidden"].mean() for s in seen], rtol=1e-5)
    np.testing.assert_allclose(relu.dead, [np.mean(~s["hidden"].any(axis=0)) for s in seen])
    for name, series in rec.training.params.items():
        np.testing.assert_allclose(series.update_ratio, [s["ratios"][name] for s in seen], rtol=1e-4)


def test_large_and_small_outputs_and_steps_have_numpys_figures_and_modules_keep_the_order_they_ran():
    gs.manual_seed(0)
    # outputs of 64 x 4 (held, a few passes stacked) and 64 x 300 (figured with its pass); likewise
    # a 300 x 60 weight and the smaller ones
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 300), nn.Tanh(), nn.Linear(300, 60))
    opt = optim.SGD(net.parameters(), lr=0.05)
    x, y = gs.randn(64, 3), gs.randn(64, 60)
    seen = []

    def run():
        for _ in range(5):
            opt.zero_grad()
            loss = ((net(x) - y) ** 2).mean()
            loss.backward()
            with gs.no_grad():
                outs = [x]
                for layer in net:
                    outs.append(layer(outs[-1]))
            before = {name: p.detach().cpu().numpy().copy() for name, p in net.named_parameters()}
            opt.step()
            after = {name: p.detach().cpu().numpy() for name, p in net.named_parameters()}
            seen.append(
                ([o.cpu().numpy() for o in outs[1:]], {k: norm(after[k] - b) / norm(b) for k, b in before.items()})
            )

    _, rec, _ = recorded(run, ONLY_LAST)
    acts = rec.training.activations
    assert list(acts) == ["net.0", "net.1", "net.2", "net.3", "net.4"]
    for k, name in enumerate(acts):
        np.testing.assert_allclose(acts[name].mean, [outs[k].mean() for outs, _ in seen], rtol=1e-4, atol=1e-7)
        np.testing.assert_allclose(acts[name].std, [outs[k].std() for outs, _ in seen], rtol=1e-4)
    for name, series in rec.training.params.items():
        np.testing.assert_allclose(series.update_ratio, [r[name] for _, r in seen], rtol=1e-4)
        np.testing.assert_allclose(series.lr, np.full(5, 0.05))


def test_a_large_parameters_step_is_figured_at_once_and_its_copies_are_let_go():
    record = Record(passes=[BackwardPass(0)])
    training = TrainingRecording(record)
    before = np.linspace(1.0, 2.0, 20000, dtype=np.float32)
    after = before * np.float32(1.5)
    copies = weakref.ref(before), weakref.ref(after)
    training.updates(0, [("w", before, after)], 0.1)
    del before, after
    assert all(c() is None for c in copies)
    training.publish()
    assert record.training.params["w"].update_ratio.tolist() == [pytest.approx(0.5)]
    assert record.training.params["w"].lr.tolist() == [0.1]


def test_outputs_and_steps_that_change_shape_between_passes_are_each_figured_as_alone():
    record = Record(passes=[BackwardPass(i) for i in range(4)])
    training = TrainingRecording(record)
    shapes = [(3, 4), (5,), (3, 4), (2, 2)]
    befores = [np.linspace(1.0, 2.0, math.prod(s), dtype=np.float32).reshape(s) for s in shapes]
    afters = [b * np.float32(1.0 + 0.1 * i) for i, b in enumerate(befores)]
    for i, (b, a) in enumerate(zip(befores, afters)):
        training.updates(i, [("w", b, a)], 0.1)
    training.publish()
    want = [norm(a - b) / norm(b) for b, a in zip(befores, afters)]
    np.testing.assert_allclose(record.training.params["w"].update_ratio, want, rtol=1e-6)


def test_a_module_whose_batch_shrinks_has_each_passes_figures():
    gs.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 5), nn.ReLU())
    batches = [gs.randn(n, 3) for n in (8, 8, 3, 8, 2)]

    def run():
        for x in batches:
            net(x).sum().backward()

    _, rec, _ = recorded(run, ONLY_LAST)
    with gs.no_grad():
        hidden = [net(x).cpu().numpy() for x in batches]
    relu = rec.training.activations["net.1"]
    np.testing.assert_allclose(relu.mean, [h.mean() for h in hidden], rtol=1e-6)
    np.testing.assert_allclose(relu.dead, [np.mean(~h.any(axis=0)) for h in hidden])
