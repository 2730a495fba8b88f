"""Creation functions (tensor, zeros, randn, arange, ...) with PyTorch's dtype defaults."""

from __future__ import annotations

import math

import numpy as np

from . import backend, dtypes, hooks
from .random import drawing
from .tensor import Tensor, wrap


def _finish(array, requires_grad) -> Tensor:
    out = wrap(array)
    if requires_grad:
        out.requires_grad_(True)
    elif hooks.observers:
        hooks.announce_leaf_created(out)  # where the debugger says it was made
    return out


def _infer(data, dtype=None):
    """A host array for Python data, made in `dtype` straight from the exact values (never via
    float32), or as torch.tensor infers: floats -> default float, ints -> int64; integers that
    do not fit raise as in torch."""
    try:
        array = np.array(data)
    except (ValueError, TypeError) as error:
        raise TypeError(f"tensor(): could not build a tensor from this data ({error})") from None
    target = None if dtype is None else dtypes.from_any(dtype)
    kind = array.dtype.kind
    python_ints = not isinstance(data, (np.generic, np.ndarray))
    if array.dtype == object and python_ints and _all_ints(array):  # integers beyond 64 bits
        kind = "u"
        if target is None or (not target.is_floating_point and target is not dtypes.bool_):
            raise ValueError(_UNPACK_OVERFLOW)
        try:
            array = np.array(data, dtype=np.float64) if target.is_floating_point else array != 0
        except OverflowError:
            raise ValueError(_UNPACK_OVERFLOW) from None
    if array.dtype == object or kind not in "biuf":
        raise TypeError(
            f"tensor(): data must be numbers (nested lists of equal length), got {type(data).__name__} "
            f"with elements of dtype {array.dtype}"
        )
    if target is None:
        if kind == "f" and not _holds_float_arrays(data):
            target = dtypes.get_default_dtype()
        elif kind in "iu" and python_ints:
            target = dtypes.int64
        else:
            return array
    if kind == "u" and python_ints and target is not dtypes.bool_ and not target.is_floating_point:
        raise ValueError(_UNPACK_OVERFLOW)  # a Python int of 2**63 or more: no int64 holds it
    if target.is_floating_point or target is dtypes.bool_:
        with np.errstate(over="ignore"):  # too large for float16/float32: inf, as in torch
            return array.astype(target.numpy)
    if kind in "fiu" and array.size:
        info = np.iinfo(target.numpy)
        if kind == "f":
            bad = not (np.all(array >= float(info.min)) and np.all(array <= float(info.max)))  # NaN too
        else:  # an unsigned target lets a negative integer wrap, as in torch
            bad = int(array.max()) > info.max or int(array.min()) < (-info.max if info.min == 0 else info.min)
        if bad:
            raise RuntimeError(f"value cannot be converted to type {target.name} without overflow")
    return array.astype(target.numpy)


_UNPACK_OVERFLOW = "Overflow when unpacking long long"


def _all_ints(array) -> bool:
    return all(type(v) is int for v in array.flat)


def _holds_float_arrays(data) -> bool:
    """NumPy scalars and tensors inside the data keep their own float dtype."""
    if isinstance(data, (np.generic, np.ndarray, Tensor)):
        return True
    if isinstance(data, (list, tuple)) and data:
        return _holds_float_arrays(data[0])
    return False


def tensor(data, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A new leaf tensor copying `data` (numbers, nested lists, arrays, tensors)."""
    if isinstance(data, Tensor) or (backend.is_array(data) and not isinstance(data, np.ndarray)):
        array = data.array if isinstance(data, Tensor) else data
        # A tensor or device array stays on its device unless `device=` says otherwise (as torch).
        target = backend.device_of(array) if device is None else backend.as_device(device)
        array = backend.to_device(array, target)
        if dtype is not None:
            array = backend.astype(array, backend.native_dtype(dtype, array))
        elif array is (data.array if isinstance(data, Tensor) else data):
            array = backend.copy(array)
        return _finish(array, requires_grad)
    if isinstance(data, np.ndarray):
        host = data.copy() if dtype is None else data.astype(dtypes.to_numpy(dtype))
    else:
        host = _infer(data, dtype)
    if host.dtype not in dtypes.BY_NUMPY:
        dtypes.from_numpy(host.dtype)  # raises a clear error for unsupported dtypes
    return _finish(backend.from_host(host, backend.as_device(device)), requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """`data` as a tensor, sharing memory where it can: a tensor, or a NumPy array bound for the CPU
    with the same dtype, is used as it is; anything else is copied (as torch.as_tensor)."""
    if isinstance(data, Tensor) and dtype is None and device is None:
        return data
    if (
        isinstance(data, np.ndarray)
        and (dtype is None or dtypes.to_numpy(dtype) == data.dtype)
        and backend.as_device(device).type == "cpu"
        and data.dtype in dtypes.BY_NUMPY
    ):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array (always on the CPU, as torch.from_numpy)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(array).__name__}")
    dtypes.from_numpy(array.dtype)
    return wrap(array)


def sizes_of(size) -> tuple:
    """The shape a creation function was given, as f(2, 3) or f((2, 3)), checked non-negative."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for n in size:
        if not isinstance(n, (int, np.integer)):
            raise TypeError(f"sizes must be integers, got {tuple(size)}")
        if n < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {n}: sizes must be non-negative, got {tuple(size)}"
            )
    return tuple(int(n) for n in size)


def float_or_default(dtype) -> dtypes.dtype:
    """`dtype` as a graphscope dtype, the default float dtype when None."""
    return dtypes.get_default_dtype() if dtype is None else dtypes.from_any(dtype)


def _make(device, function, *args, dtype):
    """xp.<function>(*args, dtype=...) on `device`, `dtype` a graphscope dtype."""
    device = backend.as_device(device)
    return backend.create(device, function, *args, dtype=backend.native_dtype_for(dtype, device))


def zeros(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    return _finish(_make(device, "zeros", sizes_of(size), dtype=float_or_default(dtype)), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    return _finish(_make(device, "ones", sizes_of(size), dtype=float_or_default(dtype)), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    return _finish(_make(device, "empty", sizes_of(size), dtype=float_or_default(dtype)), requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = (
            dtypes.bool_
            if isinstance(fill_value, bool)
            else dtypes.int64
            if isinstance(fill_value, int)
            else dtypes.get_default_dtype()
        )
    dtype = dtypes.from_any(dtype)
    fill_value = _fill_value(fill_value, dtype)
    return _finish(_make(device, "full", sizes_of((size,)), fill_value, dtype=dtype), requires_grad)


def _fill_value(value, dtype: dtypes.dtype):
    """`value` as a Python number of `dtype`'s kind, refused as torch.full refuses it when it does
    not fit (a negative integer wraps into uint8, as in torch)."""
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        raise OverflowError("int too big to convert")
    if dtype.is_floating_point:
        value = float(value)
        if math.isfinite(value) and abs(value) > _FLOAT_MAX.get(dtype.name, math.inf):
            raise RuntimeError(f"value cannot be converted to type {_C_NAME[dtype.name]} without overflow")
        return value
    if dtype is dtypes.bool_:
        return bool(value)
    low, high = _INT_RANGE[dtype.name]
    wraps = low == 0 and isinstance(value, int)
    if not (-high if wraps else low) <= value <= high:  # NaN too
        raise RuntimeError(
            f"value cannot be converted to type {_C_NAME.get(dtype.name, dtype.name + '_t')} without overflow"
        )
    return int(value) % (high + 1) if wraps else int(value)


# What an integer dtype holds, and torch's name for it in its overflow messages from full().
_INT_RANGE = {
    "int8": (-(2**7), 2**7 - 1),
    "uint8": (0, 2**8 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
_C_NAME = {"int32": "int", "float16": "c10::Half", "float32": "float"}
# The largest finite value of the narrow float dtypes: full() refuses a finite value beyond it
# (as torch does for any tensor of other than one element).
_FLOAT_MAX = {"float16": 65504.0, "float32": 3.4028234663852886e38}


def _like(input: Tensor, dtype, device):
    return (input.dtype if dtype is None else dtypes.from_any(dtype), input.device if device is None else device)


def zeros_like(input: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    dtype, device = _like(input, dtype, device)
    return _finish(_make(device, "zeros", input.shape, dtype=dtype), requires_grad)


def ones_like(input: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    dtype, device = _like(input, dtype, device)
    return _finish(_make(device, "ones", input.shape, dtype=dtype), requires_grad)


def full_like(input: Tensor, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
    dtype, device = _like(input, dtype, device)
    return full(input.shape, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_like(input: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    dtype, device = _like(input, dtype, device)
    return _finish(_make(device, "empty", input.shape, dtype=dtype), requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    return _finish(_make(device, "eye", n, n if m is None else m, dtype=float_or_default(dtype)), requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False) -> Tensor:
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(
            f"arange: upper bound and lower bound inconsistent with step sign ({start} to {end} by {step})"
        )
    if dtype is None:
        is_float = any(isinstance(v, float) for v in (start, end, step))
        dtype = dtypes.get_default_dtype() if is_float else dtypes.int64
    count = max(0, math.ceil((end - start) / step))
    values = _make(device, "arange", count, dtype=dtypes.float64) * step + start
    return _finish(backend.astype(values, backend.native_dtype(dtype, values)), requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False) -> Tensor:
    """torch.linspace's values, bit for bit in float32 and integers: start and end in `dtype`, the step in it
    (in float64 for integers), the first half counted up from start and the second down from end."""
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = float_or_default(dtype)
    index = _make(device, "arange", steps, dtype=dtypes.float64)
    native, wide = backend.native_dtype(dtype, index), backend.native_dtype(dtypes.float64, index)

    def rounded(value):  # a float64 value as `dtype` holds it (its own arithmetic's rounding)
        return backend.astype(backend.astype(backend.asarray(float(value), index, wide), native), wide)

    first, last = rounded(start), rounded(end)
    if steps <= 1:
        return _finish(backend.astype(index * 0 + first, native), requires_grad)
    difference = last - first
    step = rounded(rounded(difference) / (steps - 1)) if dtype.is_floating_point else difference / (steps - 1)
    up, down = _fused_multiply_add(step, index, first), _fused_multiply_add(-step, steps - 1 - index, last)
    values = backend.namespace(index).where(index < steps // 2, up, down)
    return _finish(backend.astype(values, native), requires_grad)


def _fused_multiply_add(a, b, c):
    """a·b + c in float64 arrays rounded once, as the fused multiply-add torch's compiled kernels use: the
    product's rounding error found exactly (Dekker's split), the sums' by Knuth's two-sum."""
    product = a * b
    a_high, b_high = _high_half(a), _high_half(b)
    a_low, b_low = a - a_high, b - b_high
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    c_part = total - product
    sum_error = (product - (total - c_part)) + (c - c_part)
    return total + (sum_error + product_error)


def _high_half(x):
    """x's upper 26 bits of mantissa (Veltkamp's split), so that products of halves are exact."""
    scaled = x * 134217729.0  # 2**27 + 1
    return scaled - (scaled - x)


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None) -> Tensor:
    return _finish(drawing(generator, device, "randn").normal(sizes_of(size), float_or_default(dtype)), requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None) -> Tensor:
    return _finish(
        drawing(generator, device, "rand").uniform(0.0, 1.0, sizes_of(size), float_or_default(dtype)), requires_grad
    )


def randint(low, high=None, size=None, dtype=None, device=None, requires_grad=False, *, generator=None) -> Tensor:
    if size is None:
        if high is None or not isinstance(high, (tuple, list)):
            raise TypeError("randint() needs size=, e.g. randint(0, 10, (3,))")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if high <= low:
        raise RuntimeError(f"randint: high ({high}) must be greater than low ({low})")
    dtype = dtypes.int64 if dtype is None else dtypes.from_any(dtype)
    return _finish(drawing(generator, device, "randint").integers(low, high, sizes_of((size,)), dtype), requires_grad)


def _random_like(name, input, dtype, device):
    dtype, device = _like(input, dtype, device)
    if not dtype.is_floating_point:
        raise NotImplementedError(
            f"{name}: random floats can't be drawn in {dtype.name}; give a float dtype= "
            "(or use randint_like for integers)"
        )
    return dtype, device


def randn_like(input: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    dtype, device = _random_like("randn_like", input, dtype, device)
    return randn(input.shape, dtype=dtype, device=device, requires_grad=requires_grad)


def rand_like(input: Tensor, dtype=None, device=None, requires_grad=False) -> Tensor:
    dtype, device = _random_like("rand_like", input, dtype, device)
    return rand(input.shape, dtype=dtype, device=device, requires_grad=requires_grad)


def randperm(n, dtype=None, device=None, *, generator=None) -> Tensor:
    dtype = dtypes.int64 if dtype is None else dtypes.from_any(dtype)
    values = drawing(generator, device, "randperm").permutation(sizes_of((n,))[0])
    return wrap(backend.astype(values, backend.native_dtype(dtype, values), copy=False))
