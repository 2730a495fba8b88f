"""torch.accelerator: which accelerator the engine can use (CUDA through CuPy, or none)."""

from __future__ import annotations

from . import backend


def is_available() -> bool:
    """Whether a CUDA GPU is usable (CuPy installed and a device visible)."""
    return backend.cuda_available()


def current_accelerator(check_available: bool = False):
    """device('cuda') when a GPU is usable, else None (graphscope knows no other accelerator)."""
    return backend.Device("cuda") if backend.cuda_available() else None


def device_count() -> int:
    return backend.cuda_device_count() if backend.cuda_available() else 0


def current_device_index() -> int:
    """The accelerator device that tensors go to by default: 0 (or -1 without one)."""
    return 0 if backend.cuda_available() else -1
