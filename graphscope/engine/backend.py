"""Devices and their array modules: NumPy for `cpu`, CuPy for `cuda`, chosen here and nowhere else.

Op code elsewhere in the engine is written against the array API standard through
`xp = namespace(array)`. What the standard leaves out (host copies, scatter-add, fancy-index
writes, random numbers, creation on a given device) and the few calls whose standard spelling is
slow in NumPy go through the functions at the bottom of this file: each keeps a NumPy fast path
and otherwise asks the array's `DeviceType`, of which there is one per kind of device. Tests
register one more, backed by array-api-strict, to prove that the engine needs nothing else.
"""

from __future__ import annotations

import json
import operator
import types

import numpy as np

from . import dtypes

_ndarray = np.ndarray
CPU_ARRAY = np.ndarray  # the CPU's array class, for fast paths elsewhere (`type(x) is CPU_ARRAY`)
_INSTALL_GPU = "pip install 'graphscope[gpu]'"


class Device:
    """A device as PyTorch names it: `cpu`, `cuda`, `cuda:1`."""

    __slots__ = ("type", "index")

    def __init__(self, spec="cpu", index=None):
        if isinstance(spec, Device):
            self.type, self.index = spec.type, spec.index
            return
        if not isinstance(spec, str):
            raise TypeError(f"device must be a string like 'cpu' or 'cuda:0', not {type(spec).__name__}")
        kind, _, number = spec.partition(":")
        if kind not in _DEVICE_TYPES:
            names = " and ".join(repr(name) for name in _DEVICE_TYPES)
            raise RuntimeError(f"unknown device {spec!r}: graphscope supports {names} (or 'cuda:N')")
        if number:
            if not number.isdigit():
                raise RuntimeError(f"invalid device {spec!r}: the index after ':' must be a number")
            index = int(number)
        if index is not None and (not isinstance(index, int) or index < 0):
            raise RuntimeError(f"invalid device index {index!r}: it must be a non-negative int")
        self.type = kind
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = Device(other)
            except RuntimeError:
                return False
        if not isinstance(other, Device):
            return NotImplemented
        return self.type == other.type and (self.index or 0) == (other.index or 0)

    def __hash__(self):
        return hash((self.type, self.index or 0))

    def __reduce__(self):
        return (Device, (str(self),))


class DeviceType:
    """One kind of device (`cpu`, `cuda`, ...): its array namespace and what the standard lacks.

    The defaults below use the array API standard alone (slowly where the standard has no
    counterpart), so a new kind needs `load`, `device_of`, host copies, `create`, its dtypes and
    a generator; NumPy and CuPy override what they do natively.
    """

    name = "?"
    xp = None  # the array namespace, set by load()
    _kinds: dict = {}  # native dtype -> kind letter (rebuilt, never mutated: types share the default)

    # --- what every device type provides ------------------------------------------------------

    def load(self):
        """Import the array library (once) and return its namespace, or raise one clear error."""
        raise NotImplementedError

    def array_types(self) -> tuple:
        """The classes of this device type's arrays (known once loaded)."""
        raise NotImplementedError

    def owns(self, array) -> bool:
        """Whether `array` is one of this type's (loading the library only if it must be)."""
        return self.xp is not None and isinstance(array, self.array_types())

    def device_count(self) -> int:
        raise NotImplementedError

    def device_of(self, array) -> Device:
        raise NotImplementedError

    def same_device(self, a, b) -> bool:
        """Whether two arrays of this type live on the same device."""
        return self.device_of(a) == self.device_of(b)

    def from_host(self, host: np.ndarray, device: Device):
        """A copy of a NumPy array on `device`."""
        raise NotImplementedError

    def to_host(self, array) -> np.ndarray:
        raise NotImplementedError

    def create(self, device: Device, function: str, *args, **kwargs):
        """xp.<function>(*args, **kwargs), the new array placed on `device`."""
        raise NotImplementedError

    def native_dtype(self, dtype: dtypes.dtype):
        """This library's dtype object for a graphscope dtype."""
        return dtype.numpy

    def dtype_of(self, native) -> dtypes.dtype:
        return dtypes.from_numpy(native)

    def dtype_kind(self, native) -> str:
        """NumPy's one-letter kind of a native dtype: "b", "i", "u", "f" or "c" (the standard's isdtype)."""
        kind = self._kinds.get(native)
        if kind is None:
            kind = next(k for k, name in _KINDS if self.xp.isdtype(native, name))
            self._kinds = {**self._kinds, native: kind}
        return kind

    def dtype_name(self, native) -> str:
        """The name of a native dtype ("float32"), also for dtypes graphscope tensors never have."""
        try:
            return self.dtype_of(native).name
        except (KeyError, TypeError):
            return str(getattr(native, "name", native)).rpartition(".")[2]

    def generator(self, seed, device: Device):
        """A seeded random generator on `device` (see random.Generator for what it must offer)."""
        raise NotImplementedError

    def generator_state(self, rng) -> np.ndarray:
        """The state of a generator made by `generator`, as host uint8 bytes (Generator.get_state).

        The default reads a NumPy-style `bit_generator.state` dict and writes it as JSON.
        """
        return np.frombuffer(json.dumps(rng.bit_generator.state).encode(), dtype=np.uint8).copy()

    def set_generator_state(self, rng, state: np.ndarray) -> None:
        """Restore a state that `generator_state` returned."""
        try:
            rng.bit_generator.state = json.loads(np.asarray(state, dtype=np.uint8).tobytes())
        except (ValueError, TypeError, KeyError) as error:
            raise RuntimeError(f"invalid RNG state for a {self.name} Generator ({error}); "
                               "pass a state that Generator.get_state() returned") from None

    # --- defaults written against the standard, overridden where a library does better --------

    def check(self, device: Device) -> None:
        """Raise a clear error if `device` can't be used (library missing, index out of range)."""
        self.load()
        count = self.device_count()
        if (device.index or 0) >= count:
            raise RuntimeError(
                f"{device.type} device index {device.index} is out of range: "
                f"{count} {device.type} device{'s' if count != 1 else ''} visible"
            )

    def to_device(self, array, device: Device):
        """Copy an array of this type to another device of this type."""
        return self.from_host(self.to_host(array), device)

    def keep(self, values, mask):
        """`values` where `mask` holds, else 0 (NumPy and CuPy multiply by the bool mask)."""
        return self.xp.where(mask, values, 0)

    def take(self, array, index):
        """array[index] for an index with integer arrays in it (NumPy's advanced indexing)."""
        return array[index]

    def put(self, array, index, values) -> None:
        """array[index] = values for an index with integer arrays in it."""
        array[index] = values

    def copy(self, array):
        return self.xp.asarray(array, copy=True)

    def astype(self, array, dtype, copy=True):
        return self.xp.astype(array, dtype, copy=copy)

    def cumprod(self, array, axis: int):
        return self.xp.cumulative_prod(array, axis=axis)

    def matrix_transpose(self, array):
        return self.xp.matrix_transpose(array)

    def scatter_add(self, target, index, values) -> None:
        """target[index] += values, adding up repeated indices."""
        host = self.to_host(target).copy()
        np.add.at(host, _host_index(self, index), self.to_host(values) if is_array(values) else values)
        target[...] = self.from_host(host, self.device_of(target))

    def update(self, op: str, array, operand) -> bool:
        """array <op>= operand in place (op: add, subtract, multiply, divide); False if refused."""
        try:
            result = _IN_PLACE[op](array, operand)
        except (TypeError, ValueError):
            return False
        return result is array

    def bincount(self, indices, length: int):
        """How often each of 0..length-1 occurs in the int64 array `indices` (all in that range):
        the standard has no bincount, so sort once and find each bin's edge."""
        xp = self.xp
        edges = self.create(self.device_of(indices), "arange", length + 1, dtype=indices.dtype)
        positions = xp.searchsorted(xp.sort(xp.reshape(indices, (-1,))), edges)
        return positions[1:] - positions[:-1]

    def into(self, out, function: str, *args) -> None:
        """out[...] = xp.<function>(*args) (NumPy and CuPy write through `out=` instead)."""
        out[...] = getattr(self.xp, function)(*args)

    def is_private(self, array) -> bool:
        """Whether `array` certainly shares its memory with no other array (else it is copied)."""
        return False

    def writeable(self, array) -> bool:
        return True


_KINDS = (("f", "real floating"), ("b", "bool"), ("i", "signed integer"), ("u", "unsigned integer"),
          ("c", "complex floating"))

_IN_PLACE = {"add": operator.iadd, "subtract": operator.isub,
             "multiply": operator.imul, "divide": operator.itruediv}


def _host_index(device_type, index):
    if not isinstance(index, tuple):
        return device_type.to_host(index) if is_array(index) else index
    return tuple(device_type.to_host(part) if is_array(part) else part for part in index)


class NumpyCPU(DeviceType):
    """`cpu`: NumPy arrays."""

    name = "cpu"
    xp = np

    def load(self):
        return np

    def array_types(self):
        return (np.ndarray,)

    def device_count(self):
        return 1

    def check(self, device):
        if device.index not in (None, 0):
            raise RuntimeError(f"invalid device {device}: there is one cpu device, 'cpu' (or 'cpu:0')")

    def device_of(self, array):
        return CPU

    def from_host(self, host, device):
        return host

    def to_host(self, array):
        return np.asarray(array)

    def to_device(self, array, device):
        return array

    def create(self, device, function, *args, **kwargs):
        return getattr(np, function)(*args, **kwargs)

    def generator(self, seed, device):
        return np.random.default_rng(seed)

    def dtype_kind(self, native):
        return np.dtype(native).kind

    def dtype_name(self, native):
        return np.dtype(native).name

    def keep(self, values, mask):
        return values * mask

    def take(self, array, index):
        return array[index]

    def scatter_add(self, target, index, values):
        np.add.at(target, index, values)

    def update(self, op, array, operand):
        try:
            getattr(np, op)(array, operand, out=array)
        except (TypeError, ValueError):
            return False
        return True

    def is_private(self, array):
        return array.base is None and array.flags.writeable

    def writeable(self, array):
        return array.flags.writeable


class CupyCUDA(DeviceType):
    """`cuda`: CuPy arrays, one namespace for every GPU (the array's own device runs its kernels)."""

    name = "cuda"

    def load(self):
        if self.xp is not None:
            return self.xp
        try:
            import cupy
        except ImportError as error:
            raise RuntimeError(
                f"CUDA was requested but CuPy is not installed ({error}). graphscope runs on "
                f"NVIDIA GPUs through CuPy: install the GPU extra with {_INSTALL_GPU}"
            ) from None
        try:
            count = cupy.cuda.runtime.getDeviceCount()
            reason = ""
        except Exception as error:  # CUDA driver missing or broken
            count, reason = 0, f" ({type(error).__name__}: {error})"
        if count == 0:
            raise RuntimeError(
                f"CUDA was requested but no CUDA GPU is visible{reason}. CuPy is installed "
                f"({_INSTALL_GPU}), but it needs an NVIDIA GPU and driver: check `nvidia-smi` and "
                "CUDA_VISIBLE_DEVICES, or use device='cpu'"
            )
        self.cupy = cupy
        self.count = count
        self.xp = _with_standard_names(cupy)
        _ARRAY_TYPES[cupy.ndarray] = self
        return self.xp

    def array_types(self):
        return (self.load().ndarray,)

    def owns(self, array):
        return type(array).__module__.partition(".")[0] == "cupy" and isinstance(array, self.array_types())

    def device_count(self):
        try:
            self.load()
        except RuntimeError:
            return 0
        return self.count

    def device_of(self, array):
        return Device("cuda", int(array.device.id))

    def same_device(self, a, b):
        return a.device.id == b.device.id

    def from_host(self, host, device):
        with self.cupy.cuda.Device(device.index or 0):
            return self.cupy.asarray(host)

    def to_host(self, array):
        return array.get()

    def to_device(self, array, device):
        with self.cupy.cuda.Device(device.index or 0):
            return self.cupy.asarray(array)  # a peer copy between GPUs

    def create(self, device, function, *args, **kwargs):
        with self.cupy.cuda.Device(device.index or 0):
            return getattr(self.cupy, function)(*args, **kwargs)

    def generator(self, seed, device):
        with self.cupy.cuda.Device(device.index or 0):
            return self.cupy.random.default_rng(seed)

    # CuPy's bit generators keep their cuRAND states in one device array, `_state`: copied whole.
    def generator_state(self, rng):
        return rng.bit_generator._state.get().view(np.uint8)

    def set_generator_state(self, rng, state):
        target = rng.bit_generator._state
        if state.nbytes != target.nbytes:
            raise RuntimeError(f"invalid RNG state for a cuda Generator: expected {target.nbytes} bytes, "
                               f"got {state.nbytes}; pass a state that Generator.get_state() returned")
        target[...] = self.cupy.asarray(np.ascontiguousarray(state).view(target.dtype))

    def keep(self, values, mask):
        return values * mask

    def dtype_kind(self, native):
        return np.dtype(native).kind

    def dtype_name(self, native):
        return np.dtype(native).name

    def copy(self, array):
        return array.copy()

    def astype(self, array, dtype, copy=True):
        return array.astype(dtype, copy=copy)

    def cumprod(self, array, axis):
        return array.cumprod(axis=axis)

    def matrix_transpose(self, array):
        return array.swapaxes(-1, -2)

    def scatter_add(self, target, index, values):
        import cupyx

        cupyx.scatter_add(target, index, values)

    def bincount(self, indices, length):
        return self.cupy.bincount(indices.reshape(-1), minlength=length)[:length]

    def into(self, out, function, *args):
        getattr(self.cupy, function)(*args, out=out)

    def is_private(self, array):
        return array.base is None

    def writeable(self, array):
        return True


# Array API names that CuPy before v14 (which mirrors NumPy 2) spells the NumPy 1 way.
_STANDARD_NAMES = {
    "concat": lambda xp: xp.concatenate,
    "permute_dims": lambda xp: xp.transpose,
    "astype": lambda xp: lambda x, dtype, /, *, copy=True: x.astype(dtype, copy=copy),
    "matrix_transpose": lambda xp: lambda x, /: x.swapaxes(-1, -2),
    "cumulative_prod": lambda xp: lambda x, /, *, axis=None: xp.cumprod(x, axis=axis),
    "cumulative_sum": lambda xp: lambda x, /, *, axis=None: xp.cumsum(x, axis=axis),
}


def _with_standard_names(xp):
    """`xp` itself if it has the array API names the engine uses, else a copy that adds them."""
    missing = [name for name in _STANDARD_NAMES if not hasattr(xp, name)]
    if not missing:
        return xp
    completed = types.ModuleType(xp.__name__, xp.__doc__)
    completed.__dict__.update({k: v for k, v in vars(xp).items() if not k.startswith("__")})
    for name in missing:
        setattr(completed, name, _STANDARD_NAMES[name](xp))
    return completed


CPU = None  # set below, once the device types are registered
_DEVICE_TYPES: dict = {}  # name -> DeviceType
_ARRAY_TYPES: dict = {}  # array class -> DeviceType (a library's, once loaded)


def register_device_type(device_type: DeviceType) -> None:
    """Make `Device(device_type.name)` usable; its arrays are recognised once it is loaded.

    For tests and new back ends; `cpu` and `cuda` are registered here. A library is imported
    only when its device is first used, so `import graphscope` never imports CuPy.
    """
    _DEVICE_TYPES[device_type.name] = device_type
    if device_type.xp is not None:
        for array_type in device_type.array_types():
            _ARRAY_TYPES[array_type] = device_type


def unregister_device_type(name: str) -> None:
    device_type = _DEVICE_TYPES.pop(name)
    for array_type, owner in list(_ARRAY_TYPES.items()):
        if owner is device_type:
            del _ARRAY_TYPES[array_type]


_NUMPY = NumpyCPU()
register_device_type(_NUMPY)
register_device_type(CupyCUDA())
CPU = Device("cpu")
_default_device = CPU


def device_type(device: Device) -> DeviceType:
    """The DeviceType serving `device`, loaded and checked (a clear error if it can't be used)."""
    kind = _DEVICE_TYPES[device.type]
    kind.check(device)
    return kind


def _type_of(array) -> DeviceType:
    kind = _ARRAY_TYPES.get(type(array))
    if kind is not None:
        return kind
    if isinstance(array, (np.ndarray, np.generic)):
        return _NUMPY
    for kind in _DEVICE_TYPES.values():  # a subclass, or CuPy's arrays before CuPy was loaded
        try:
            if kind.owns(array):
                _ARRAY_TYPES[type(array)] = kind
                return kind
        except RuntimeError:
            continue
    raise TypeError(f"{type(array).__module__}.{type(array).__name__} is not an array of any graphscope device")



# --- devices -----------------------------------------------------------------------------------


def namespace(array):
    """The array namespace (numpy, cupy, ...) that owns `array`: op code's `xp`."""
    if type(array) is _ndarray:
        return np
    return _type_of(array).xp


def is_array(value) -> bool:
    """Whether `value` is an array of a graphscope device (not a Python or NumPy scalar)."""
    kind = type(value)
    if kind is _ndarray or kind in _ARRAY_TYPES:
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


def as_device(device) -> Device:
    """Normalise None / str / int / Device to a Device (None means the default device)."""
    if device is None:
        return _default_device
    if isinstance(device, Device):
        return device
    if isinstance(device, int) and not isinstance(device, bool):
        return Device("cuda", device)  # torch reads a bare index as a CUDA device
    return Device(device)


def set_default_device(device) -> None:
    """Make tensors created without `device=` live on `device` (as torch.set_default_device)."""
    global _default_device
    device = CPU if device is None else as_device(device)
    device_type(device)  # fail now, not at the first tensor, if the device can't be used
    _default_device = device


def get_default_device() -> Device:
    return _default_device


def xp_for(device):
    """The array namespace that serves `device` (loading its library, with a clear error if absent)."""
    return device_type(as_device(device)).load()


def create(device, function: str, *args, **kwargs):
    """xp.<function>(*args, **kwargs) with the result on `device` (a Device, str or None)."""
    device = as_device(device)
    if device.type == "cpu":
        return getattr(np, function)(*args, **kwargs)
    return device_type(device).create(device, function, *args, **kwargs)


def cuda_available() -> bool:
    return _DEVICE_TYPES["cuda"].device_count() > 0


def cuda_device_count() -> int:
    return _DEVICE_TYPES["cuda"].device_count()


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

_BY_NUMPY = dtypes._BY_NUMPY
_NUMPY_FLOATS = frozenset(d.numpy for d in _BY_NUMPY.values() if d.is_floating_point)


def dtype_of(array) -> dtypes.dtype:
    """The graphscope dtype of a device array."""
    if type(array) is _ndarray:
        return _BY_NUMPY[array.dtype]
    return _type_of(array).dtype_of(array.dtype)


_NAMES: dict = {}


def dtype_name(array) -> str:
    """The name of an array's dtype ("float32", "int64"), as NumPy spells it."""
    if type(array) is _ndarray:
        name = _NAMES.get(array.dtype)
        if name is None:  # NumPy builds the name in Python on every access
            name = _NAMES[array.dtype] = array.dtype.name
        return name
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
        return array.dtype in _NUMPY_FLOATS
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
    """xp.sum; NumPy's method skips np.sum's Python-level dispatch."""
    if type(array) is _ndarray:
        return array.sum(axis=axis, keepdims=keepdims, dtype=dtype)
    return _type_of(array).xp.sum(array, axis=axis, keepdims=keepdims, dtype=dtype)


def fill(shape, value):
    """An array of `shape` holding the 0-d array `value` everywhere (off the CPU, a broadcast view)."""
    if type(value) is _ndarray or isinstance(value, np.generic):
        return np.full(shape, value, dtype=value.dtype)
    return _type_of(value).xp.broadcast_to(value, shape)


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
    """`values` where the bool array `mask` holds, else 0 (NumPy: a multiply by the mask)."""
    if type(values) is _ndarray:
        return values * mask
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
            except (TypeError, ValueError):
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
    return memoryview(host.reshape(-1)).cast("B")


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
