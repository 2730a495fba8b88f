"""Explaining a backward step: the rule, grad_in = grad_out × local with the numbers, checked against torch."""

import json

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace import dumps, loads
from graphscope.trace.explain.step import explain_lines, explain_step
from graphscope.trace.record.model import BackwardPass, Record, Step
from graphscope.trace.recording.recorder import Policy, Recorder
from tests.engine.op_tables import GS_FUNCTIONS
from tests.trace.explain_cases import CASES, MODULE_CASES
from tests.trace.trace_helpers import recorded

# --- the worked example of PyTorch's introduction ------------------------------------------------


def test_the_equation_of_the_autograd_tutorial_explained_step_by_step():
    def run():
        a = gs.tensor([2.0, 3.0], requires_grad=True)
        b = gs.tensor([6.0, 4.0], requires_grad=True)
        Q = 3 * a**3 - b**2
        Q.backward(gradient=gs.tensor([1.0, 1.0]))
        return a, b

    _, record, (a, b) = recorded(run)
    lines = [explain_lines(explain_step(record, 0, i)) for i in range(len(record.passes[0].steps))]
    sub, square, times_three, cube = lines
    assert sub[1] == "rule: d(a−b)/da = 1    d(a−b)/db = −1"
    assert "  grad_in = [1, 1] × −1 = [-1, -1]" in sub
    assert square[1] == "rule: d(x²)/dx = 2·x"
    assert square[2:] == [
        "b (node 3):",
        "  local  d out/d b = 2·[6, 4] = [12, 8]",
        "  grad_in = [-1, -1] × 2·[6, 4] = [-12, -8]",
    ]
    assert times_three[1] == "rule: d(a·b)/da = b    d(a·b)/db = a"
    assert "  grad_in = [1, 1] × 3 = [3, 3]" in times_three
    assert cube[1] == "rule: d(x³)/dx = 3·x²"
    assert "  grad_in = [3, 3] × 3·[2, 3]² = [36, 81]" in cube
    assert a.grad.tolist() == [36.0, 81.0] and b.grad.tolist() == [-12.0, -8.0]


def test_a_step_explained_holds_the_numbers_as_arrays():
    def run():
        b = gs.tensor([6.0, 4.0], requires_grad=True)
        (b**2).sum().backward()

    _, record, _ = recorded(run)
    e = explain_step(record, 0, 1)
    assert (e.op, e.custom, e.element) == ("pow", None, None)
    (term,) = e.terms
    assert term.name == "b"
    np.testing.assert_array_equal(term.grad_out, [1, 1])
    np.testing.assert_array_equal(term.local, [12, 8])
    np.testing.assert_array_equal(term.grad_in, [12, 8])
    assert term.formula == "[1, 1] × 2·[6, 4] = [12, 8]"


# --- broadcasts, consumers, big tensors, missing values ------------------------------------------


def test_a_broadcast_bias_says_where_its_grad_was_summed():
    def run():
        x = gs.ones(64, 4)
        bias = gs.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        (x + bias).sum().backward()

    _, record, _ = recorded(run)
    e = explain_step(record, 0, 1)
    (term,) = [t for t in e.terms if t.name == "bias"]
    assert term.note == "grad summed over dim 0: (64, 4) -> (4,)"
    np.testing.assert_array_equal(term.grad_in, [64, 64, 64, 64])
    assert "  grad summed over dim 0: (64, 4) -> (4,)" in explain_lines(e)


def test_the_step_that_completes_a_grad_shows_the_sum_over_its_consumers():
    def run():
        x = gs.tensor([0.5, 2.0], requires_grad=True)
        sigma = x.sigmoid()
        (sigma.log() + sigma**2).sum().backward()
        return sigma

    _, record, sigma = recorded(run)
    p = record.passes[0]
    producer = next(i for i, n in enumerate(p.order) if record.nodes[n].op == "sigmoid")
    (line,) = explain_step(record, 0, producer).sums
    s = sigma.detach().numpy()
    from_log, from_pow = 1 / s, 2 * s
    total = from_log + from_pow

    def fmt(v):
        return "[" + ", ".join(f"{x:.6g}" for x in v) + "]"

    sid = p.order[producer]
    assert line == f"grad(sigmoid#{sid}) = from log {fmt(from_log)} + from pow {fmt(from_pow)} = {fmt(total)}"


def test_a_leaf_used_twice_shows_its_grad_sum_where_it_is_completed():
    def run():
        b = gs.tensor([6.0, 4.0], requires_grad=True)
        (b * 3 + b**2).sum().backward()

    _, record, _ = recorded(run)
    sums = [line for i in range(len(record.passes[0].steps)) for line in explain_step(record, 0, i).sums]
    assert sums == ["grad(b) = from mul [3, 3] + from pow [12, 8] = [15, 11]"]


def test_a_big_tensor_shows_one_element_with_the_statistics_beside_it():
    def run():
        x = gs.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        (x**2).sum().backward()

    _, record, _ = recorded(run)
    e = explain_step(record, 0, 1, element=5)
    assert e.element == 5
    (term,) = e.terms
    assert term.formula == "1 × 2·5 = 10"
    assert e.stats == [
        "grad_out: shape (3, 4), min 1, max 1, mean 1, std 0, norm 3.4641",
        "grad to x: shape (3, 4), min 0, max 22, mean 11",
    ]
    assert explain_step(record, 0, 1).terms[0].formula == "1 × 2·0 = 0"  # element 0 by default


def test_values_not_recorded_are_said_in_words():
    def run():
        x = gs.ones(10, 10, requires_grad=True)
        (x.exp()).sum().backward()

    _, record, _ = recorded(run, Policy(full_values_limit=8))
    lines = explain_lines(explain_step(record, 0, 1))
    assert (
        "the values of grad_out (100 elements) were not recorded (run with --full-values 100 to keep them); "
        "its statistics: "
        "shape (10, 10), min 1, max 1, mean 1, std 0, norm 10" in lines
    )
    assert any("were not all recorded" in line for line in lines)


def paused_at_pow(values) -> list[str]:
    """The step's lines the debugger shows when it pauses before pow's backward in -(b**2).sum()."""
    recorder = Recorder()

    class PauseAtPow(hooks.Observer):
        lines = None

        def before_node(self, node, grad_output):
            if node.op == "pow" and self.lines is None:
                record = recorder.flush()
                self.lines = explain_lines(explain_step(record, 0, len(record.passes[0].steps) - 1))

    pause = PauseAtPow()
    with hooks.observe(recorder), hooks.observe(pause):
        b = gs.tensor(values, requires_grad=True)
        (-(b**2)).sum().backward()
    return pause.lines


def test_a_step_paused_before_its_backward_shows_the_local_factor_and_waits_for_grad_in():
    assert paused_at_pow([6.0, 4.0])[2:] == [
        "b (node 0):",
        "  local  d out/d b = 2·[6, 4] = [12, 8]",
        "  grad_in = [-1, -1] × 2·[6, 4] = … (when this step runs)",
        "this step's backward has not run yet: the grads to its inputs come when it runs",
    ]


def test_a_big_step_paused_before_its_backward_says_its_grad_is_not_computed_yet():
    lines = paused_at_pow([6.0] * 10)
    assert "grad to b: not computed yet (when this step runs)" in lines
    assert not any("no finite values" in line for line in lines)


def test_an_operand_no_grad_flows_to_is_shown_beside_the_terms():
    def run():
        logits = gs.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
        gs.nn.functional.cross_entropy(logits, gs.tensor([0, 2])).backward()

    _, record, _ = recorded(run)
    e = explain_step(record, 0, 0)
    target = next(n for n in record.nodes.values() if n.op == "tensor")
    assert e.rule.startswith("fused log_softmax + nll")
    assert [t.name for t in e.terms] == ["logits"]
    assert e.operands == [f"tensor#{target.id} (node {target.id}) = [0, 2]"]


def test_dropout_explains_its_mask_as_the_local_factor():
    def run():
        gs.manual_seed(0)
        x = gs.tensor(np.linspace(0.5, 2.0, 6), requires_grad=True)
        y = gs.nn.functional.dropout(x, 0.5)
        y.backward(gs.tensor(np.arange(6.0)))
        return x, y

    _, record, (x, y) = recorded(run)
    (term,) = explain_step(record, 0, 0).terms
    np.testing.assert_allclose(term.local, y.detach().numpy() / x.detach().numpy())
    np.testing.assert_allclose(term.grad_in, np.arange(6.0) * term.local)
    np.testing.assert_allclose(term.grad_in, x.grad.numpy())


def test_a_custom_function_names_its_backward_and_line():
    my_relu = GS_FUNCTIONS["MyReLU"]

    def run():
        x = gs.tensor([1.0, -1.0], requires_grad=True)
        my_relu.apply(x).sum().backward()

    _, record, _ = recorded(run)
    line = my_relu.backward.__code__.co_firstlineno + 1  # the def, under its @staticmethod
    expected = f"custom backward: custom_functions.<locals>.MyReLU.backward (op_tables.py:{line})"
    assert record.rules["MyReLU"] == expected
    e = explain_step(record, 0, 1)
    assert (e.op, e.rule, e.custom) == ("MyReLU", expected, expected)
    np.testing.assert_array_equal(e.terms[0].grad_in, [1, 0])


def test_rules_travel_in_a_snapshot_and_an_old_one_loads_without_them():
    def run():
        a = gs.tensor([2.0, 3.0], requires_grad=True)
        (a * a).sum().backward()

    _, record, _ = recorded(run)
    assert record.rules == {
        "mul": "d(a·b)/da = b    d(a·b)/db = a",
        "sum": "d sum(x)/dx = 1 (grad spread to every summed element)",
    }
    assert loads(dumps(record)).rules == record.rules
    doc = json.loads(dumps(record))
    del doc["rules"]
    old = json.dumps(doc)
    assert loads(old).rules == {}


def test_the_recorder_notes_each_rule_once_per_class_not_per_node():
    recorder = Recorder()
    with hooks.observe(recorder):
        a = gs.tensor([2.0, 3.0], requires_grad=True)
        for _ in range(3):
            (a * a * a).sum().backward()
    assert recorder._names.rules is recorder.record.rules
    assert sorted(recorder.record.rules) == ["mul", "sum"]


def test_matmul_works_one_grad_element_out_as_its_sum_of_products():
    def run():
        A = gs.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        B = gs.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -2.0]], requires_grad=True)
        (A @ B).sum().backward()

    _, record, _ = recorded(run)
    lines = explain_lines(explain_step(record, 0, 1))
    assert "  dA[0,0] = Σₖ dOut[0,k]·B[0,k] = 1·0.5 + 1·(-1) + 1·2 = 1.5" in lines
    assert "  dB[0,0] = Σₖ A[k,0]·dOut[k,0] = 1·1 + 3·1 = 4" in lines
    lines = explain_lines(explain_step(record, 0, 1, element=3))
    assert "  dA[1,1] = Σₖ dOut[1,k]·B[1,k] = 1·1 + 1·0 + 1·(-2) = -1" in lines
    assert "  dB[1,0] = Σₖ A[k,1]·dOut[k,0] = 2·1 + 4·1 = 6" in lines


def test_linear_works_one_weight_and_bias_grad_element_out():
    def run():
        x = gs.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        w = gs.tensor([[0.5, -0.5]], requires_grad=True)
        b = gs.tensor([0.25], requires_grad=True)
        gs.nn.functional.linear(x, w, b).sum().backward()

    _, record, _ = recorded(run)
    lines = explain_lines(explain_step(record, 0, 1, element=1))
    assert "  dW[0,1] = Σₙ dOut[n,0]·x[n,1] = 1·2 + 1·4 + 1·6 = 12" in lines
    assert "  db[0] = Σₙ dOut[n,0] = 1·1 + 1·1 + 1·1 = 3" in lines


def test_a_step_whose_node_is_gone_says_so():
    record = Record(passes=[BackwardPass(0, root=7, order=(7,), steps=[Step(7)])])
    e = explain_step(record, 0, 0)
    assert (e.node, e.terms, e.notes) == (7, [], ["node 7 is no longer in the record"])


def test_a_step_out_of_range_is_refused_with_the_count():
    def run():
        (gs.tensor([1.0], requires_grad=True) * 2).sum().backward()

    _, record, _ = recorded(run)
    with pytest.raises(IndexError, match="pass 0 has 2 recorded steps; step 5 is out of range"):
        explain_step(record, 0, 5)


# --- every op of the conformance tables, against torch ---------------------------------------------


def _sum_to(a, shape):
    """`a` summed down to a broadcast input's `shape`."""
    a = a.sum(axis=tuple(range(a.ndim - len(shape)))) if a.ndim > len(shape) else a
    axes = tuple(d for d, n in enumerate(shape) if n == 1 and a.shape[d] != 1)
    return a.sum(axis=axes, keepdims=True) if axes else a


def _leaf_grads_explained(recorder, record, leaves):
    """For each leaf, the sum of the grad_in the explanations show for it (None if none does), after
    checking every elementwise step's local factor × grad_out against its grad_in."""
    ids = {recorder.node_id(t): k for k, t in enumerate(leaves)}
    shown = [None] * len(leaves)
    p = record.passes[0]
    for i in range(len(p.steps)):
        e = explain_step(record, 0, i)
        for term in e.terms:
            if term.local is not None:
                np.testing.assert_allclose(
                    _sum_to(term.grad_out * term.local, term.grad_in.shape),
                    term.grad_in,
                    rtol=1e-10,
                    atol=1e-12,
                    err_msg=f"local × grad_out at {e.op}",
                )
            k = ids.get(term.input)
            if k is not None and term.grad_in is not None:
                shown[k] = term.grad_in if shown[k] is None else shown[k] + term.grad_in
    return shown


def _against_torch(recorder, record, gs_leaves, torch_leaves, torch_out, cotangent):
    wanted = [t for t in torch_leaves if t.requires_grad]
    expected = torch.autograd.grad(torch_out, wanted, torch.tensor(cotangent), allow_unused=True)
    shown = _leaf_grads_explained(recorder, record, [g for g, t in zip(gs_leaves, torch_leaves) if t.requires_grad])
    for k, (got, want) in enumerate(zip(shown, expected)):
        if want is None:
            assert got is None, f"leaf {k}"
        else:
            assert got is not None, f"leaf {k}: no step shows its grad"
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-9, atol=1e-12, err_msg=f"leaf {k}")


@pytest.mark.parametrize("name, fn, specs, bounds", CASES, ids=[c[0] for c in CASES])
def test_explained_grads_equal_torch_for_every_conformance_op(name, fn, specs, bounds):
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(*bounds, size=s) for s in specs]
    gs_in = [gs.tensor(a.copy(), requires_grad=True) for a in arrays]
    torch_in = [torch.tensor(a.copy(), requires_grad=True) for a in arrays]
    torch_out = fn(*torch_in)
    cotangent = rng.standard_normal(tuple(torch_out.shape))
    recorder, record, _ = recorded(lambda: fn(*gs_in).backward(gs.tensor(cotangent)))
    _against_torch(recorder, record, gs_in, torch_in, torch_out, cotangent)


@pytest.mark.parametrize("name, make, arrays", MODULE_CASES, ids=[c[0] for c in MODULE_CASES])
def test_explained_grads_equal_torch_for_every_conformance_module(name, make, arrays):
    torch_module, gs_module = make(torch.nn).double(), make(gs.nn)
    gs_module.load_state_dict({k: v.detach().numpy() for k, v in torch_module.state_dict().items()})
    gs_module.to(gs.float64)
    needs = [a.dtype.kind == "f" and k == 0 for k, a in enumerate(arrays)]
    gs_in = [gs.tensor(a.copy(), requires_grad=n) for a, n in zip(arrays, needs)]
    torch_in = [torch.tensor(a.copy(), requires_grad=n) for a, n in zip(arrays, needs)]
    torch_out = torch_module(*torch_in)
    cotangent = np.random.default_rng(2).standard_normal(tuple(torch_out.shape))
    recorder, record, _ = recorded(lambda: gs_module(*gs_in).backward(gs.tensor(cotangent)))
    gs_leaves = gs_in + [p for _, p in gs_module.named_parameters()]
    torch_leaves = torch_in + [p for _, p in torch_module.named_parameters()]
    _against_torch(recorder, record, gs_leaves, torch_leaves, torch_out, cotangent)


def test_a_local_factor_that_is_already_its_numbers_is_said_once():
    def run():
        x = gs.tensor([5.0, 6.0, 7.0, 8.0], requires_grad=True)
        w = gs.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        (x * w).sum().backward()

    _, record, _ = recorded(run)
    lines = explain_lines(explain_step(record, 0, 1))
    assert "  local  d out/d x = [1, 2, 3, 4]" in lines
    assert "  local  d out/d w = [5, 6, 7, 8]" in lines


def test_mse_loss_writes_out_its_local_factor_with_the_step_s_numbers():
    def run():
        pred = gs.tensor([[0.5, 1.5], [2.0, -1.0]], requires_grad=True)
        gs.nn.functional.mse_loss(pred, gs.tensor([[1.0, 1.0], [1.5, 0.0]])).backward()

    _, record, _ = recorded(run)
    lines = explain_lines(explain_step(record, 0, 0))
    assert (
        "  local  d out/d pred = 2·([[0.5, 1.5], [2, -1]] − [[1, 1], [1.5, 0]])/4 = [[-0.25, 0.25], [0.25, -0.5]]"
        in lines
    )
    assert "  grad_in = 1 × 2·([[0.5, 1.5], [2, -1]] − [[1, 1], [1.5, 0]])/4 = [[-0.25, 0.25], [0.25, -0.5]]" in lines


def test_cross_entropy_writes_out_softmax_minus_onehot_with_the_step_s_numbers():
    def run():
        logits = gs.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
        gs.nn.functional.cross_entropy(logits, gs.tensor([1, 2]), reduction="sum").backward()

    _, record, _ = recorded(run)
    lines = explain_lines(explain_step(record, 0, 0))
    assert (
        "  local  d out/d logits = [[0.231224, 0.628532, 0.140244], [0.0466126, 0.0171478, 0.93624]] − "
        "[[0, 1, 0], [0, 0, 1]] = [[0.231224, -0.371468, 0.140244], [0.0466126, 0.0171478, -0.0637604]]"
    ) in lines


def test_a_weighted_cross_entropy_shows_its_local_factor_s_numbers_alone():
    def run():
        logits = gs.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
        gs.nn.functional.cross_entropy(logits, gs.tensor([1, 2]), weight=gs.tensor([1.0, 2.0, 3.0])).backward()

    _, record, _ = recorded(run)
    lines = explain_lines(explain_step(record, 0, 0))
    assert not any("softmax" in line or "onehot" in line for line in lines[2:])
    assert any(line.startswith("  local  d out/d logits = [[") for line in lines)


def test_the_first_step_says_where_its_grad_out_came_from():
    def run():
        a = gs.tensor([2.0, 3.0], requires_grad=True)
        (3 * a).backward(gradient=gs.tensor([1.0, 1.0]))
        (a * a).sum().backward()

    _, record, _ = recorded(run)
    assert "grad_out = [1, 1]  (the gradient passed to backward())" in explain_lines(explain_step(record, 0, 0))
    assert "grad_out = 1  (1 is the implicit seed of backward() on a scalar)" in explain_lines(
        explain_step(record, 1, 0)
    )
    assert not any("seed" in line or "passed to" in line for line in explain_lines(explain_step(record, 1, 1)))


def test_a_per_row_cross_entropy_shows_no_product_its_grad_out_cannot_multiply():
    def run():
        logits = gs.tensor([[1.0, 2.0], [0.0, -1.0]], requires_grad=True)
        gs.nn.functional.cross_entropy(logits, gs.tensor([1, 0]), reduction="none").backward(gs.tensor([1.0, 3.0]))

    _, record, _ = recorded(run)
    lines = explain_lines(explain_step(record, 0, 0))
    assert not any(" × " in line for line in lines), lines
