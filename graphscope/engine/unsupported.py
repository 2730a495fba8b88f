"""UnsupportedTorchName: the one error for a PyTorch name graphscope lacks (raised by the engine and the session)."""

from __future__ import annotations

# Where a user finds what is supported; the list there is generated (graphscope/session/api_list.py).
README_POINTER = "see \"The engine's API\" in graphscope's README for the supported names"


class UnsupportedTorchName(AttributeError):
    """A PyTorch name the engine does not have (an AttributeError, so hasattr() still works)."""


class TorchNames:
    """Whether the running script imported graphscope as `torch` (set by --as-torch for its run).

    Errors then name what the script wrote (`torch.Tensor.stft`) rather than graphscope's classes.
    """

    active = False


def unsupported(torch_name: str, detail: str = "") -> UnsupportedTorchName:
    """The error for `torch_name` (e.g. `torch.fft`, `torch.sum(foo=...)`), ready to raise."""
    return UnsupportedTorchName(
        f"{torch_name} is not supported by graphscope yet{detail} (this script runs on "
        f"graphscope's engine because of --as-torch); {README_POINTER}")


def missing_attribute(obj, name: str, torch_class: str) -> AttributeError:
    """The error for `obj.name` once normal lookup failed (called from `__getattr__`, so free otherwise).

    Under --as-torch a public name is an UnsupportedTorchName naming `torch_class.name`; otherwise,
    or for a private name, Python's own AttributeError (with its "Did you mean" hints).
    """
    if hasattr(type(obj), name):
        # A property or slot that exists but raised AttributeError itself: surface that error.
        object.__getattribute__(obj, name)
    if TorchNames.active and not name.startswith("_"):
        error = unsupported(f"{torch_class}.{name}")
        error.name = name
        return error
    return AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'", name=name, obj=obj)


class UnsupportedTorchModule(ModuleNotFoundError):
    """`import torch.X` of a module graphscope lacks: an ImportError, so `except ImportError` still works.

    Left uncaught, the session restates it as an UnsupportedTorchName, like every other missing name.
    """
