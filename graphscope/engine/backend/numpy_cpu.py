"""The `cpu` device type: NumPy arrays, and the cpu Device itself."""

from __future__ import annotations

import numpy as np

from .device import Device
from .registry import DeviceType, register_device_type

_NAMES: dict = {}  # NumPy dtype -> its name


def numpy_dtype_name(dtype) -> str:
    """A NumPy dtype's name ("float32"), cached: NumPy builds it in Python on every access."""
    name = _NAMES.get(dtype)
    if name is None:
        name = _NAMES[dtype] = np.dtype(dtype).name
    return name


def keep_where(values, mask):
    """`values` where `mask` holds, else 0, as torch's where: multiplying by the mask is 4x faster
    than np.where, and only a product that is not finite (a NaN or inf was masked out, 0 * inf) is
    made again with np.where."""
    kept = values * mask
    if kept.dtype.kind in "fc" and not np.isfinite(_add_reduce(kept, axis=None)):
        return np.where(mask, values, kept.dtype.type(0))
    return kept


_add_reduce = np.add.reduce


class NumpyDtypes:
    """dtype kinds and names for a library whose dtypes are NumPy's (NumPy, CuPy)."""

    def dtype_kind(self, native):
        return np.dtype(native).kind

    def dtype_name(self, native):
        return numpy_dtype_name(native)


class NumpyCPU(NumpyDtypes, DeviceType):
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

    def keep(self, values, mask):
        return keep_where(values, mask)

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


NUMPY_CPU = NumpyCPU()
register_device_type(NUMPY_CPU)
CPU = Device("cpu")
