"""Statistics a snapshot leaves out (version 8 on): those of a tensor whose every value it holds, derived
from the values when read, bit for bit as recorded.

The recorder summarises small float arrays in batches whose figures each depend on the array's values
alone (`stats.batched.batch_figures`); the writer derives them again from the values and leaves out a row's
statistics and histogram only where the two agree in every bit, so a reader deriving them gets what was
recorded. A record of small tensors kept whole (a long chain) is then a third of the size, and a reader
derives only the rows it shows."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..record.summary_table import FULL, SummaryTable, index_ranges, whole
from ..record.tensor_summary import HISTOGRAM_BINS
from ..stats.batched import batch_figures, sums_of_squares
from ..stats.summarize import BATCH_LIMIT

DERIVED_DTYPES = ("float16", "float32", "float64")  # those the recorder summarises in batches


def derivable(table: SummaryTable) -> NDArray[np.bool_]:
    """Per row: whether its statistics may be derived from its values (every value held, a float
    dtype, all finite, at most a batch's size), whatever they are."""
    floats = np.array([name in DERIVED_DTYPES for name in table.dtypes], dtype=bool)  # by dtype index
    rows: NDArray[np.bool_] = (
        (table.held == FULL)
        & floats[table.dtype]
        & (table.nan == 0)
        & (table.inf == 0)
        & (table.numel > 0)
        & (table.numel <= BATCH_LIMIT)
    )
    return rows


def figures(table: SummaryTable, rows: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """(statistics [rows, 6] as the `stats` column holds them, histogram counts [rows, 16]) of these
    rows (each `derivable`), derived from their values, a batch per dtype."""
    stats = np.zeros((len(rows), 6), dtype=np.float64)
    counts = np.zeros((len(rows), HISTOGRAM_BINS), dtype=np.intp)
    kinds = table.dtype[rows]
    for kind in np.unique(kinds).tolist():
        mine = kinds == kind
        stats[mine], counts[mine] = _batch(table, rows[mine], table.dtypes[kind])
    return stats, counts


def _batch(table: SummaryTable, rows: NDArray[np.int64], dtype: str) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """`figures` of rows of one dtype, as the recorder's batch reduced them."""
    sizes = table.numel[rows].astype(np.intp)
    starts = np.zeros(len(rows), dtype=np.intp)
    np.cumsum(sizes[:-1], out=starts[1:])
    pool = table.pools[dtype]  # a float dtype is its own host dtype
    first = table.start[rows]
    begin, end = int(first.min()), int((first + sizes).max())
    if end - begin <= 4 * int(sizes.sum()):  # rows near each other (a block a reader shows): their run decoded
        flat = pool[begin:end][index_ranges(first - begin, sizes)]
    else:
        flat = whole(pool)[index_ranges(first, sizes)]
    flat = flat.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # values whose squares overflow: a writer keeps their figures
        lows, highs, means, stds, norms, fractions, counts = batch_figures(
            flat,
            sizes,
            starts,
            np.repeat(np.arange(0, len(rows) * HISTOGRAM_BINS, HISTOGRAM_BINS, dtype=np.intp), sizes),
            sums_of_squares(flat, starts),
        )
    stds[sizes == 1] = np.nan  # one value has no sample std
    return np.stack([lows, highs, means, stds, norms, fractions], axis=1), counts


def agreeing(table: SummaryTable) -> NDArray[np.bool_]:
    """Per row: whether its recorded statistics and histogram are, bit for bit, those `figures` derives
    (what a writer may leave out)."""
    rows = np.flatnonzero(derivable(table))
    same = np.zeros(len(table), dtype=bool)
    if len(rows):
        stats, counts = figures(table, rows)
        recorded = np.ascontiguousarray(table.stats[rows])
        same[rows] = (stats.view(np.int64) == recorded.view(np.int64)).all(axis=1) & (
            counts == table.histogram[rows]
        ).all(axis=1)
    return same
