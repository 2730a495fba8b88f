"""Tensor dtypes with PyTorch's names, and PyTorch's type-promotion rules on top of NumPy dtypes."""

from __future__ import annotations

import numpy as np


class dtype:
    """A tensor element type (`graphscope.float32`), wrapping a NumPy dtype."""

    __slots__ = ("name", "numpy", "is_floating_point", "itemsize", "_kind")

    def __init__(self, name: str, numpy_dtype, kind: int):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = kind == _FLOAT
        self.itemsize = self.numpy.itemsize
        self._kind = kind

    def __repr__(self):
        return f"graphscope.{self.name}"

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

_BY_NUMPY = {d.numpy: d for d in (float16, float32, float64, int8, uint8, int16, int32, int64, bool_)}
_default_float = float32


def from_numpy(numpy_dtype) -> dtype:
    """The graphscope dtype of a NumPy dtype, or a clear error for unsupported ones."""
    try:
        return _BY_NUMPY[numpy_dtype]
    except KeyError:
        pass
    try:
        return _BY_NUMPY[np.dtype(numpy_dtype)]
    except (KeyError, TypeError):
        raise TypeError(
            f"unsupported dtype {numpy_dtype!r}: graphscope supports "
            + ", ".join(d.name for d in _BY_NUMPY.values())
        ) from None


def to_numpy(d) -> np.dtype:
    """The NumPy dtype for a graphscope dtype, a NumPy dtype or a Python type (float, int, bool)."""
    if isinstance(d, dtype):
        return d.numpy
    if d is float:
        return _default_float.numpy
    if d is int:
        return int64.numpy
    if d is bool:
        return bool_.numpy
    return from_numpy(d).numpy


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


def is_float(numpy_dtype) -> bool:
    return numpy_dtype.kind == "f"


def _kind_of(numpy_dtype) -> int:
    kind = numpy_dtype.kind
    return _FLOAT if kind == "f" else _BOOL if kind == "b" else _INT


def promote(a, b) -> np.dtype:
    """PyTorch's result dtype for two arrays: higher category wins; 0-d arrays defer within one."""
    da, db = a.dtype, b.dtype
    if da == db:
        return da
    ka, kb = _kind_of(da), _kind_of(db)
    if ka != kb:
        winner, other = (a, b) if ka > kb else (b, a)
        if winner.ndim == 0 and other.ndim != 0:
            # A 0-d tensor of a higher category gives that category's default dtype.
            return default_float_numpy() if max(ka, kb) == _FLOAT else np.dtype(np.int64)
        return winner.dtype
    if a.ndim == 0 and b.ndim != 0:
        return db
    if b.ndim == 0 and a.ndim != 0:
        return da
    return np.promote_types(da, db)


def promote_types(da, db) -> np.dtype:
    """PyTorch's promotion of two dtypes: the higher category wins, else the wider type."""
    ka, kb = _kind_of(da), _kind_of(db)
    if ka != kb:
        return da if ka > kb else db
    return np.promote_types(da, db)


def scalar_result(numpy_dtype, scalar) -> np.dtype:
    """The result dtype of (tensor of `numpy_dtype`) op (Python scalar), as PyTorch."""
    if isinstance(scalar, bool):
        return numpy_dtype
    if isinstance(scalar, float):
        return numpy_dtype if numpy_dtype.kind == "f" else default_float_numpy()
    if numpy_dtype.kind == "b":
        return np.dtype(np.int64)
    return numpy_dtype
