"""The device types (one per kind of device: cpu, cuda, a test's) and which one owns an array.

A `DeviceType` names a kind of device's array namespace and supplies what the array API
standard lacks; the defaults here use the standard alone, so a new kind overrides only what its
library does better. `register_device_type` makes its name usable in `Device(...)`.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes

if TYPE_CHECKING:
    from .device import Device


class DeviceType:
    """One kind of device (`cpu`, `cuda`, ...): its array namespace and what the standard lacks.

    The defaults below use the array API standard alone (slowly where the standard has no
    counterpart), so a new kind needs `load`, `device_of`, host copies, `create`, its dtypes and
    a generator; NumPy and CuPy override what they do natively.
    """

    name = "?"
    xp: Any = None  # the array namespace (a module with no common static type), set by load()
    _kinds: Mapping[object, str] = {}  # native dtype -> kind letter (rebuilt, never mutated: types share the default)

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
            raise RuntimeError(
                f"invalid RNG state for a {self.name} Generator ({error}); "
                "pass a state that Generator.get_state() returned"
            ) from None

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
        """`values` where `mask` holds, else 0 (a NaN or inf outside the mask too, as torch)."""
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
        np.add.at(host, _host_index(self, index), self.to_host(values) if self.owns(values) else values)
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


_KINDS = (
    ("f", "real floating"),
    ("b", "bool"),
    ("i", "signed integer"),
    ("u", "unsigned integer"),
    ("c", "complex floating"),
)

_IN_PLACE = {"add": operator.iadd, "subtract": operator.isub, "multiply": operator.imul, "divide": operator.itruediv}


def _host_index(device_type, index):
    if not isinstance(index, tuple):
        return device_type.to_host(index) if device_type.owns(index) else index
    return tuple(device_type.to_host(part) if device_type.owns(part) else part for part in index)


DEVICE_TYPES: dict = {}  # name -> DeviceType
ARRAY_TYPES: dict = {}  # array class -> DeviceType (a library's, once loaded)


def register_device_type(device_type: DeviceType) -> None:
    """Make `Device(device_type.name)` usable; its arrays are recognised once it is loaded.

    For tests and new back ends; `cpu` and `cuda` register themselves (numpy_cpu, cupy_cuda). A library is imported
    only when its device is first used, so `import graphscope` never imports CuPy.
    """
    DEVICE_TYPES[device_type.name] = device_type
    if device_type.xp is not None:
        for array_type in device_type.array_types():
            ARRAY_TYPES[array_type] = device_type


def device_type(device: Device) -> DeviceType:
    """The DeviceType serving `device`, loaded and checked (a clear error if it can't be used)."""
    kind = DEVICE_TYPES[device.type]
    kind.check(device)
    return kind


def type_of(array) -> DeviceType:
    """The DeviceType whose array `array` is (a TypeError if none)."""
    kind = ARRAY_TYPES.get(type(array))
    if kind is not None:
        return kind
    if isinstance(array, (np.ndarray, np.generic)):
        return DEVICE_TYPES["cpu"]
    for kind in DEVICE_TYPES.values():  # a subclass, or CuPy's arrays before CuPy was loaded
        try:
            if kind.owns(array):
                ARRAY_TYPES[type(array)] = kind
                return kind
        except RuntimeError:
            continue
    raise TypeError(f"{type(array).__module__}.{type(array).__name__} is not an array of any graphscope device")
