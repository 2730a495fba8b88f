"""The device model: `Device` as PyTorch names devices, and the default device for new tensors."""

from __future__ import annotations

from .registry import DEVICE_TYPES, device_type


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
        if kind not in DEVICE_TYPES:
            names = " and ".join(repr(name) for name in DEVICE_TYPES)
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


# The built-in device types register themselves, and the cpu back end makes the cpu Device: both
# need `Device`, and Device("cpu") needs 'cpu' registered, hence these imports here.
from . import cupy_cuda  # noqa: E402, F401 (registers 'cuda' on import; needs Device, see above)
from .numpy_cpu import CPU  # noqa: E402 (needs Device and 'cpu' registered, see above)

_default_device = CPU


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


def cuda_available() -> bool:
    return DEVICE_TYPES["cuda"].device_count() > 0


def cuda_device_count() -> int:
    return DEVICE_TYPES["cuda"].device_count()
