"""The `cuda` device type: CuPy arrays, imported only when a cuda device is first used."""

from __future__ import annotations

import types

import numpy as np

from .device import Device
from .numpy_cpu import NumpyDtypes
from .registry import ARRAY_TYPES, DeviceType, register_device_type

_INSTALL_GPU = "pip install 'graphscope[gpu]'"


class CupyCUDA(NumpyDtypes, DeviceType):
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
        except Exception as error:  # noqa: BLE001 (CuPy's errors for a missing or broken CUDA driver vary: any means no GPU)
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
        ARRAY_TYPES[cupy.ndarray] = self
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
            raise RuntimeError(
                f"invalid RNG state for a cuda Generator: expected {target.nbytes} bytes, "
                f"got {state.nbytes}; pass a state that Generator.get_state() returned"
            )
        target[...] = self.cupy.asarray(np.ascontiguousarray(state).view(target.dtype))

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


register_device_type(CupyCUDA())
