"""Tensor dtypes with PyTorch's names, and PyTorch's type-promotion rules on top of NumPy dtypes."""

from __future__ import annotations

import numpy as np

from . import library_name


class dtype:
    """A tensor element type (`graphscope.float32`), wrapping a NumPy dtype."""

    __slots__ = ("name", "numpy", "is_floating_point", "itemsize", "_kind")
    name: str
    numpy: np.dtype
    is_floating_point: bool
    itemsize: int
    _kind: int

    def __init__(self, name: str, numpy_dtype, kind: int):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = kind == _FLOAT
        self.itemsize = self.numpy.itemsize
        self._kind = kind

    def __repr__(self):
        return f"{library_name.library()}.{self.name}"

    def __reduce__(self):
        return (from_numpy, (self.numpy,))


_BOOL, _INT, _FLOAT = 0, 1, 2

float16 = dtype("float16", np.float16, _FLOAT)
float32 = dtype("float32", np.float32, _FLOAT)
float64 = dtype("float64", np.float64, _FLOAT)
int8 = dtype("int8", np.int8, _INT)
uint8 = dtype("uint8", np.uint8, _INT)
int16 = dtype("int16", np.int16, _INT)
int32 = dtype("int32", np.int32, _INT)
int64 = dtype("int64", np.int64, _INT)
bool_ = dtype("bool", np.bool_, _BOOL)

# NumPy dtype -> graphscope dtype, for every dtype the engine has.
BY_NUMPY = {d.numpy: d for d in (float16, float32, float64, int8, uint8, int16, int32, int64, bool_)}
_default_float = float32


def from_numpy(numpy_dtype) -> dtype:
    """The graphscope dtype of a NumPy dtype, or a clear error for unsupported ones."""
    try:
        return BY_NUMPY[numpy_dtype]
    except KeyError:
        pass
    try:
        return BY_NUMPY[np.dtype(numpy_dtype)]
    except (KeyError, TypeError):
        raise TypeError(
            f"unsupported dtype {numpy_dtype!r}: graphscope supports " + ", ".join(d.name for d in BY_NUMPY.values())
        ) from None


def from_any(d) -> dtype:
    """The graphscope dtype for a graphscope dtype, a NumPy dtype or a Python type (float, int, bool)."""
    if isinstance(d, dtype):
        return d
    if d is float:
        return _default_float
    if d is int:
        return int64
    if d is bool:
        return bool_
    return from_numpy(d)


def to_numpy(d) -> np.dtype:
    """The NumPy dtype for a graphscope dtype, a NumPy dtype or a Python type (float, int, bool)."""
    return from_any(d).numpy


def get_default_dtype() -> dtype:
    return _default_float


def set_default_dtype(d) -> None:
    """Set the dtype that Python floats become (float32 or float64), as torch.set_default_dtype."""
    global _default_float
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"set_default_dtype only supports floating point dtypes, got {d!r}")
    _default_float = d


def default_float_numpy() -> np.dtype:
    return _default_float.numpy


# PyTorch's type promotion, on graphscope dtypes (device arrays' own dtypes never meet here).


def promote(da: dtype, a_ndim: int, db: dtype, b_ndim: int) -> dtype:
    """PyTorch's result dtype for two tensors: of one rank class (both zero-dim or both not) the
    wider type wins; else a zero-dim tensor counts only when its category is higher."""
    if da is db:
        return da
    if (a_ndim == 0) is (b_ndim == 0):
        return promote_types(da, db)
    return _combine(da, db) if b_ndim == 0 else _combine(db, da)


def _combine(higher: dtype, lower: dtype) -> dtype:
    """c10's combine_categories: the dtype of operands of a higher priority class (`higher`: a
    dimensioned tensor) against a lower one (`lower`: a zero-dim tensor or a Python number)."""
    if higher._kind == _FLOAT:
        return higher
    if higher._kind == _BOOL or lower._kind == _FLOAT:
        return promote_types(higher, lower)
    return higher


def promote_types(da: dtype, db: dtype) -> dtype:
    """PyTorch's promotion of two dtypes: the higher category wins, else the wider type."""
    if da._kind != db._kind:
        return da if da._kind > db._kind else db
    return BY_NUMPY[np.promote_types(da.numpy, db.numpy)]


def wrapped(d: dtype, value: int) -> int:
    """The Python int `value` as a C cast into the integer dtype `d` leaves it (modulo 2**bits): how
    torch writes -1 into a uint8 tensor (255), where NumPy raises OverflowError."""
    bits = d.itemsize * 8
    value %= 1 << bits
    if d.numpy.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def checked(d: dtype, value: int) -> int:
    """The Python int `value` written into the integer dtype `d` (fill_, x[i] = v), as torch checks
    it: in range, or for an unsigned type a negative down to -max that wraps; else RuntimeError."""
    bits = d.itemsize * 8
    signed = d.numpy.kind == "i"
    largest = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    if value > largest or value < (-largest - 1 if signed else -largest):
        raise RuntimeError(f"value cannot be converted to type {d.name} without overflow: {value}")
    return wrapped(d, value)


def scalar_result(d: dtype, scalar) -> dtype:
    """The result dtype of (tensor of dtype `d`) op (Python scalar), as PyTorch."""
    if isinstance(scalar, bool):
        return d
    if isinstance(scalar, float):
        return d if d._kind == _FLOAT else _default_float
    if d._kind == _BOOL:
        return int64
    return d
