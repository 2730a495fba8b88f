"""The library name that reprs print: `graphscope`, or `torch` while a script runs with --as-torch."""

from __future__ import annotations

_library = "graphscope"


def library() -> str:
    """The prefix of printed names such as `graphscope.float32` and `graphscope.Size([3, 4])`."""
    return _library


def set_library(name: str) -> str:
    """Print names under `name` from now on; returns the previous name (to restore it)."""
    global _library
    previous, _library = _library, name
    return previous
