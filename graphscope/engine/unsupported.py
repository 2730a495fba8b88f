"""UnsupportedTorchName: the one error for a PyTorch name graphscope lacks (engine and session raise it)."""

from __future__ import annotations

# Where a user finds what is supported; the list there is generated (graphscope/session/api_list.py).
README_POINTER = "see \"The engine's API\" in graphscope's README for the supported names"


class UnsupportedTorchName(AttributeError):
    """A PyTorch name the engine does not have (an AttributeError, so hasattr() still works)."""


def unsupported(torch_name: str) -> UnsupportedTorchName:
    """The error for `torch_name` (e.g. `torch.fft`, `torch.sum(foo=...)`), ready to raise."""
    return UnsupportedTorchName(
        f"{torch_name} is not supported by graphscope yet (this script runs on "
        f"graphscope's engine because of --as-torch); {README_POINTER}"
    )


class UnsupportedTorchModule(ModuleNotFoundError):
    """`import torch.X` of a module graphscope lacks: an ImportError, so `except ImportError` still works.

    Left uncaught, the session restates it as an UnsupportedTorchName, like every other missing name.
    """
