"""Arithmetic and matmul agree with PyTorch in value, dtype, shape and grads."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.op_tables import BINARY, BROADCAST_PAIRS, MATMUL_SHAPES, SCALAR_OPS
from tests.engine.torch_reference import check


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
def test_binary_operator_broadcasts_like_torch(op, shapes):
    # Positive operands keep division away from zero; sign handling is covered below.
    check(BINARY[op], list(shapes), low=0.5, high=2.0)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_function_matches_torch(op):
    check(lambda a, b: getattr(gs, op)(a, b), [(2, 3), (3,)], lambda a, b: getattr(torch, op)(a, b), low=0.5)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_method_matches_torch(op):
    check(lambda a, b: getattr(a, op)(b), [(2, 3), (2, 1)], low=0.5)


def test_binary_operators_with_negative_operands():
    values = np.array([[-2.0, -0.5, 1.5], [3.0, -1.25, 0.75]])
    check(lambda a, b: (a - b) * a / b + b, [values, values[::-1].copy()])


@pytest.mark.parametrize("op", SCALAR_OPS)
@pytest.mark.parametrize("shape", [(3, 4), ()], ids=str)
def test_python_scalar_on_either_side_keeps_tensor_dtype(op, shape):
    check(SCALAR_OPS[op], [shape], low=0.5, high=2.0)


def test_neg_function_matches_torch():
    check(lambda a: gs.neg(a), [(2, 3)], lambda a: torch.neg(a))


@pytest.mark.parametrize("exponent", [2, 3, 2.0])
def test_integer_power_of_negative_and_zero_bases(exponent):
    check(lambda a: a**exponent, [np.array([-2.0, -0.5, 0.0, 0.5, 1.5])])


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((), (2, 2)), ((2, 1), ())], ids=str)
def test_pow_with_tensor_exponent(shapes):
    check(lambda a, b: a**b, list(shapes), low=0.5, high=2.0)


def test_pow_function_and_method_with_tensor_exponent():
    check(
        lambda a, b: gs.pow(a, b) + a.pow(b) + a.pow(2),
        [(3,), (3,)],
        lambda a, b: torch.pow(a, b) + a.pow(b) + a.pow(2),
        low=0.5,
    )


def test_pow_with_exponent_only_requiring_grad():
    check(lambda a, b: a**b, [(3,), (3,)], requires_grad=[False, True], low=0.5)


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_operator(shapes):
    check(lambda a, b: a @ b, list(shapes))


def test_matmul_function_and_method():
    check(lambda a, b: gs.matmul(a, b) + a.matmul(b), [(3, 4), (4, 2)], lambda a, b: torch.matmul(a, b) + a.matmul(b))


def test_matmul_with_one_operand_requiring_grad():
    check(lambda a, b: a @ b, [(2, 3, 4), (4, 2)], requires_grad=[False, True])


@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((4,), (4,)), ((3, 4), (4,)), ((2, 3, 4), (4, 2))], ids=str)
@pytest.mark.parametrize(
    "dtypes", [("float32", "int64"), ("int64", "float32"), ("float32", "float64"), ("int64", "int32")], ids=str
)
def test_matmul_of_two_dtypes_is_refused_as_in_torch(shapes, dtypes):
    for lib in (torch, gs):
        a, b = (lib.ones(shape, dtype=getattr(lib, d)) for shape, d in zip(shapes, dtypes))
        with pytest.raises(RuntimeError, match="same dtype"):
            a @ b
        with pytest.raises(RuntimeError, match="same dtype"):
            lib.matmul(a, b)


def test_integer_tensor_arithmetic_stays_integer():
    a, b = np.array([[1, -2, 3]], dtype=np.int64), np.array([[4], [5]], dtype=np.int64)
    check(lambda x, y: (x + y) * y - x + 2 * x, [a, b])


def test_integer_true_division_gives_default_float():
    a, b = np.array([1, -7, 9], dtype=np.int64), np.array([2, 2, 4], dtype=np.int64)
    check(lambda x, y: x / y, [a, b])


def test_integer_tensor_with_python_float_gives_default_float():
    check(lambda x: x * 2.5 + 0.5, [np.array([1, 2, 3], dtype=np.int64)])


def test_float32_with_float64_promotes_and_grads_keep_each_dtype():
    a = gs.tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    b = gs.tensor(np.array([3.0, 4.0], dtype=np.float64), requires_grad=True)
    out = a * b
    assert out.dtype == gs.float64
    out.sum().backward()
    assert a.grad.dtype == gs.float32 and b.grad.dtype == gs.float64
    np.testing.assert_allclose(a.grad.cpu().numpy(), [3.0, 4.0])
    np.testing.assert_allclose(b.grad.cpu().numpy(), [1.0, 2.0])


def test_float_tensor_with_integer_tensor_keeps_float():
    check(lambda x, i: x * i + i, [(2, 3), np.array([1, -2, 3], dtype=np.int64)])
