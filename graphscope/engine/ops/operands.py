"""Operand preparation shared by the ops: PyTorch's dtype promotion, device checks, clear errors."""

from __future__ import annotations

import numpy as np

from .. import backend, dtypes
from ..tensor import Tensor, wrap

_SCALARS = (int, float, bool)
_ndarray = np.ndarray
_FLOATS = backend.NUMPY_FLOATS  # NumPy's float dtypes: the fast paths' one dict lookup
_INT64 = np.dtype(np.int64)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def tensor_input(value, op: str, arg: str = "input") -> Tensor:
    """`value` if it is a Tensor, else PyTorch's TypeError naming the op and the argument."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' must be a Tensor, not {type(value).__name__}")
    return value


def as_tensor_like(value, like: Tensor) -> Tensor:
    """A tensor on `like`'s device for a list, host array or NumPy scalar operand."""
    if isinstance(value, Tensor):
        return value
    if backend.is_array(value) and type(value) is not _ndarray:
        return wrap(value)  # a device array: the device check that follows compares it
    array = backend.from_data(value, like.device)
    if isinstance(value, (list, tuple)) and backend.is_floating(array):
        array = backend.astype(array, backend.native_dtype(dtypes.get_default_dtype(), array))
    return wrap(array)


def check_devices(op: str, first, *others) -> None:
    """PyTorch's error when one of `others` lives on another device than `first` (each a Tensor
    or a device array; None and Python numbers among `others` are skipped)."""
    a = first.array if isinstance(first, Tensor) else first
    for other in others:
        b = other.array if isinstance(other, Tensor) else other
        if backend.is_array(b) and not backend.same_device(a, b):
            raise device_error(op, backend.device_of(a), backend.device_of(b))


def device_error(op: str, first, second) -> RuntimeError:
    return RuntimeError(
        f"Expected all tensors to be on the same device, but found at least two devices, "
        f"{first} and {second}! (when checking arguments for {op}); "
        f"move one with .to('{first}') or .to('{second}')"
    )


def binary_operands(op: str, a, b, float_result=False):
    """Promote two operands as PyTorch does; Python scalars stay scalars (NumPy keeps them weak)."""
    # Fast path, most ops: two CPU tensors of one dtype, or a float tensor and a Python number.
    if isinstance(a, Tensor):
        x = a.array
        if isinstance(b, Tensor):
            y = b.array
            if (
                x.dtype is y.dtype
                and type(x) is _ndarray
                and type(y) is _ndarray
                and (not float_result or x.dtype in _FLOATS)
            ):
                return a, b
        elif (type(b) is float or type(b) is int) and type(x) is _ndarray and x.dtype in _FLOATS:
            return a, b
        elif (
            type(b) is int
            and type(x) is _ndarray
            and x.dtype == _INT64
            and not float_result
            and _INT64_MIN <= b <= _INT64_MAX
        ):
            return a, b  # a long tensor and an index offset (`i + block_size`)
    elif (
        (type(a) is float or type(a) is int)
        and isinstance(b, Tensor)
        and type(b.array) is _ndarray
        and (b.array.dtype in _FLOATS)
    ):
        return a, b
    return _promoted_operands(op, a, b, float_result)


BOOL_SUBTRACTION = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)
BOOLS_SUBTRACTION = (
    "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
    "`logical_xor()` operator instead."
)


def is_bool(value) -> bool:
    """Whether `value` is a Python bool or a bool tensor."""
    return type(value) is bool or (isinstance(value, Tensor) and backend.dtype_kind(value.array) == "b")


def _promoted_operands(op, a, b, float_result):
    from .unary import cast

    if op == "sub" and (is_bool(a) or is_bool(b)):  # torch refuses a bool on either side, before promotion
        raise RuntimeError(BOOLS_SUBTRACTION if is_bool(a) and is_bool(b) else BOOL_SUBTRACTION)

    if isinstance(a, Tensor):
        if isinstance(b, Tensor):
            x, y = a.array, b.array
            if type(x) is not _ndarray or type(y) is not _ndarray:
                check_devices(op, a, b)
            da, db = backend.dtype_of(x), backend.dtype_of(y)
            if da is not db:
                target = dtypes.promote(da, x.ndim, db, y.ndim)
                if da is not target:
                    a = cast(a, target)
                if db is not target:
                    b = cast(b, target)
        elif isinstance(b, _SCALARS):
            da = backend.dtype_of(a.array)
            if type(b) is bool and da is not dtypes.bool_:
                b = int(b)  # the standard mixes a bool scalar only with bool arrays
            target = dtypes.scalar_result(da, b)
            if target is not da:
                a = cast(a, target)
            b = _in_range(b, target)
        else:
            return _promoted_operands(op, a, as_tensor_like(b, a), float_result)
    elif isinstance(b, Tensor):
        if isinstance(a, _SCALARS):
            db = backend.dtype_of(b.array)
            if type(a) is bool and db is not dtypes.bool_:
                a = int(a)
            target = dtypes.scalar_result(db, a)
            if target is not db:
                b = cast(b, target)
            a = _in_range(a, target)
        else:
            return _promoted_operands(op, as_tensor_like(a, b), b, float_result)
    else:
        raise TypeError(f"{op}: expected at least one Tensor operand, got {type(a).__name__} and {type(b).__name__}")
    if float_result:
        for t in (a, b):
            if isinstance(t, Tensor) and not backend.is_floating(t.array):
                return binary_operands(op, *[cast(x, dtypes.get_default_dtype()) if x is t else x for x in (a, b)])
    return a, b


def _in_range(scalar, target: dtypes.dtype):
    """A Python int scalar wrapped into an integer dtype's range, as torch converts it (uint8 + -1
    adds 255); NumPy would raise OverflowError."""
    if type(scalar) is int and not target.is_floating_point and target is not dtypes.bool_:
        return dtypes.wrapped(target, scalar)
    return scalar


def shape_of(value) -> tuple:
    return tuple(value.shape) if isinstance(value, Tensor) else ()


def broadcast_error(op: str, a, b) -> RuntimeError | None:
    """A clear error when two operands' shapes do not broadcast (torch's RuntimeError), or None if they do."""
    sa, sb = shape_of(a), shape_of(b)
    try:
        np.broadcast_shapes(sa, sb)
    except ValueError:
        return RuntimeError(f"{op}: shapes {sa} and {sb} cannot be broadcast together")
    return None
