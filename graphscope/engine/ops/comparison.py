"""Comparisons and logical ops: bool results that carry no gradient."""

from __future__ import annotations

from ..tensor import Tensor, wrap
from .operands import binary_operands, broadcast_error


def _compare(op, a, b, compute):
    a, b = binary_operands(op, a, b)
    x = a.array if isinstance(a, Tensor) else a
    y = b.array if isinstance(b, Tensor) else b
    try:
        return wrap(compute(x, y))
    except ValueError:
        raise broadcast_error(op, a, b) or ValueError(f"{op}: cannot compare these operands") from None


def eq(input, other):
    return _compare("eq", input, other, lambda x, y: x == y)


def ne(input, other):
    return _compare("ne", input, other, lambda x, y: x != y)


def lt(input, other):
    return _compare("lt", input, other, lambda x, y: x < y)


def le(input, other):
    return _compare("le", input, other, lambda x, y: x <= y)


def gt(input, other):
    return _compare("gt", input, other, lambda x, y: x > y)


def ge(input, other):
    return _compare("ge", input, other, lambda x, y: x >= y)


def logical_and(input, other):
    return _compare("logical_and", input, other, lambda x, y: (x != 0) & (y != 0))


def logical_or(input, other):
    return _compare("logical_or", input, other, lambda x, y: (x != 0) | (y != 0))


def logical_not(input):
    return wrap(input.array == 0)


def isnan(input):
    return wrap(input.array != input.array)


def isfinite(input):
    from ..backend import namespace

    return wrap(namespace(input.array).isfinite(input.array))


def equal(input, other) -> bool:
    """True when both tensors have the same shape and values."""
    return input.shape == other.shape and bool((input.array == other.array).all())


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    from ..backend import namespace

    return bool(namespace(input.array).allclose(input.array, other.array, rtol=rtol, atol=atol, equal_nan=equal_nan))
