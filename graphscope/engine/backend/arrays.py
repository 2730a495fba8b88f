"""Array helpers: what op code calls on device arrays beyond `xp = namespace(array)`.

What the array API standard leaves out (host copies, scatter-add, fancy-index writes, creation
on a given device) and the few calls whose standard spelling is slow in NumPy: each keeps a
NumPy fast path (`type(x) is _ndarray`) and otherwise asks the array's DeviceType.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from .device import CPU, Device, as_device
from .numpy_cpu import keep_where, numpy_dtype_name
from .registry import ARRAY_TYPES, device_type
from .registry import type_of as _type_of

_ndarray = np.ndarray
_add_reduce = np.add.reduce
_dot = np.dot
CPU_ARRAY = np.ndarray  # the CPU's array class, for fast paths elsewhere (`type(x) is CPU_ARRAY`)


# --- devices -----------------------------------------------------------------------------------


def namespace(array):
    """The array namespace (numpy, cupy, ...) that owns `array`: op code's `xp`."""
    if type(array) is _ndarray:
        return np
    return _type_of(array).xp


def is_array(value) -> bool:
    """Whether `value` is an array of a graphscope device (not a Python or NumPy scalar)."""
    kind = type(value)
    if kind is _ndarray or kind in ARRAY_TYPES:
        return True
    if not hasattr(value, "shape") or isinstance(value, np.generic):
        return False
    try:  # CuPy's arrays before CuPy was loaded here (they have no __array_namespace__)
        _type_of(value)
    except TypeError:
        return False
    return True


def device_of(array) -> Device:
    """The Device an array lives on."""
    if type(array) is _ndarray:
        return CPU
    return _type_of(array).device_of(array)


def same_device(a, b) -> bool:
    """Whether two arrays live on the same device."""
    kind = type(a)
    if kind is type(b):
        return True if kind is _ndarray else _type_of(a).same_device(a, b)
    return device_of(a) == device_of(b)


def create(device, function: str, *args, **kwargs):
    """xp.<function>(*args, **kwargs) with the result on `device` (a Device, str or None)."""
    device = as_device(device)
    if device.type == "cpu":
        return getattr(np, function)(*args, **kwargs)
    return device_type(device).create(device, function, *args, **kwargs)


# --- host and device copies ----------------------------------------------------------------------


def to_device(array, device: Device):
    """Copy `array` to `device` (no copy when it is already there)."""
    source = device_of(array)
    if source == device:
        return array
    if source.type == device.type:
        return device_type(device).to_device(array, device)
    if device.type == "cpu":
        return to_host(array)
    return device_type(device).from_host(to_host(array), device)


def to_host(array) -> np.ndarray:
    """A NumPy array with the values of `array` (no copy on the CPU)."""
    if type(array) is _ndarray:
        return array
    return _type_of(array).to_host(array)


def from_data(data, device, dtype=None):
    """Python numbers, nested lists or a NumPy array as an array on `device` (a copy off the CPU);
    `dtype` is a NumPy dtype or None."""
    return from_host(np.asarray(data, dtype=dtype), as_device(device))


def from_host(host: np.ndarray, device):
    """A copy of the NumPy array `host` on `device` (the same array on the CPU)."""
    device = as_device(device)
    if device.type == "cpu":
        return host
    return device_type(device).from_host(host, device)


# --- dtypes --------------------------------------------------------------------------------------

_BY_NUMPY = dtypes.BY_NUMPY
# NumPy's float dtypes: a fast path's test for a float array is one set lookup.
NUMPY_FLOATS = frozenset(d.numpy for d in _BY_NUMPY.values() if d.is_floating_point)


def dtype_of(array) -> dtypes.dtype:
    """The graphscope dtype of a device array."""
    if type(array) is _ndarray:
        return _BY_NUMPY[array.dtype]
    return _type_of(array).dtype_of(array.dtype)


def dtype_name(array) -> str:
    """The name of an array's dtype ("float32", "int64"), as NumPy spells it."""
    if type(array) is _ndarray:
        return numpy_dtype_name(array.dtype)
    return _type_of(array).dtype_name(array.dtype)


def dtype_kind(array) -> str:
    """NumPy's one-letter kind of an array's dtype: "b" bool, "i" signed and "u" unsigned
    integers, "f" floating point, "c" complex."""
    if type(array) is _ndarray:
        return array.dtype.kind
    return _type_of(array).dtype_kind(array.dtype)


def is_floating(array) -> bool:
    """Whether a device array holds floating point numbers."""
    if type(array) is _ndarray:
        return array.dtype in NUMPY_FLOATS
    return _type_of(array).dtype_of(array.dtype).is_floating_point


def native_dtype(dtype, like):
    """The dtype object of `like`'s array library for a graphscope dtype (or Python/NumPy type)."""
    if not isinstance(dtype, dtypes.dtype):
        dtype = dtypes.from_any(dtype)
    if type(like) is _ndarray:
        return dtype.numpy
    return _type_of(like).native_dtype(dtype)


def native_dtype_for(dtype, device: Device):
    """The dtype object of `device`'s array library for a graphscope dtype."""
    if not isinstance(dtype, dtypes.dtype):
        dtype = dtypes.from_any(dtype)
    if device.type == "cpu":
        return dtype.numpy
    return device_type(device).native_dtype(dtype)


# --- the calls whose standard spelling is slow in NumPy, or which the standard lacks -------------


def reshape(array, shape):
    """xp.reshape(array, shape); NumPy's method is several times faster than np.reshape."""
    if type(array) is _ndarray:
        return array.reshape(shape)
    return _type_of(array).xp.reshape(array, shape)


def viewable(array, shape) -> bool:
    """Whether `array` can take `shape` without a copy (torch's view), or the sizes do not fit
    (reshape says so): a contiguous array always can; a transposed or sliced one may not. Device
    arrays are taken as viewable (their reshape copies where it must)."""
    if type(array) is not _ndarray or array.flags.c_contiguous:
        return True
    try:
        array.view().shape = shape
    except AttributeError:  # NumPy's "incompatible shape for in-place modification"
        return False
    except ValueError:
        return True
    return True


def permute_dims(array, axes):
    """xp.permute_dims(array, axes); NumPy's transpose method is the fast spelling."""
    if type(array) is _ndarray:
        return array.transpose(axes)
    return _type_of(array).xp.permute_dims(array, axes)


def astype(array, dtype, copy=True):
    """xp.astype(array, dtype) with `dtype` native to the array's library."""
    if type(array) is _ndarray:
        return array.astype(dtype, copy=copy)
    return _type_of(array).astype(array, dtype, copy=copy)


def copy(array):
    """A copy of `array` on its device."""
    if type(array) is _ndarray:
        return array.copy()
    return _type_of(array).copy(array)


def sum(array, axis=None, keepdims=False, dtype=None):
    """xp.sum; on NumPy the ufunc reduction that np.sum and ndarray.sum end in, without their
    Python-level layers."""
    if type(array) is _ndarray:
        return _add_reduce(array, axis, dtype, None, keepdims)
    return _type_of(array).xp.sum(array, axis=axis, keepdims=keepdims, dtype=dtype)


def mean(array):
    """xp.mean of all elements; float32 and float64 NumPy arrays as their sum over the count (what
    np.mean computes for them, without its Python layers)."""
    if type(array) is _ndarray and array.dtype in _SUMMED_MEANS and array.size:
        return _add_reduce(array, None) / array.size
    return namespace(array).mean(array)


_SUMMED_MEANS = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


def fill(shape, value):
    """An array of `shape` holding the 0-d array `value` everywhere (off the CPU, a broadcast view)."""
    if type(value) is _ndarray or isinstance(value, np.generic):
        out = np.empty(shape, value.dtype)  # np.full's Python layers cost more than the fill
        out.fill(value)
        return out
    return _type_of(value).xp.broadcast_to(value, shape)


def ones_like(array):
    """xp.ones_like(array); on NumPy an empty array filled, without np.ones_like's Python layers."""
    if type(array) is _ndarray:
        out = np.empty_like(array)
        out.fill(1)
        return out
    return _type_of(array).xp.ones_like(array)


def matmul(a, b):
    """a @ b; two NumPy matrices go to np.dot, the same product reached with less dispatch."""
    if type(a) is _ndarray and type(b) is _ndarray and a.ndim == 2 and b.ndim == 2:
        return _dot(a, b)
    return a @ b


def cumprod(array, axis: int):
    """Cumulative products along `axis` (the standard's cumulative_prod; NumPy's faster method)."""
    if type(array) is _ndarray:
        return array.cumprod(axis=axis)
    return _type_of(array).cumprod(array, axis)


def matrix_transpose(array):
    """The last two axes swapped (the standard's matrix_transpose)."""
    if type(array) is _ndarray:
        return array.swapaxes(-1, -2)
    return _type_of(array).matrix_transpose(array)


def keep(values, mask):
    """`values` where the bool array `mask` holds, else 0, whatever the values outside it (NaN, inf)."""
    if type(values) is _ndarray:
        return keep_where(values, mask)
    return _type_of(values).keep(values, mask)


def zeros(shape, dtype, like):
    """Zeros of `shape` and the native `dtype` on `like`'s device."""
    if type(like) is _ndarray:
        return np.zeros(shape, dtype)
    kind = _type_of(like)
    return kind.create(kind.device_of(like), "zeros", shape, dtype=dtype)


def full(shape, value, dtype, like):
    """`value` repeated over `shape`, in the native `dtype`, on `like`'s device."""
    if type(like) is _ndarray:
        return np.full(shape, value, dtype)
    kind = _type_of(like)
    return kind.create(kind.device_of(like), "full", shape, value, dtype=dtype)


def arange(n, like):
    """0, 1, ..., n-1 as int64 on `like`'s device."""
    if type(like) is _ndarray:
        return np.arange(n)
    kind = _type_of(like)
    return kind.create(kind.device_of(like), "arange", n, dtype=kind.native_dtype(dtypes.int64))


def asarray(value, like, dtype=None):
    """A Python scalar or nested list as an array on `like`'s device (`dtype` native or None)."""
    if type(like) is _ndarray:
        return np.asarray(value, dtype=dtype)
    kind = _type_of(like)
    return kind.create(kind.device_of(like), "asarray", value, dtype=dtype)


def take(array, index):
    """array[index] for an index holding integer arrays (NumPy's advanced indexing)."""
    if type(array) is _ndarray:
        return array[index]
    return _type_of(array).take(array, index)


def put(array, index, values) -> None:
    """array[index] = values for an index holding integer arrays."""
    if type(array) is _ndarray:
        array[index] = values
    else:
        _type_of(array).put(array, index, values)


def scatter_add(target, index, values) -> None:
    """target[index] += values, accumulating repeated indices (np.add.at / cupyx.scatter_add)."""
    if type(target) is _ndarray:
        np.add.at(target, index, values)
    else:
        _type_of(target).scatter_add(target, index, values)


def updater(op: str):
    """A function `update(array, operand) -> bool` doing array <op>= operand in place, for op in
    add, subtract, multiply, divide (the optimizers' hot path, hence one function per op).

    It returns False (nothing written) when the library refuses: a cast it won't make, a shape
    that doesn't fit; the caller then takes its general path, which explains the problem.
    """
    ufunc = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide}[op]

    def update(array, operand) -> bool:
        if type(array) is _ndarray:
            try:
                ufunc(array, operand, out=array)
            except (TypeError, ValueError, OverflowError):
                return False
            return True
        return _type_of(array).update(op, array, operand)

    return update


def bincount(indices, length: int):
    """How often each of 0..length-1 occurs in the integer array `indices` (all in that range),
    computed on the array's device: a histogram's counts, for summaries on the device."""
    if type(indices) is _ndarray:
        return np.bincount(indices.reshape(-1), minlength=length)[:length]
    return _type_of(indices).bincount(indices, length)


def into(out, function: str, *args) -> None:
    """out[...] = xp.<function>(*args) without a temporary where the library allows (`out=`)."""
    if type(out) is _ndarray:
        getattr(np, function)(*args, out=out)
    else:
        _type_of(out).into(out, function, *args)


def is_private(array) -> bool:
    """Whether `array` surely owns its memory alone (else a caller that keeps it copies it)."""
    if type(array) is _ndarray:
        return array.base is None and array.flags.writeable
    return _type_of(array).is_private(array)


def writeable(array) -> bool:
    if type(array) is _ndarray:
        return array.flags.writeable
    return _type_of(array).writeable(array)


def scalars(arrays) -> list[float]:
    """The Python floats in many one-element arrays (any numeric or bool dtype, any devices), with
    one device-to-host copy per device: the values are cast and stacked where they live first."""
    out = [0.0] * len(arrays)
    groups: dict = {}
    for i, a in enumerate(arrays):
        if type(a) is _ndarray or isinstance(a, np.generic):
            out[i] = float(a)
        else:
            groups.setdefault(device_of(a), []).append(i)
    for indices in groups.values():
        first = arrays[indices[0]]
        xp = _type_of(first).xp
        wide = [xp.reshape(astype(arrays[i], xp.float64), ()) for i in indices]
        for i, v in zip(indices, to_host(xp.stack(wide)).tolist()):
            out[i] = v
    return out


def scalar(array):
    """The Python number in a one-element array (one device-to-host copy off the CPU)."""
    if type(array) is _ndarray:
        return array.reshape(()).item()
    return to_host(array).reshape(()).item()


# --- tensors as bytes, for files (engine/serialization) ------------------------------------------


def to_bytes(array) -> memoryview:
    """The elements of `array` in C order as little-endian bytes (a host copy off the CPU)."""
    host = np.ascontiguousarray(to_host(array))
    if host.dtype.byteorder == ">":
        host = host.astype(host.dtype.newbyteorder("<"))
    return host.reshape(-1).data.cast("B")


def from_bytes(buffer, dtype: dtypes.dtype, big_endian=False) -> np.ndarray:
    """The host 1-D array of `dtype` elements held in `buffer` (a view of it if it is writable,
    little-endian data in a bytearray; else a copy in native byte order)."""
    if big_endian:
        return np.frombuffer(buffer, dtype=dtype.numpy.newbyteorder(">")).astype(dtype.numpy)
    host = np.frombuffer(buffer, dtype=dtype.numpy)
    return host if host.flags.writeable else host.copy()


def from_storage(storage: np.ndarray, shape, offset: int, strides, device: Device):
    """The array of `shape` and element `strides` starting at element `offset` of the host 1-D
    `storage`, on `device`: on the CPU a view, so tensors of one storage share memory (as in
    torch); elsewhere a copy. The caller has checked that it lies inside the storage."""
    itemsize = storage.itemsize
    view = np.lib.stride_tricks.as_strided(storage[offset:], tuple(shape), tuple(s * itemsize for s in strides))
    if device.type == "cpu":
        return view
    return device_type(device).from_host(np.array(view, order="C"), device)  # 0-d stays 0-d
