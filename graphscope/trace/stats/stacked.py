"""Host arrays reduced together as the rows of one 2-D array, in runs of bounded size.

Stacking many small arrays saves NumPy calls per array; stacking a large one only copies it, so a
large array is a run of its own, reduced through a view. A row's reduction is the same whether it
is reduced alone or in a stack: the figures do not depend on the runs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from .scratch import scratch

STACKED = 1 << 16  # elements in a run at most (a larger array is a run of its own)


def runs(arrays: Sequence[np.ndarray], same: bool = False) -> Iterator[slice]:
    """Consecutive runs of `arrays`, each of one shape and dtype and at most `STACKED` elements
    together (a larger array alone). `same`: the caller knows they all have one shape and dtype
    (it grouped them), so the runs are cut by count alone, without looking at each array."""
    if same and arrays:
        size = arrays[0].size
        step = max(1, STACKED // size) if size else len(arrays)
        for start in range(0, len(arrays), step):
            yield slice(start, min(start + step, len(arrays)))
        return
    start, total, shape, dtype = 0, 0, (), None
    for i, a in enumerate(arrays):
        if i > start and (total + a.size > STACKED or a.shape != shape or a.dtype != dtype):
            yield slice(start, i)
            start, total = i, 0
        if i == start:
            shape, dtype = a.shape, a.dtype
        total += a.size
    if arrays:
        yield slice(start, len(arrays))


def rows(arrays: Sequence[np.ndarray], name: str) -> np.ndarray:
    """Arrays of one shape and dtype flattened into the rows of a 2-D array: a view of one alone
    (when it is contiguous), else their stack in this thread's scratch buffer `name`."""
    k, first = len(arrays), arrays[0]
    if k == 1:
        return first.reshape(1, -1)
    out = scratch(name, first.dtype, k * first.size)
    if first.ndim:  # joined along their first axis: a stack's bytes, in a third of np.stack's time
        np.concatenate(arrays, out=out.reshape(k * first.shape[0], *first.shape[1:]))
    else:
        np.stack(arrays, out=out)
    return out.reshape(k, -1)
