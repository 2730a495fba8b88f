"""Operand preparation shared by the ops: PyTorch's dtype promotion, device checks, clear errors."""

from __future__ import annotations

import numpy as np

from .. import backend, dtypes
from ..tensor import Tensor, wrap

_SCALARS = (int, float, bool)
_ndarray = np.ndarray


def as_tensor_like(value, like: Tensor) -> Tensor:
    """A tensor on `like`'s device for a list, array or NumPy scalar operand."""
    if isinstance(value, Tensor):
        return value
    xp = backend.namespace(like.array)
    array = xp.asarray(value)
    if isinstance(value, (list, tuple)) and array.dtype.kind == "f":
        array = array.astype(dtypes.default_float_numpy())
    return wrap(array)


def check_devices(op: str, a: Tensor, b: Tensor) -> None:
    if not backend.same_device(a.array, b.array):
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two devices, "
            f"{a.device} and {b.device}! (when checking arguments for {op}); "
            f"move one with .to('{a.device}') or .to('{b.device}')"
        )


def binary_operands(op: str, a, b, float_result=False):
    """Promote two operands as PyTorch does; Python scalars stay scalars (NumPy keeps them weak)."""
    # Fast path, most ops: two CPU tensors of one dtype, or a float tensor and a Python number.
    if isinstance(a, Tensor):
        x = a.array
        if isinstance(b, Tensor):
            y = b.array
            if x.dtype is y.dtype and type(x) is _ndarray and type(y) is _ndarray and (
                    not float_result or x.dtype.kind == "f"):
                return a, b
        elif (type(b) is float or type(b) is int) and x.dtype.kind == "f":
            return a, b
    elif (type(a) is float or type(a) is int) and isinstance(b, Tensor) and b.array.dtype.kind == "f":
        return a, b
    return _promoted_operands(op, a, b, float_result)


def _promoted_operands(op, a, b, float_result):
    from .unary import cast

    if isinstance(a, Tensor):
        if isinstance(b, Tensor):
            da, db = a.array.dtype, b.array.dtype
            if type(a.array) is not np.ndarray or type(b.array) is not np.ndarray:
                check_devices(op, a, b)
            if da != db:
                target = dtypes.promote(a.array, b.array)
                if da != target:
                    a = cast(a, target)
                if db != target:
                    b = cast(b, target)
        elif isinstance(b, _SCALARS):
            target = dtypes.scalar_result(a.array.dtype, b)
            if target != a.array.dtype:
                a = cast(a, target)
        else:
            return _promoted_operands(op, a, as_tensor_like(b, a), float_result)
    elif isinstance(b, Tensor):
        if isinstance(a, _SCALARS):
            target = dtypes.scalar_result(b.array.dtype, a)
            if target != b.array.dtype:
                b = cast(b, target)
        else:
            return _promoted_operands(op, as_tensor_like(a, b), b, float_result)
    else:
        raise TypeError(f"{op}: expected at least one Tensor operand, got {type(a).__name__} and {type(b).__name__}")
    if float_result:
        for t in (a, b):
            if isinstance(t, Tensor) and t.array.dtype.kind != "f":
                return binary_operands(op, *[cast(x, dtypes.default_float_numpy()) if x is t else x for x in (a, b)])
    return a, b


def shape_of(value) -> tuple:
    return tuple(value.shape) if isinstance(value, Tensor) else ()


def broadcast_error(op: str, a, b) -> ValueError | None:
    """A clear error when two operands' shapes do not broadcast, or None if they do."""
    sa, sb = shape_of(a), shape_of(b)
    try:
        np.broadcast_shapes(sa, sb)
    except ValueError:
        return ValueError(f"{op}: shapes {sa} and {sb} cannot be broadcast together")
    return None


def dims(dim, ndim: int):
    """Normalise a `dim` argument (None, int, or tuple) to a tuple of axes, or None for all."""
    if dim is None or ndim == 0:
        if dim is not None:
            for d in dim if isinstance(dim, (tuple, list)) else (dim,):
                normalize_dim(d, 0)  # a 0-d tensor accepts dim 0 or -1, as PyTorch
        return None
    if isinstance(dim, (tuple, list)):
        if len(dim) == 0:
            return None
        return tuple(sorted(normalize_dim(d, ndim) for d in dim))
    return (normalize_dim(dim, ndim),)


def normalize_dim(dim, ndim: int, extra: int = 0) -> int:
    """A non-negative axis for `dim`, or an IndexError saying the valid range."""
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    size = max(ndim + extra, 1)
    if not -size <= dim < size:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], but got {dim})"
        )
    return int(dim) % size
