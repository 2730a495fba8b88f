"""Dim arguments as torch reads them: negative dims, tuples of dims, and its out-of-range error."""

from __future__ import annotations

import numpy as np


def dims(dim, ndim: int):
    """Normalise a `dim` argument (None, int, or tuple) to a tuple of axes, or None for all."""
    if dim is None or ndim == 0:
        if dim is not None:
            for d in dim if isinstance(dim, (tuple, list)) else (dim,):
                normalize_dim(d, 0)  # a 0-d tensor accepts dim 0 or -1, as PyTorch
        return None
    if isinstance(dim, (tuple, list)):
        if len(dim) == 0:
            return None
        return tuple(sorted(normalize_dim(d, ndim) for d in dim))
    return (normalize_dim(dim, ndim),)


def normalize_dim(dim, ndim: int, extra: int = 0) -> int:
    """A non-negative axis for `dim`, or an IndexError saying the valid range."""
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    size = max(ndim + extra, 1)
    if not -size <= dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], but got {dim})")
    return int(dim) % size
