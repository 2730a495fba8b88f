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

from ..record.summary_table import FULL, SummaryTable
from ..stats.batched import derived_figures
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


def agreeing(table: SummaryTable) -> NDArray[np.bool_]:
    """Per row: whether its recorded statistics and histogram are, bit for bit, those `derived_figures` derives
    (what a writer may leave out)."""
    rows = np.flatnonzero(derivable(table))
    same = np.zeros(len(table), dtype=bool)
    if len(rows):
        stats, counts = derived_figures(table, rows)
        recorded = np.ascontiguousarray(table.stats[rows])
        same[rows] = (stats.view(np.int64) == recorded.view(np.int64)).all(axis=1) & (
            counts == table.histogram[rows]
        ).all(axis=1)
    return same
