"""A test-only device, `strict`, whose arrays are array-api-strict's: the GPU stand-in for CI.

array-api-strict implements the array API standard and nothing else: no NumPy-only functions
or methods (`x.reshape`, `np.add.at`, `x.copy()`), no mixed-kind promotion, no implicit
conversion to NumPy. Its arrays live on a non-CPU device ('device1'), so `np.asarray(x)` raises,
as it does for a CuPy array, and arrays created without `device=` land on another device and
refuse to mix. An engine that runs its test suite here uses only what `engine/backend` provides
per device type, which is what lets the same code run on CuPy.

What the standard can't express is emulated here through the host (NumPy), as the `cuda`
device type does natively with CuPy: advanced-index reads and writes, scatter-add, random numbers.

    from tests.engine import strict_device; strict_device.register()     # then gs.tensor(..., device="strict")
"""

from __future__ import annotations

import array_api_strict as xps
import numpy as np

from graphscope.engine import backend, dtypes

NAME = "strict"
_NATIVE = xps.Device("device1")  # not array-api-strict's CPU device: no implicit host access
_HOST = xps.Device("CPU_DEVICE")
_ARRAY = type(xps.asarray(0))
_NATIVE_DTYPES = {d: getattr(xps, d.name) for d in dtypes.BY_NUMPY.values() if hasattr(xps, d.name)}
_BY_NATIVE = {native: d for d, native in _NATIVE_DTYPES.items()}


class StrictDevice(backend.DeviceType):
    """`strict`: array-api-strict arrays, one device."""

    name = NAME
    xp = xps

    def load(self):
        return xps

    def array_types(self):
        return (_ARRAY,)

    def device_count(self):
        return 1

    def device_of(self, array):
        return backend.Device(NAME, 0)

    def from_host(self, host, device):
        return xps.asarray(np.array(host, copy=True, order="C"), device=_NATIVE, copy=True)

    def to_host(self, array):
        return np.asarray(array.to_device(_HOST))

    def create(self, device, function, *args, **kwargs):
        return getattr(xps, function)(*args, device=_NATIVE, **kwargs)

    def native_dtype(self, dtype):
        try:
            return _NATIVE_DTYPES[dtype]
        except KeyError:
            raise TypeError(f"the {NAME} test device has no {dtype.name} (array-api-strict lacks it)") from None

    def dtype_of(self, native):
        return _BY_NATIVE[native]

    def generator(self, seed, device):
        return _HostGenerator(np.random.default_rng(seed), self)

    # Advanced indexing beyond the standard's: emulated through the host.

    def take(self, array, index):
        try:
            return array[index]  # what the standard allows (integer arrays only, one per axis)
        except IndexError:
            return self.from_host(self.to_host(array)[_host_index(self, index)], None)

    def put(self, array, index, values):
        host = self.to_host(array).copy()
        host[_host_index(self, index)] = self.to_host(values) if backend.is_array(values) else values
        array[...] = self.from_host(host, None)


def _host_index(device_type, index):
    if not isinstance(index, tuple):
        return device_type.to_host(index) if backend.is_array(index) else index
    return tuple(device_type.to_host(part) if backend.is_array(part) else part for part in index)


class _HostGenerator:
    """NumPy's Generator, its draws copied to the strict device (what CuPy's does on the GPU)."""

    def __init__(self, rng, device_type):
        self.rng, self.device_type = rng, device_type

    def standard_normal(self, shape, dtype):
        return self.device_type.from_host(self.rng.standard_normal(shape, dtype=dtype), None)

    def random(self, shape, dtype):
        return self.device_type.from_host(self.rng.random(shape, dtype=dtype), None)

    def integers(self, low, high, size, dtype):
        return self.device_type.from_host(self.rng.integers(low, high, size=size, dtype=dtype), None)

    def permutation(self, n):
        return self.device_type.from_host(self.rng.permutation(n), None)

    def poisson(self, rates):
        return self.device_type.from_host(self.rng.poisson(self.device_type.to_host(rates)), None)

    @property
    def bit_generator(self):  # its state is the host generator's (Generator.get_state)
        return self.rng.bit_generator


def register() -> None:
    """Make `device="strict"` usable (idempotent)."""
    if NAME not in backend.DEVICE_TYPES:
        backend.register_device_type(StrictDevice())
