"""Comparisons, logical and bitwise ops: results that carry no gradient."""

from __future__ import annotations

from .. import backend, dtypes
from ..backend import namespace
from ..tensor import Tensor, wrap
from .operands import binary_operands, broadcast_error
from .tensor_methods import method, method_only


def _compare(op, a, b, compute):
    a, b = binary_operands(op, a, b)
    x = a.array if isinstance(a, Tensor) else a
    y = b.array if isinstance(b, Tensor) else b
    try:
        return wrap(compute(x, y))
    except ValueError:
        raise broadcast_error(op, a, b) or RuntimeError(f"{op}: cannot compare these operands") from None


@method("eq")
def eq(input, other):
    return _compare("eq", input, other, lambda x, y: x == y)


@method("ne")
def ne(input, other):
    return _compare("ne", input, other, lambda x, y: x != y)


@method_only("__eq__")
def eq_operator(self, other):
    """x == y is eq(x, y), and False for y None (as torch)."""
    return False if other is None else eq(self, other)


@method_only("__ne__")
def ne_operator(self, other):
    """x != y is ne(x, y), and True for y None (as torch)."""
    return True if other is None else ne(self, other)


@method("lt", "__lt__")
def lt(input, other):
    return _compare("lt", input, other, lambda x, y: x < y)


@method("le", "__le__")
def le(input, other):
    return _compare("le", input, other, lambda x, y: x <= y)


@method("gt", "__gt__")
def gt(input, other):
    return _compare("gt", input, other, lambda x, y: x > y)


@method("ge", "__ge__")
def ge(input, other):
    return _compare("ge", input, other, lambda x, y: x >= y)


def logical_and(input, other):
    return _compare("logical_and", input, other, lambda x, y: (x != 0) & (y != 0))


def logical_or(input, other):
    return _compare("logical_or", input, other, lambda x, y: (x != 0) | (y != 0))


def logical_not(input):
    return wrap(input.array == 0)


def _bitwise(op, a, b, compute):
    """`compute` on two bool or integer operands, promoted as torch does (bool & int is an int);
    torch has no bitwise op on floats."""
    for value in (a, b):
        if (isinstance(value, Tensor) and backend.is_floating(value.array)) or isinstance(value, float):
            raise NotImplementedError(
                f"{op} is not implemented for floating point operands; compare first (x > 0) or convert with .int()"
            )
    return _compare(op, a, b, compute)


@method_only("__and__")
def and_operator(input, other):
    """x & y: logical and of bool tensors, bitwise and of integers (as torch)."""
    return _bitwise("bitwise_and", input, other, lambda x, y: x & y)


@method_only("__or__")
def or_operator(input, other):
    """x | y: logical or of bool tensors, bitwise or of integers (as torch)."""
    return _bitwise("bitwise_or", input, other, lambda x, y: x | y)


@method("bitwise_xor", "__xor__")
def bitwise_xor(input, other):
    """x ^ y: logical xor of bool tensors, bitwise xor of integers (as torch)."""
    return _bitwise("bitwise_xor", input, other, lambda x, y: x ^ y)


@method_only("__invert__")
def invert_operator(input):
    """~x: logical not of a bool tensor, bitwise not of integers (as torch)."""
    if backend.is_floating(input.array):
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return wrap(~input.array)


@method("isnan")
def isnan(input):
    return wrap(input.array != input.array)


@method("isfinite")
def isfinite(input):
    return wrap(namespace(input.array).isfinite(input.array))


def equal(input, other) -> bool:
    """True when both tensors have the same shape and values."""
    if input.shape != other.shape:
        return False
    a, b = binary_operands("equal", input, other)
    return bool(namespace(a.array).all(a.array == b.array))


@method("allclose")
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """|input - other| <= atol + rtol * |other| everywhere (infinities must match exactly)."""
    if input.dtype is not other.dtype:
        raise RuntimeError(
            f"{input.dtype.name} did not match {other.dtype.name}: allclose compares tensors of "
            "one dtype; convert one with .to(other.dtype)"
        )
    error = broadcast_error("allclose", input, other)
    if error is not None:
        raise RuntimeError(str(error))
    a, b = binary_operands("allclose", input, other)
    x, y = a.array, b.array
    if not backend.is_floating(x):
        float64 = backend.native_dtype(dtypes.float64, x)
        x, y = backend.astype(x, float64), backend.astype(y, float64)
    xp = namespace(x)
    close = (x == y) | (xp.abs(x - y) <= atol + rtol * xp.abs(y))
    if equal_nan:
        close = close | (xp.isnan(x) & xp.isnan(y))
    return bool(xp.all(close))
