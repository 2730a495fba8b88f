"""Every printed formula of a backward step reads as the arithmetic it is: parsed back, its expression gives its
printed result to the printed precision (for every op of the conformance tables, which covers every op with a rule)."""

import re

import numpy as np
import pytest

import graphscope as gs
from graphscope.trace.explain.step import explain_lines, explain_step
from tests.engine.op_tables import UNARY
from tests.trace.explain_cases import CASES, MODULE_CASES
from tests.trace.printed_arithmetic import value_of
from tests.trace.trace_helpers import recorded


def _equations(lines: list[str]) -> list[tuple[str, str, str]]:
    """(line, expression, printed result) of each line that shows a computation with its numbers."""
    found = []
    for line in lines:
        text = line.strip().split("  (this element's share")[0]
        if "…" in text or "more)" in text:
            continue
        local = text.startswith("local  d out/d ") and text.count(" = ") == 2
        if local or (text.startswith("grad_in = ") and " × " in text):
            found.append((line, *text.split(" = ")[1:]))
        elif "Σ" in text and re.match(r"  \S", line):  # one element's sum of products (not the rule's Σ)
            found.append((line, *text.split(" = ")[-2:]))
    return found


def _printed_numbers(text: str) -> list[float]:
    return [abs(float(n)) for n in re.findall(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]


def _check(record):
    checked = 0
    for p, bp in enumerate(record.passes):
        for i in range(len(bp.steps)):
            for element in (None, 1):
                for line, expression, result in _equations(explain_lines(explain_step(record, p, i, element))):
                    scale = max(_printed_numbers(expression) + [1.0])
                    computed, printed = np.broadcast_arrays(
                        value_of(expression), value_of(result)
                    )  # as NumPy broadcasts
                    np.testing.assert_allclose(computed, printed, rtol=1e-4, atol=1e-5 * scale, err_msg=line)
                    checked += 1
    return checked


def _cotangent(rng, out):
    return gs.tensor(rng.standard_normal(tuple(out.shape)))


@pytest.mark.parametrize("name, fn, specs, bounds", CASES, ids=[c[0] for c in CASES])
def test_every_op_s_printed_formula_computes_its_printed_result(name, fn, specs, bounds):
    rng = np.random.default_rng(0)
    tensors = [gs.tensor(rng.uniform(*bounds, size=s), requires_grad=True) for s in specs]

    def run():
        out = fn(*tensors)
        out.backward(_cotangent(rng, out))

    _check(recorded(run)[1])


@pytest.mark.parametrize("name, make, arrays", MODULE_CASES, ids=[c[0] for c in MODULE_CASES])
def test_every_module_s_printed_formula_computes_its_printed_result(name, make, arrays):
    module = make(gs.nn).to(gs.float64)
    tensors = [gs.tensor(a.copy(), requires_grad=a.dtype.kind == "f" and k == 0) for k, a in enumerate(arrays)]
    _check(recorded(lambda: module(*tensors).sum().backward())[1])


@pytest.mark.parametrize("shape", [(), (3,)], ids=["scalar", "whole"])
@pytest.mark.parametrize("op", UNARY)
def test_a_unary_formula_with_negative_or_whole_values_computes_its_printed_result(op, shape):
    rng = np.random.default_rng(3)
    x = gs.tensor(rng.uniform(*UNARY[op], size=shape), requires_grad=True)

    def run():
        out = getattr(x, op)()
        out.backward(_cotangent(rng, out))

    assert _check(recorded(run)[1]) > 0


def test_tanh_s_step_parenthesizes_the_negative_value_and_the_compound_factor():
    x = gs.tensor([-0.2145] * 9, requires_grad=True)
    _, record, _ = recorded(lambda: x.tanh().backward(gs.full((9,), -0.121722)))
    lines = explain_lines(explain_step(record, 0, 0))
    assert "  local  d out/d x = 1 − (-0.21127)² = 0.955365" in lines
    assert "  grad_in = -0.121722 × (1 − (-0.21127)²) = -0.116289" in lines


# Ops with a rule that the conformance tables do not reach.
MORE = {
    "dropout": (lambda x: gs.nn.functional.dropout(x, 0.5, training=True), [(3, 4)]),
    "max": (lambda x: x.max(), [(3, 4)]),
    "min": (lambda x: x.min(), [(3, 4)]),
    "normal": (lambda m, s: gs.normal(m, s.abs()), [(3, 4), (3, 4)]),
    "bernoulli": (lambda p: gs.bernoulli(p.sigmoid()), [(3, 4)]),
    "poisson": (lambda r: gs.poisson(r.abs()), [(3, 4)]),
    "bilinear": (lambda x: gs.nn.functional.interpolate(x, scale_factor=2, mode="bilinear"), [(1, 1, 2, 3)]),
}


@pytest.mark.parametrize("name", MORE)
def test_the_other_ops_printed_formulas_compute_their_printed_results(name):
    fn, specs = MORE[name]
    gs.manual_seed(0)
    rng = np.random.default_rng(0)
    tensors = [gs.tensor(rng.uniform(0.5, 2.0, size=s), requires_grad=True) for s in specs]
    _check(recorded(lambda: (fn(*tensors) * 1.5).sum().backward())[1])
