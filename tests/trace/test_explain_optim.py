"""An optimizer step explained: the recorded before, update and after, and every number of the rule, are torch's."""

import ast
import re

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace.explain.optimizer_step import change_numbers, explain_change
from graphscope.trace.record.model import OPTIMIZER_STEP, ZERO_GRAD
from graphscope.trace.recording.recorder import Policy, Recorder

W0 = np.linspace(-1.0, 1.2, 12).reshape(3, 4)  # more than 8 elements: explained one at a time
B0 = [0.5, -0.25]
C = np.linspace(0.5, 2.0, 12).reshape(3, 4)

OPTIMIZERS = {
    "sgd": (lambda lib, p: lib.optim.SGD(p, lr=0.1)),
    "sgd momentum": (lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9)),
    "sgd nesterov weight decay": (
        lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
    ),
    "adam": (lambda lib, p: lib.optim.Adam(p, lr=0.1)),
    "adam weight decay": (lambda lib, p: lib.optim.Adam(p, lr=0.05, betas=(0.8, 0.99), weight_decay=0.1)),
    "adamw": (lambda lib, p: lib.optim.AdamW(p, lr=0.1, weight_decay=0.1)),
    "sgd maximize": (lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.5, dampening=0.1, maximize=True)),
    "adam amsgrad maximize": (lambda lib, p: lib.optim.Adam(p, lr=0.1, amsgrad=True, maximize=True)),
}
STEPS = 3


def train(lib, make, watch=None):
    """STEPS steps on w (3x4) and b (2,); `watch(step, w, b, opt)` sees each step before and after."""
    w = lib.tensor(W0.tolist(), requires_grad=True)
    b = lib.tensor(B0, requires_grad=True)
    c = lib.tensor(C.tolist())
    opt = make(lib, [w, b])
    for step in range(STEPS):
        opt.zero_grad()
        ((w**2 * c).sum() + (b**3).sum() + (w.sum() * b[0])).backward()
        if watch:
            watch("before", step, w, b, opt)
        opt.step()
        if watch:
            watch("after", step, w, b, opt)


def torch_history(make):
    """Per step, per parameter name: before, grad, after and a copy of torch's state after it."""
    history = [{} for _ in range(STEPS)]

    def watch(when, step, w, b, opt):
        for label, p in (("w", w), ("b", b)):
            entry = history[step].setdefault(label, {})
            value = p.detach().numpy().astype(np.float64).reshape(-1).copy()
            if when == "before":
                entry["before"], entry["grad"] = value, p.grad.numpy().astype(np.float64).reshape(-1).copy()
            else:
                entry["after"] = value
                entry["state"] = {
                    k: (v.numpy().astype(np.float64).reshape(-1).copy() if v.dim() else float(v))
                    for k, v in opt.state[p].items()
                }

    train(torch, make, watch)
    return history


def recorded(make):
    recorder = Recorder(Policy.every_pass())
    with hooks.observe(recorder):
        train(gs, make)
    rec = recorder.finish()
    return rec, [e for e in rec.optimizer if e.kind == OPTIMIZER_STEP]


def close(a, b):
    return a == pytest.approx(b, rel=2e-5, abs=1e-6)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("label, element", [("w", 0), ("w", 7), ("b", 1)])
def test_every_number_of_the_rule_is_torchs(name, label, element):
    make = OPTIMIZERS[name]
    rec, steps = recorded(make)
    expected = torch_history(make)
    for step, event in enumerate(steps):
        change = next(c for c in event.params if c.label == label)
        want = expected[step][label]
        n = change_numbers(rec, event, change, element)
        assert close(n.before, want["before"][element]) and close(n.grad, want["grad"][element])
        assert close(n.after, want["after"][element])
        assert close(n.update, want["after"][element] - want["before"][element])  # the rule gives torch's step
        np.testing.assert_allclose(
            change.update.values.reshape(-1)[element],
            want["after"][element] - want["before"][element],
            rtol=1e-4,
            atol=1e-6,
        )
        state = want["state"]
        if "momentum_buffer" in state:
            assert close(n.buf, state["momentum_buffer"][element])
            previous = expected[step - 1][label]["state"]["momentum_buffer"][element] if step else None
            assert n.buf_before is None if step == 0 else close(n.buf_before, previous)
        if "exp_avg" in state:
            t = int(state["step"])
            assert n.t == t == step + 1
            v = "max_exp_avg_sq" if "max_exp_avg_sq" in state else "exp_avg_sq"  # amsgrad divides by the max
            assert close(n.m, state["exp_avg"][element]) and close(n.v, state[v][element])
            before = expected[step - 1][label]["state"] if step else {"exp_avg": [0.0] * 12, "exp_avg_sq": [0.0] * 12}
            assert close(n.m_before, before["exp_avg"][element])
            assert close(n.v_before, before["exp_avg_sq"][element]) if v == "exp_avg_sq" else n.v_before is None
            beta1, beta2 = dict(event.settings)["betas"].strip("()").split(", ")
            assert close(n.m_hat, state["exp_avg"][element] / (1 - float(beta1) ** t))
            assert close(n.v_hat, state[v][element] / (1 - float(beta2) ** t))


NUMBER = re.compile(r"(?<![\w.)])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def numbers_after_the_rule(line):
    """The numbers of a rule line "name = rule = numbers = result"."""
    return [float(x) for x in NUMBER.findall(line.split(" = ", 2)[2])]


def test_sgd_lines_show_lr_times_grad_with_the_elements_numbers():
    rec, steps = recorded(OPTIMIZERS["sgd"])
    want = torch_history(OPTIMIZERS["sgd"])[1]["w"]
    lines = explain_change(rec, steps[1], steps[1].params[0], 7)
    assert lines[0] == "w: SGD step after backward pass 1 (lr=0.1)"
    assert lines[1] == "element 7 of 12 (shape (3, 4))"
    (rule,) = [line for line in lines if line.startswith("update = -lr × grad = ")]
    lr, grad, update = numbers_after_the_rule(rule)
    assert (lr, close(grad, want["grad"][7]), close(update, want["after"][7] - want["before"][7])) == (-0.1, True, True)
    assert any(line.startswith("value before") and close(float(line.split()[-1]), want["before"][7]) for line in lines)
    assert close(float(lines[-1].split(" = ")[-1]), want["after"][7])


def test_momentum_lines_show_the_buffer_before_and_after():
    rec, steps = recorded(OPTIMIZERS["sgd momentum"])
    history = torch_history(OPTIMIZERS["sgd momentum"])
    first = explain_change(rec, steps[0], steps[0].params[1], 1)
    assert "buf = grad (the first step) = " in "\n".join(first)
    lines = explain_change(rec, steps[2], steps[2].params[1], 1)
    (buf,) = [line for line in lines if line.startswith("buf = momentum·buf + grad = ")]
    momentum, previous, grad, now = numbers_after_the_rule(buf)
    assert momentum == 0.9 and close(previous, history[1]["b"]["state"]["momentum_buffer"][1])
    assert close(grad, history[2]["b"]["grad"][1]) and close(now, history[2]["b"]["state"]["momentum_buffer"][1])
    (update,) = [line for line in lines if line.startswith("update = -lr × buf")]
    assert close(numbers_after_the_rule(update)[-1], history[2]["b"]["after"][1] - history[2]["b"]["before"][1])


def test_adam_lines_show_the_bias_corrected_moments():
    rec, steps = recorded(OPTIMIZERS["adam"])
    history = torch_history(OPTIMIZERS["adam"])
    lines = explain_change(rec, steps[1], steps[1].params[0], 3)
    state = history[1]["w"]["state"]
    m_hat_line = next(line for line in lines if line.startswith("m̂ = m/(1-β1ᵗ) = "))
    m, one, beta1, t, m_hat = numbers_after_the_rule(m_hat_line)
    assert (one, beta1, t) == (1, 0.9, 2) and close(m, state["exp_avg"][3])
    assert close(m_hat, state["exp_avg"][3] / (1 - 0.9**2))
    v_hat_line = next(line for line in lines if line.startswith("v̂ = v/(1-β2ᵗ) = "))
    assert close(numbers_after_the_rule(v_hat_line)[-1], state["exp_avg_sq"][3] / (1 - 0.999**2))
    update = next(line for line in lines if line.startswith("update = -lr × m̂/(√v̂+ε) = "))
    assert close(numbers_after_the_rule(update)[-1], history[1]["w"]["after"][3] - history[1]["w"]["before"][3])


def test_a_small_parameter_is_shown_whole_too():
    rec, steps = recorded(OPTIMIZERS["sgd"])
    lines = explain_change(rec, steps[0], steps[0].params[1])
    want = torch_history(OPTIMIZERS["sgd"])[0]["b"]
    before = next(line for line in lines if line.startswith("before "))
    assert np.allclose(ast.literal_eval(before.split(maxsplit=1)[1]), want["before"])
    assert "element 0 of 2 (shape (2,))" in lines


def test_an_optimizer_without_an_explained_rule_still_shows_before_and_after():
    rec, steps = recorded(lambda lib, p: lib.optim.RMSprop(p, lr=0.01))
    lines = explain_change(rec, steps[0], steps[0].params[1], 0)
    assert "its update rule is not explained here: update = after - before" in lines
    assert lines[-1].startswith("value after")


def test_a_zero_grad_shows_the_grad_it_cleared():
    rec, _ = recorded(OPTIMIZERS["sgd"])
    event = [e for e in rec.optimizer if e.kind == ZERO_GRAD][1]
    lines = explain_change(rec, event, event.params[1])
    assert lines[0] == "b: SGD.zero_grad() after backward pass 0"
    assert lines[1].startswith(".grad before   [") and lines[2] == ".grad after    None"


def test_an_element_out_of_range_says_so():
    rec, steps = recorded(OPTIMIZERS["sgd"])
    with pytest.raises(ValueError, match="element 12 is out of range: the parameter has 12 elements"):
        explain_change(rec, steps[0], steps[0].params[0], 12)


def test_an_update_is_one_number_on_every_line_that_shows_it():
    recorder = Recorder(Policy.every_pass())
    with hooks.observe(recorder):  # float32: the rule's float64 update and the applied one differ in the last digit
        w = gs.nn.Parameter(gs.tensor([0.7312, -1.2345, 0.3333]))
        optimizer = gs.optim.Adam([w], lr=0.01)
        for _ in range(3):
            optimizer.zero_grad()
            (w * w * gs.tensor([1.3, 0.2, 2.0])).sum().backward()
            optimizer.step()
    record = recorder.finish(0)
    for event in (e for e in record.optimizer if e.kind == OPTIMIZER_STEP):
        (change,) = event.params
        listed = next(line for line in explain_change(record, event, change) if line.startswith("update ["))
        for element in range(3):
            lines = explain_change(record, event, change, element)
            update = next(line for line in lines if line.startswith("update = ")).rsplit(" = ", 1)[1]
            after = next(line for line in lines if line.startswith("value after"))
            assert f" + {update} = " in after or f" + ({update}) = " in after, (update, after)
            assert update in listed, (update, listed)
