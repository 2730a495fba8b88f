"""Elementwise unary ops, clamp, maximum, minimum and where agree with PyTorch."""

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope.engine.ops.unary import ELEMENTWISE
from tests.engine.op_tables import UNARY
from tests.engine.torch_reference import check


def test_every_registered_elementwise_op_has_a_row_here():
    assert sorted(UNARY) == sorted(ELEMENTWISE)


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("shape", [(3, 4), (5,), ()], ids=str)
def test_unary_method(op, shape):
    low, high = UNARY[op]
    check(lambda x: getattr(x, op)(), [shape], low=low, high=high)


@pytest.mark.parametrize("op", UNARY)
def test_unary_function(op):
    low, high = UNARY[op]
    check(lambda x: getattr(gs, op)(x), [(2, 3)], lambda x: getattr(torch, op)(x), low=low, high=high)


EDGES = np.array([-3.0, -1.0, -0.5, 0.0, 0.0, 0.5, 2.0])


@pytest.mark.parametrize("op", ["abs", "sign", "relu", "exp", "sin", "cos", "tanh", "sigmoid"])
def test_unary_at_negative_values_and_zero(op):
    check(lambda x: getattr(x, op)(), [EDGES])


@pytest.mark.parametrize("op", ["sigmoid", "tanh", "relu", "abs", "sign"])
def test_unary_at_huge_magnitudes_has_no_nan(op):
    check(lambda x: getattr(x, op)(), [np.array([-1000.0, -100.0, -30.0, 30.0, 100.0, 1000.0])])


@pytest.mark.parametrize("op", ["log", "sqrt", "rsqrt", "log1p", "log10"])
def test_unary_at_boundary_of_domain_matches_torch_forward(op):
    # log(0) = -inf, sqrt(0) = 0, rsqrt(0) = inf, log1p(-1) = -inf: same infinities as torch.
    check(lambda x: getattr(x, op)(), [np.array([0.0, 1.0, 4.0]) - (op == "log1p")], forward_only=True)


@pytest.mark.parametrize(
    "bounds", [dict(min=-0.5, max=0.5), dict(min=-0.5), dict(max=0.25), dict(min=0.0, max=1.0)], ids=str
)
def test_clamp(bounds):
    check(lambda x: x.clamp(**bounds), [(4, 5)])


def test_clamp_positional_and_function():
    check(
        lambda x: x.clamp(-0.5, 0.5) + gs.clamp(x, -1.0, 1.0),
        [(4, 5)],
        lambda x: x.clamp(-0.5, 0.5) + torch.clamp(x, -1.0, 1.0),
    )


def test_clamp_passes_grad_at_the_bounds():
    check(lambda x: x.clamp(-1.0, 0.5), [np.array([-2.0, -1.0, 0.0, 0.5, 0.5, 1.0])])


@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3))], ids=str)
def test_maximum_minimum(op, shapes):
    check(lambda a, b: getattr(gs, op)(a, b), list(shapes), lambda a, b: getattr(torch, op)(a, b))


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_maximum_minimum_split_grad_on_ties(op):
    a = np.array([1.0, 2.0, 3.0, -1.0, 0.0])
    b = np.array([1.0, 0.0, 3.0, -2.0, 0.0])
    check(lambda x, y: getattr(x, op)(y), [a, b])


NAN = np.nan
INF = np.inf
NAN_PAIRS = [np.array([1.0, NAN, NAN, 2.0, 2.0, 0.0]), np.array([NAN, 1.0, NAN, 2.0, 3.0, -1.0])]


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_maximum_minimum_send_the_whole_grad_to_both_inputs_where_one_is_nan(op):
    check(lambda x, y: getattr(x, op)(y), NAN_PAIRS)


@pytest.mark.parametrize("bounds", [dict(min=0.0, max=2.0), dict(min=0.0), dict(max=2.0), dict(min=NAN)], ids=str)
def test_clamp_of_nan_is_nan_with_no_grad(bounds):
    check(lambda x: x.clamp(**bounds), [np.array([NAN, -1.0, 3.0, 1.0, 0.0, 2.0])])


@pytest.mark.parametrize("bounds", ["min", "max", "both"])
def test_clamp_with_tensor_bounds(bounds):
    # Not maximum/minimum: the bound gets the grad only where it is strictly crossed, ties go to x.
    x = np.array([[NAN, -1.0, 3.0, 1.0, 0.0, 2.0], [0.5, 0.5, -2.0, 4.0, 1.0, NAN]])
    low, high = np.array([0.0, NAN, 0.0, 0.0, 0.0, 0.0]), np.array([[2.0], [1.0]])
    if bounds == "min":
        check(lambda x, lo: x.clamp(min=lo), [x, low])
    elif bounds == "max":
        check(lambda x, hi: x.clamp(max=hi), [x, high])
    else:
        check(lambda x, lo, hi: x.clamp(lo, hi), [x, low, high])
        check(lambda x, lo, hi: x.clamp(lo, hi), [x, np.array([0.0, 0.0, 3.0, 0.0, 0.0, 0.0]), high])


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((3, 1), (), (4,))], ids=str)
def test_where(shapes):
    rng = np.random.default_rng(1)
    mask = rng.random(shapes[0]) > 0.5
    check(lambda c, a, b: gs.where(c, a, b), [mask, shapes[1], shapes[2]], lambda c, a, b: torch.where(c, a, b))


def test_where_with_condition_from_comparison():
    check(lambda a, b: gs.where(a > b, a * 2, b), [(3, 4), (3, 4)], lambda a, b: torch.where(a > b, a * 2, b))


def test_where_with_python_scalar_branch():
    check(lambda a: gs.where(a > 0, a, 0.0), [(3, 4)], lambda a: torch.where(a > 0, a, 0.0))


MASKED_OUT = {  # ops whose grad is the incoming one where a mask holds, else 0 (torch's where)
    "relu": lambda x: x.relu(),
    "clamp": lambda x: x.clamp(-0.5, 0.5),
    "clamp with tensor bounds": lambda x: x.clamp(x.detach() * 0 - 0.5, x.detach() * 0 + 0.5),
    "masked_fill": lambda x: x.masked_fill(x > 0.3, 1.0),
}


@pytest.mark.parametrize("op", MASKED_OUT)
def test_masking_ops_send_zero_where_an_infinite_grad_is_masked_out(op):
    # An inf reaching a masked-out element gives 0 there (not 0 * inf = NaN), and stays inf inside.
    infinite = np.array([INF, -INF, INF, NAN, INF, -INF])
    check(
        lambda x, s: MASKED_OUT[op](x) * s,
        [np.array([-1.0, 2.0, 0.25, -0.75, 0.4, -0.1]), infinite],
        requires_grad=[True, False],
    )


def test_max_pool_sends_zero_where_an_infinite_grad_is_masked_out():
    infinite = np.full((1, 1, 2, 2), INF)
    check(
        lambda x, s: gs.nn.functional.max_pool2d(x, 2) * s,
        [(1, 1, 4, 4), infinite],
        lambda x, s: torch.nn.functional.max_pool2d(x, 2) * s,
        requires_grad=[True, False],
    )


@pytest.mark.parametrize("values", [np.array([1, 10, 1000, 7]), np.array([True, False])], ids=["int64", "bool"])
def test_log10_of_integers_and_bools_is_in_the_default_float_as_torch(values):
    check(lambda x: x.log10(), [values], lambda x: torch.log10(x), forward_only=True)
    check(lambda x: gs.log10(x), [values], lambda x: torch.log10(x), forward_only=True)
