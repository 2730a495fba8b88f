"""Work buffers reused from call to call, one set per thread: a large fresh temporary costs its page faults."""

from __future__ import annotations

import threading

import numpy as np
from numpy.typing import DTypeLike

KEEP = 1 << 18  # elements a buffer may keep between calls

_buffers = threading.local()


def scratch(name: str, dtype: DTypeLike, size: int, keep: int = KEEP) -> np.ndarray:
    """A work buffer of `size` elements of `dtype`, this thread's own, reused from call to call (kept
    up to `keep` elements): what it holds is the caller's until the next call for the same name."""
    held: dict[tuple[str, np.dtype], np.ndarray] | None = getattr(_buffers, "held", None)
    if held is None:
        held = _buffers.held = {}
    key = (name, np.dtype(dtype))
    buffer = held.get(key)
    if buffer is None or buffer.size < size:
        buffer = np.empty(size, dtype=dtype)
        if size > keep:
            return buffer
        held[key] = buffer
    return buffer[:size]
