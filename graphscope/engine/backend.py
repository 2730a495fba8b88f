"""Devices and their array modules: NumPy for `cpu`, CuPy for `cuda`, chosen here and nowhere else."""

from __future__ import annotations

import numpy as np

_ndarray = np.ndarray


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
        if kind not in ("cpu", "cuda"):
            raise RuntimeError(
                f"unknown device {spec!r}: graphscope supports 'cpu' and 'cuda' (or 'cuda:N')"
            )
        if number:
            if not number.isdigit():
                raise RuntimeError(f"invalid device {spec!r}: the index after ':' must be a number")
            index = int(number)
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
            other = Device(other)
        if not isinstance(other, Device):
            return NotImplemented
        return self.type == other.type and (self.index or 0) == (other.index or 0)

    def __hash__(self):
        return hash((self.type, self.index or 0))


CPU = Device("cpu")
_default_device = CPU


def namespace(array):
    """The array module (numpy or cupy) that owns `array`."""
    if type(array) is _ndarray:
        return np
    return _device_namespace(array)


def _device_namespace(array):
    if isinstance(array, (np.ndarray, np.generic)):
        return np
    return array.__array_namespace__()


def is_array(value) -> bool:
    """Whether `value` is a device array (not a Python scalar or other state)."""
    return type(value) is _ndarray or (
        hasattr(value, "__array_namespace__") and hasattr(value, "shape") and not isinstance(value, np.generic)
    )


def device_of(array) -> Device:
    """The Device an array lives on."""
    if type(array) is _ndarray or isinstance(array, (np.ndarray, np.generic)):
        return CPU
    return Device("cuda", int(array.device.id))


def as_device(device) -> Device:
    """Normalise None / str / Device to a Device (None means the default device)."""
    if device is None:
        return _default_device
    return device if isinstance(device, Device) else Device(device)


def set_default_device(device) -> None:
    """Make tensors created without `device=` live on `device` (as torch.set_default_device)."""
    global _default_device
    device = as_device(device)
    if device.type == "cuda":
        cuda_module()
    _default_device = device


def get_default_device() -> Device:
    return _default_device


def xp_for(device: Device):
    """The array module that serves `device`."""
    return np if device.type == "cpu" else cuda_module()


def cuda_module():
    """CuPy, or one clear error saying what is missing and how to get it."""
    try:
        import cupy
    except ImportError:
        raise RuntimeError(
            "CUDA was requested but CuPy is not installed. "
            "Install the GPU extra: pip install 'graphscope[gpu]'"
        ) from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:
        count = 0
    if count == 0:
        raise RuntimeError(
            "CUDA was requested but no CUDA GPU is visible to CuPy. "
            "Check `nvidia-smi` and CUDA_VISIBLE_DEVICES, or use device='cpu'."
        )
    return cupy


def to_device(array, device: Device):
    """Copy `array` to `device` (no copy when it is already there)."""
    if device_of(array) == device:
        return array
    if device.type == "cpu":
        return array.get()
    cupy = cuda_module()
    with cupy.cuda.Device(device.index or 0):
        return cupy.asarray(array)


def to_host(array):
    """A NumPy array with the values of `array` (no copy on the CPU)."""
    return array if type(array) is _ndarray else array.get()


def scatter_add(target, index, values) -> None:
    """target[index] += values, accumulating repeated indices (np.add.at / cupyx.scatter_add)."""
    if type(target) is _ndarray:
        np.add.at(target, index, values)
    else:
        import cupyx

        cupyx.scatter_add(target, index, values)


def same_device(a, b) -> bool:
    """Whether two arrays live on the same device."""
    if type(a) is type(b) is _ndarray:
        return True
    return device_of(a) == device_of(b)


def cuda_available() -> bool:
    try:
        cuda_module()
    except RuntimeError:
        return False
    return True


def cuda_device_count() -> int:
    try:
        return cuda_module().cuda.runtime.getDeviceCount()
    except RuntimeError:
        return 0
