"""Findings: the NaN's origin, the first NaN in backward, dead ReLUs, vanishing and exploding grads."""

import runpy
import sys
from pathlib import Path

import graphscope as gs
from graphscope import nn, optim
from graphscope.engine import hooks
from graphscope.trace.record.model import (
    ACCUMULATED_GRAD,
    DEAD_RELU,
    EXPLODING_GRAD,
    NAN_GRAD,
    NAN_ORIGIN,
    VANISHING_GRAD,
)
from graphscope.trace.recording.recorder import Policy, Recorder
from tests.trace.trace_helpers import line_of

SAMPLES = Path(gs.__file__).resolve().parent.parent / "samples"


def record(run, policy=None):
    recorder = Recorder(policy)
    with hooks.observe(recorder):
        run()
    return recorder.finish()


def kinds(rec):
    return [f.kind for f in rec.findings]


def only(rec, kind):
    found = [f for f in rec.findings if f.kind == kind]
    assert len(found) == 1, rec.findings
    return found[0]


def test_the_nan_origin_is_the_first_node_that_made_one_not_the_first_symptom():
    x = gs.tensor([1.0, -1.0, 2.0], requires_grad=True)

    def run():
        y = x.log()  # the NaN is born here
        z = y * 2  # and only carried on here
        z.sum().backward()

    f = only(record(run), NAN_ORIGIN)
    assert f.site.line == line_of("the NaN is born here") and "log" in f.message
    assert "from finite inputs" in f.message and "1 NaN of 3 values" in f.message


def test_the_origin_is_found_even_when_the_nan_appears_long_before_the_end():
    w = gs.tensor([1.0, 2.0], requires_grad=True)

    def run():
        for step in range(30):
            scale = gs.tensor([-1.0 if step == 5 else 1.0, 1.0])
            (w * scale).sqrt().sum().backward()  # sqrt of a negative at step 5
            w.grad = None

    rec = record(run)
    f = only(rec, NAN_ORIGIN)
    assert f.pass_index == 5 and f.site.line == line_of("sqrt of a negative at step 5")
    assert rec.passes[5].detailed  # the pass that made it is kept in detail


def test_the_first_nan_grad_is_the_backward_step_that_made_it():
    x = gs.tensor([0.0, 4.0], requires_grad=True)

    def run():
        x.sqrt().sum().backward()  # d sqrt(x)/dx is infinite at 0

    rec = record(run)
    f = only(rec, NAN_GRAD)
    assert rec.nodes[f.node].op == "sqrt" and "input 0" in f.message
    assert f.site.line == line_of("d sqrt(x)/dx is infinite at 0")
    assert NAN_ORIGIN not in kinds(rec)  # the values were all finite


def test_dead_relu_units_are_reported_with_their_count():
    gs.manual_seed(0)
    layer = nn.Linear(2, 4)
    with gs.no_grad():
        layer.weight[0] = gs.tensor([-1.0, -1.0])  # unit 0: always negative on positive input
        layer.bias[0] = -1.0
    x = gs.rand(8, 2)

    def run():
        layer(x).relu().sum().backward()  # relu

    f = only(record(run), DEAD_RELU)
    assert "1 of 4 units" in f.message and f.site.line == line_of("relu")


def test_a_healthy_relu_is_not_reported():
    x = gs.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)

    def run():
        x.relu().sum().backward()

    assert DEAD_RELU not in kinds(record(run))


def test_exploding_and_vanishing_grads_use_configurable_thresholds():
    big = gs.tensor([1.0], requires_grad=True)
    tiny = gs.tensor([1.0], requires_grad=True)

    def run():
        (big * 5000.0 + tiny * 1e-9).sum().backward()

    rec = record(run)
    assert only(rec, EXPLODING_GRAD).parameter == "big"
    assert only(rec, VANISHING_GRAD).parameter == "tiny"
    relaxed = record(run, Policy(exploding=1e4, vanishing=1e-12))
    assert EXPLODING_GRAD not in kinds(relaxed) and VANISHING_GRAD not in kinds(relaxed)


def test_a_healthy_training_run_has_no_findings():
    gs.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = optim.SGD(model.parameters(), lr=0.05)
    x, y = gs.randn(32, 3), gs.randn(32, 1)

    def run():
        for _ in range(20):
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()

    assert record(run).findings == []


def test_exploding_nan_sample_points_at_the_log_of_sigma(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", [str(SAMPLES / "exploding_nan.py")])  # its own, not pytest's
    recorder = Recorder(script=str(SAMPLES / "exploding_nan.py"))
    with hooks.observe(recorder):
        runpy.run_path(str(SAMPLES / "exploding_nan.py"), run_name="__main__")
    rec = recorder.finish()
    f = only(rec, NAN_ORIGIN)
    source = (SAMPLES / "exploding_nan.py").read_text().splitlines()
    assert f.site.file == str(SAMPLES / "exploding_nan.py")
    assert "sigma.log()" in source[f.site.line - 1] and f.site.text.startswith("log_sigma = sigma.log()")
    assert rec.nodes[f.node].op == "log"
    assert rec.has_nonfinite()


def _masked_nan_run():
    w = gs.tensor([1.0, 2.0], requires_grad=True)

    def run():
        for step in range(12):
            x = gs.tensor([-1.0 if step == 2 else 1.0, 1.0])
            logs = (w * x).log()  # a NaN the where below hides
            gs.where(x > 0, logs, gs.zeros(2)).sum().backward()
            w.grad = None

    return run


def test_a_nan_that_reaches_neither_loss_nor_grads_is_found_when_every_pass_is_scanned():
    f = only(record(_masked_nan_run(), Policy(scan_every_pass=True)), NAN_ORIGIN)
    assert f.pass_index == 2 and f.site.line == line_of("a NaN the where below hides")


def test_by_default_passes_are_scanned_when_the_loss_or_a_grad_norm_shows_a_nan():
    rec = record(_masked_nan_run())
    assert NAN_ORIGIN not in kinds(rec)  # hidden, and long gone by the end: the documented limit
    assert all(_finite_loss(p) for p in rec.passes)


def _finite_loss(p):
    return p.loss == p.loss


def _record_sample(name, monkeypatch, *argv):
    path = SAMPLES / name
    monkeypatch.setattr(sys, "argv", [str(path), *argv])  # its own, not pytest's
    recorder = Recorder(script=str(path))
    with hooks.observe(recorder):
        runpy.run_path(str(path), run_name="__main__")
    return recorder.finish()


def test_a_loop_that_forgets_zero_grad_is_pointed_at(capsys, monkeypatch):
    rec = _record_sample("forgot_zero_grad.py", monkeypatch, "4")
    f = only(rec, ACCUMULATED_GRAD)
    assert f.message.startswith("grads of `w`, `b` accumulated across 4 passes without zeroing (passes 0 to 3)")
    assert (f.parameter, f.pass_index) == ("w", 3)
    assert f.site.text == "optimizer.step()"  # where the sum was read: zero_grad belongs next to it
    assert rec.nodes[f.node].parameter == "w"


def test_the_tutorials_training_loop_that_zeroes_its_grads_is_not(capsys, monkeypatch):
    rec = _record_sample("training_loop.py", monkeypatch, "1")
    assert ACCUMULATED_GRAD not in kinds(rec)


def _accumulating(passes, step_every=1, zero_every=None):
    w = gs.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.01)

    def run():
        for i in range(passes):
            (w * w).sum().backward()
            if (i + 1) % step_every == 0:
                opt.step()
            if zero_every and (i + 1) % zero_every == 0:
                opt.zero_grad()

    return record(run)


def test_two_passes_without_zeroing_are_not_yet_a_finding():
    assert ACCUMULATED_GRAD not in kinds(_accumulating(2))


def test_accumulating_on_purpose_over_several_passes_then_stepping_is_not_a_finding():
    assert ACCUMULATED_GRAD not in kinds(_accumulating(8, step_every=4, zero_every=4))


def test_stepping_on_a_growing_grad_is_a_finding_however_the_passes_are_kept():
    rec = _accumulating(12, step_every=1, zero_every=6)  # zeroed, but only every 6 steps
    f = only(rec, ACCUMULATED_GRAD)
    assert "`w` accumulated across 6 passes" in f.message and f.pass_index == 5
    assert [p.detailed for p in rec.passes].count(False) > 0  # found from rows, not detail


def test_backward_three_times_by_hand_without_an_optimizer_is_a_finding():
    def run():
        a = gs.tensor([2.0, 3.0], requires_grad=True)
        for _ in range(3):
            (a**2).sum().backward()

    f = only(record(run), ACCUMULATED_GRAD)
    assert "grads of `a` accumulated across 3 passes" in f.message
    assert f.site.text == "a = gs.tensor([2.0, 3.0], requires_grad=True)"  # no step: where it was made


def test_clearing_one_grad_by_hand_ends_only_its_run():
    a = gs.tensor([2.0, 3.0], requires_grad=True)
    b = gs.tensor([1.0], requires_grad=True)

    def run():
        for _ in range(3):
            (a * b).sum().backward()
            a.grad = None

    f = only(record(run, Policy.every_pass()), ACCUMULATED_GRAD)
    assert f.message.startswith("grads of `b` accumulated")
