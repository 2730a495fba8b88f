"""Summaries of a batch of small finite float arrays held as the batch's columns, a row made a
TensorSummary only when read: what recording stores for a node's output, with no object per array
but a `SummaryRow` handle until the rows are packed into a table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import cast, final

import numpy as np
from numpy.typing import NDArray

from .summary_table import DROPPED, FULL, PREVIEW, STAT_FIELDS, SummaryTable, index_ranges
from .tensor_summary import PREVIEW_SIZE, TensorSummary, host_dtype


@dataclass(eq=False, slots=True)
class BatchColumns:
    """The statistics of a batch of finite float arrays of one dtype, per array (all lists but the
    histogram rows): their values are `flat[start:start + size]` (read-only), kept in full up to
    `limit` elements, else the first PREVIEW_SIZE."""

    flat: NDArray[np.floating]
    dtype: str
    limit: int
    shapes: list[tuple[int, ...]]
    sizes: list[int]
    starts: list[int]
    lows: list[float]
    highs: list[float]
    means: list[float]
    stds: list[float]
    norms: list[float]
    zero_fractions: list[float]
    histogram: NDArray[np.int64]  # [arrays, 16], read-only

    def summary(self, k: int) -> TensorSummary:
        """Array k's summary (its preview and values views of `flat`)."""
        return self.summaries([k])[0]

    def summaries(self, ks: list[int]) -> list[TensorSummary]:
        """The summaries of arrays `ks` (their previews and values views of `flat`)."""
        flat, limit, name = self.flat, self.limit, self.dtype
        shapes, sizes, starts, histogram = self.shapes, self.sizes, self.starts, self.histogram
        lows, highs, means, stds, norms, zeros = (
            self.lows,
            self.highs,
            self.means,
            self.stds,
            self.norms,
            self.zero_fractions,
        )
        out = []
        for k in ks:
            n, start, shape = sizes[k], starts[k], shapes[k]
            view = flat[start : start + n]
            out.append(
                TensorSummary(
                    shape,
                    name,
                    "cpu",
                    n,
                    lows[k],
                    highs[k],
                    means[k],
                    stds[k] if n > 1 else None,
                    norms[k],
                    0,
                    0,
                    zeros[k],
                    histogram[k],
                    view if n <= PREVIEW_SIZE else view[:PREVIEW_SIZE],
                    None if n > limit else view if len(shape) == 1 else view.reshape(shape),
                )
            )
        return out

    def held(self, k: int) -> int:
        """How many of array k's values a summary holds (every one, or its preview)."""
        n = self.sizes[k]
        return n if n <= self.limit else min(n, PREVIEW_SIZE)


@final
class SummaryRow:
    """Row k of a BatchColumns, standing for its TensorSummary (made when first read): the few
    fields recording asks of a summary are answered from the columns."""

    __slots__ = ("_dropped", "_made", "columns", "k")

    # A batch's arrays are finite and on the host (arrays with a NaN or Inf are summarised apart).
    device = "cpu"
    nan_count = 0
    inf_count = 0
    has_nonfinite = False

    def __init__(self, columns: BatchColumns, k: int) -> None:
        self.columns, self.k = columns, k
        self._dropped = False
        self._made: TensorSummary | None = None  # once read: then it answers for the row

    def summary(self) -> TensorSummary:
        """The row as a TensorSummary (made once)."""
        made = self._made
        if made is None:
            made = self._made = self.columns.summary(self.k)
            if self._dropped:
                made.drop_values()
        return made

    @property
    def dtype(self) -> str:
        return self.columns.dtype

    @property
    def dropped(self) -> bool:
        """Whether the memory budget took its preview and values away."""
        return self._dropped if self._made is None else self._made.dropped

    @property
    def captured_bytes(self) -> int:
        """Host bytes its preview and values hold (what the memory budget counts)."""
        if self._made is not None:
            return self._made.captured_bytes
        return 0 if self._dropped else self.columns.held(self.k) * self.columns.flat.itemsize

    def drop_values(self) -> int:
        """Let go of the preview and full values (the memory budget is spent); bytes freed."""
        if self._made is not None:
            return self._made.drop_values()
        freed = self.captured_bytes
        self._dropped = True
        return freed


# What recording holds for a summary: the summary, or a row of its batch's columns standing for it.
AnySummary = TensorSummary | SummaryRow


def packed(items: Sequence[AnySummary]) -> SummaryTable:
    """Summaries as a table, as `SummaryTable.from_summaries` makes of them: the rows of a batch's
    columns are taken from the columns (with no TensorSummary made), the others from the objects."""
    positions = [k for k, s in enumerate(items) if type(s) is SummaryRow]
    if not positions:
        return SummaryTable.from_summaries(cast("Sequence[TensorSummary]", items))
    rows = cast("list[SummaryRow]", [items[k] for k in positions])
    groups: dict[int, tuple[BatchColumns, list[int], list[int]]] = {}  # id(columns) -> (them, rows, items)
    for k, r in zip(positions, rows):
        group = groups.get(id(r.columns))
        if group is None:
            group = groups[id(r.columns)] = (r.columns, [], [])
        group[1].append(r.k)
        group[2].append(k)
    parts: list[SummaryTable] = []
    order: list[int] = []  # the item each part's row is, the parts one after another
    if len(positions) < len(items):
        mine = set(positions)
        others = [k for k in range(len(items)) if k not in mine]
        parts.append(SummaryTable.from_summaries(cast("list[TensorSummary]", [items[k] for k in others])))
        order += others
    dropped = dict(zip(positions, (r.dropped for r in rows)))
    for columns, ks, where in groups.values():
        parts.append(_table_of(columns, ks, [dropped[k] for k in where]))
        order += where
    table = SummaryTable.concat_all(parts).take(np.argsort(np.array(order, dtype=np.int64), kind="stable"))
    # dtypes and devices numbered as from_summaries numbers them: in the order the items first have them
    return _renamed(table, list(dict.fromkeys(s.dtype for s in items)), list(dict.fromkeys(s.device for s in items)))


def _table_of(columns: BatchColumns, ks: list[int], dropped: list[bool]) -> SummaryTable:
    """Rows `ks` of a batch's columns as a table (their values copied into the pool)."""
    n = len(ks)
    picked = np.array(ks, dtype=np.int64)
    numel = np.array(columns.sizes, dtype=np.int64)[picked]
    shapes = [columns.shapes[k] for k in ks]
    dims_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, shapes), np.int64, n), out=dims_start[1:])
    dims = np.fromiter(chain.from_iterable(shapes), np.int64, int(dims_start[-1]))
    c = columns
    stats = np.array([c.lows, c.highs, c.means, c.stds, c.norms, c.zero_fractions], dtype=np.float64).T[picked]
    stats[numel == 1, STAT_FIELDS.index("std")] = np.nan  # no sample std of one value
    held = np.where(np.array(dropped, dtype=bool), DROPPED, np.where(numel <= c.limit, FULL, PREVIEW)).astype(np.uint8)
    counts = c.histogram[picked]
    histogram = counts.astype(np.uint32) if not counts.size or int(counts.max()) < 2**32 else counts
    dtype = np.zeros(n, dtype=np.int32)
    host = host_dtype(c.dtype).name
    start, _ = SummaryTable.starts(held, numel, dtype, [host])
    taken = np.where(held == FULL, numel, np.where(held == DROPPED, 0, np.minimum(numel, PREVIEW_SIZE)))
    pool = c.flat[index_ranges(np.array(c.starts, dtype=np.int64)[picked], taken)].astype(host, copy=False)
    pool.flags.writeable = False
    zeros = np.zeros(n, dtype=np.int64)
    return SummaryTable(
        dims_start,
        dims,
        numel,
        dtype,
        [c.dtype],
        dtype.copy(),
        ["cpu"],
        stats,
        {},
        zeros,
        zeros.copy(),
        histogram,
        held,
        start,
        {host: pool},
    )


def _renamed(table: SummaryTable, dtypes: list[str], devices: list[str]) -> SummaryTable:
    """The table's rows with their dtypes and devices numbered in these orders (each holding the
    table's names)."""
    if dtypes == table.dtypes and devices == table.devices:
        return table
    t = table
    dtype = np.array([dtypes.index(d) for d in t.dtypes] or [0], dtype=np.int32)[t.dtype]
    device = np.array([devices.index(d) for d in t.devices] or [0], dtype=np.int32)[t.device]
    return SummaryTable(
        t.dims_start,
        t.dims,
        t.numel,
        dtype,
        dtypes,
        device,
        devices,
        t.stats,
        t.exact,
        t.nan,
        t.inf,
        t.histogram,
        t.held,
        t.start,
        t.pools,
    )
