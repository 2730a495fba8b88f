"""floor, ceil, round (with decimals), // and % agree with PyTorch, negatives and zeros included."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.torch_reference import check

HALVES = np.array([-3.5, -2.5, -1.7, -0.5, 0.0, 0.5, 1.5, 2.5, 2.2, 7.9])


@pytest.mark.parametrize("op", ["floor", "ceil", "round"])
def test_rounding_method_and_function(op):
    check(lambda x: getattr(x, op)(), [HALVES])
    check(lambda x: getattr(gs, op)(x), [(3, 4)], lambda x: getattr(torch, op)(x), low=-5, high=5)


@pytest.mark.parametrize("decimals", [1, 2, -1, -2])
def test_round_with_decimals(decimals):
    values = np.array([1.234, -5.678, 1234.5, -15.0, 0.05, 99.99])
    check(lambda x: x.round(decimals=decimals), [values])
    check(lambda x: gs.round(x, decimals=decimals), [values], lambda x: torch.round(x, decimals=decimals))


@pytest.mark.parametrize("op", ["floor", "ceil", "round"])
def test_rounding_keeps_integer_tensors(op):
    check(lambda x: getattr(x, op)(), [np.array([-3, 0, 5])], forward_only=True)


SIGNS = [np.array([-7.0, 7.0, -7.5, 7.5, 3.0, -3.0, 0.0]), np.array([2.0, -2.0, 3.0, -3.0, -3.0, 3.0, 4.0])]


@pytest.mark.parametrize("op", ["floordiv", "mod"])
def test_floor_semantics_for_float_tensors(op):
    fn = getattr(__import__("operator"), op)
    check(fn, SIGNS, requires_grad=[False, False])


@pytest.mark.parametrize("op", ["floordiv", "mod"])
def test_floor_semantics_for_int_tensors(op):
    fn = getattr(__import__("operator"), op)
    check(fn, [SIGNS[0][[0, 1, 4, 5, 6]].astype(np.int64), SIGNS[1][[0, 1, 2, 3, 4]].astype(np.int64)])


@pytest.mark.parametrize("scalar", [2, -2, 2.5, -0.5])
def test_floor_division_and_remainder_with_python_scalars(scalar):
    for fn in (lambda x: x // scalar, lambda x: x % scalar, lambda x: scalar // x, lambda x: scalar % x):
        check(fn, [SIGNS[1]], requires_grad=[False])
        check(fn, [SIGNS[1].astype(np.int64)])


def test_functions_floor_divide_and_remainder():
    check(
        lambda a, b: gs.floor_divide(a, b), SIGNS, lambda a, b: torch.floor_divide(a, b), requires_grad=[False, False]
    )
    check(lambda a, b: gs.remainder(a, b), SIGNS, lambda a, b: torch.remainder(a, b))


def test_remainder_backward_to_both_operands():
    check(lambda a, b: a % b, [(3, 4), np.array([0.7, -1.3, 1.9, -0.4])], low=-3, high=3)


def test_float_division_by_zero_gives_inf_and_nan():
    check(lambda a, b: a // b, [np.array([5.0, -5.0]), np.array([0.0, 0.0])], forward_only=True)
    check(lambda a, b: a % b, [np.array([5.0, -5.0]), np.array([0.0, 0.0])], forward_only=True)


def test_floor_divide_backward_says_torch_has_no_derivative():
    x = gs.tensor([1.5, 2.5], requires_grad=True)
    out = x // 2
    assert out.requires_grad
    with pytest.raises(RuntimeError, match="derivative for floor_divide is not implemented"):
        out.sum().backward()


@pytest.mark.parametrize("op", ["floordiv", "mod"])
def test_integer_division_by_zero_raises(op):
    fn = getattr(__import__("operator"), op)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(gs.tensor([5, 3]), gs.tensor([1, 0]))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(gs.tensor([5]), 0)


def test_bool_floor_division_is_refused():
    with pytest.raises(RuntimeError, match="not implemented for bool tensors"):
        gs.tensor([True]) // gs.tensor([True])


def test_round_with_decimals_refuses_integers():
    with pytest.raises(NotImplementedError, match="round_with_decimals"):
        gs.tensor([1, 2]).round(decimals=1)
