"""SummaryTable: many tensor summaries held as columns, each made into a TensorSummary when read.

About 510 lines, past 450 on purpose: the ways a table is made (from summaries, taken, joined) and read (a
row, rows whose statistics are derived) all work on one layout of columns, which lives here once."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from itertools import chain
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .encoded_pool import EncodedPool
from .tensor_summary import (
    ARRAY_DTYPES,
    HISTOGRAM_BINS,
    NO_COUNTS,
    PREVIEW_SIZE,
    PendingFigures,
    TensorSummary,
    host_dtype,
)

# The float statistics of a row, the columns of `stats` (a snapshot writes them in this order too).
STAT_FIELDS = ("min", "max", "mean", "std", "norm", "zero_fraction")

# A summary's fields but its figures, in the order from_summaries reads them.
_FIELDS = operator.attrgetter(
    "dtype",
    "device",
    "shape",
    "numel",
    "nan_count",
    "inf_count",
    "values",
    "dropped",
    "preview",
    "pending",
)
# Its figures (a deferred summary's are read from its batch, not from it).
_FIGURES = operator.attrgetter(*STAT_FIELDS, "histogram")
_BATCH, _INDEX = operator.itemgetter(0), operator.itemgetter(1)  # of a deferred summary's `pending`

# A pool of values: an array, or a loaded snapshot's text (decoded where read).
Pool = NDArray[Any] | EncodedPool
# (statistics [k, 6], histograms [k, 16]) of k rows of a table, made from their values.
Derive = Callable[["SummaryTable", NDArray[np.int64]], tuple[NDArray[np.float64], NDArray[np.integer[Any]]]]

# Rows whose statistics are derived together when one of them is read (`SummaryTable.__getitem__`).
DERIVED_BLOCK = 512

# What a row holds of its values (the `held` column).
PREVIEW, FULL, DROPPED = 0, 1, 2

_NO_VALUES = np.zeros(0, dtype=np.float64)
_NO_VALUES.flags.writeable = False


class SummaryTable:
    """Tensor summaries as columns; `table[i]` is row i as a TensorSummary (a view: its preview,
    values and histogram are read-only slices of the columns, made when asked).

    Columns (one entry per row unless said):
      dims_start int64[n+1], dims int64   the shape: dims[dims_start[i]:dims_start[i+1]]
      numel int64                         elements
      dtype, device int32                 indices into `dtypes`, `devices`
      stats float64[n, 6]                 min, max, mean, std, norm, zero_fraction (NaN: None)
      exact                               {row: (min, max)} of integer tensors past 2**53
      nan, inf int64                      NaN and Inf counts
      histogram uint32 or int64[n, 16]    counts (all zero: no finite value)
      held uint8                          PREVIEW (first 64 values), FULL (every value), DROPPED
      start int64                         where its values begin in pools[its host dtype]
      pools {host dtype name: 1-D array}  previews and full values, one array per host dtype (a loaded
                                          snapshot's: an EncodedPool, a row's values decoded when read)
    """

    __slots__ = (
        "_derive",
        "_derived",
        "_histogram",
        "_hosts",
        "_rows",
        "_stats",
        "device",
        "devices",
        "dims",
        "dims_start",
        "dtype",
        "dtypes",
        "exact",
        "held",
        "inf",
        "nan",
        "numel",
        "pools",
        "start",
    )

    dims_start: NDArray[np.int64]
    dims: NDArray[np.int64]
    numel: NDArray[np.int64]
    dtype: NDArray[np.integer[Any]]
    dtypes: list[str]
    device: NDArray[np.integer[Any]]
    devices: list[str]
    _stats: NDArray[np.float64]
    exact: dict[int, tuple[int, int]]
    nan: NDArray[np.int64]
    inf: NDArray[np.int64]
    _histogram: NDArray[np.integer[Any]]
    held: NDArray[np.uint8]
    start: NDArray[np.int64]
    pools: dict[str, Pool]
    _hosts: list[tuple[str, bool]]
    _rows: tuple[NDArray[np.bool_], NDArray[np.bool_]] | None
    _derived: NDArray[np.bool_] | None
    _derive: Derive | None

    def __init__(
        self,
        dims_start: NDArray[np.int64],
        dims: NDArray[np.int64],
        numel: NDArray[np.int64],
        dtype: NDArray[np.integer[Any]],
        dtypes: list[str],
        device: NDArray[np.integer[Any]],
        devices: list[str],
        stats: NDArray[np.float64],
        exact: dict[int, tuple[int, int]],
        nan: NDArray[np.int64],
        inf: NDArray[np.int64],
        histogram: NDArray[np.integer[Any]],
        held: NDArray[np.uint8],
        start: NDArray[np.int64],
        pools: dict[str, Pool],
        derived: NDArray[np.bool_] | None = None,
        derive: Derive | None = None,
    ) -> None:
        """`derived`, with `derive`: the rows whose statistics and histogram (in `stats` and `histogram`,
        not yet filled) `derive` makes from their values, when first read."""
        self.dims_start, self.dims, self.numel = dims_start, dims, numel
        self.dtype, self.dtypes, self.device, self.devices = dtype, dtypes, device, devices
        self._stats, self.exact, self.nan, self.inf = stats, exact, nan, inf
        self._histogram, self.held, self.start, self.pools = histogram, held, start, pools
        self._hosts = [(host_dtype(d).name, (np.dtype(d).kind if d in ARRAY_DTYPES else "f") in "iub") for d in dtypes]
        self._rows = None  # per row, made once when a row is first read (`_row_facts`)
        self._derived = derived if derived is not None and derive is not None and derived.any() else None
        self._derive = derive

    @property
    def stats(self) -> NDArray[np.float64]:
        """float64 [n, 6]: min, max, mean, std, norm, zero_fraction (NaN: None), every row's."""
        self._fill_derived()
        return self._stats

    @property
    def histogram(self) -> NDArray[np.integer[Any]]:
        """Counts [n, 16] (all zero: no finite value), every row's."""
        self._fill_derived()
        return self._histogram

    def _fill_derived(self, rows: NDArray[np.int64] | None = None) -> None:
        """Derive the statistics of these rows (of every row still to derive when None), if still to."""
        derived = self._derived
        if derived is None or self._derive is None:
            return
        rows = np.flatnonzero(derived) if rows is None else rows[derived[rows]]
        if not len(rows):
            return
        stats, counts = self._derive(self, rows)
        self._stats[rows], self._histogram[rows] = stats, counts
        if self._rows is not None:  # the row facts made already
            self._rows[0][rows], self._rows[1][rows] = counts.any(axis=1), np.isnan(stats).any(axis=1)
        derived[rows] = False
        if not derived.any():
            self._derived = None

    def _row_facts(self) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
        """(per row: whether its histogram has counts, whether a statistic is missing), made once."""
        rows = self._rows
        if rows is None:
            # any(axis=1) of a 2-D array is an array (NumPy's stubs allow a scalar for any axis)
            rows = self._rows = cast(
                "tuple[NDArray[np.bool_], NDArray[np.bool_]]",
                (self._histogram.any(axis=1), np.isnan(self._stats).any(axis=1)),  # a row to derive is derived first
            )
        return rows

    def __len__(self) -> int:
        return len(self.numel)

    def __getitem__(self, i: int) -> TensorSummary:
        i = int(i)
        if not 0 <= i < len(self.numel):
            raise IndexError("summary row out of range")
        if self._derived is not None:  # its block of rows (a reader reads rows near each other)
            self._fill_derived(np.arange(i - i % DERIVED_BLOCK, min(i - i % DERIVED_BLOCK + DERIVED_BLOCK, len(self))))
        filled, missing = self._row_facts()
        a, b = self.dims_start[i : i + 2].tolist()
        shape = tuple(self.dims[a:b].tolist())
        numel = int(self.numel[i])
        d = int(self.dtype[i])
        host, integral = self._hosts[d]
        stats = self._stats[i].tolist()
        if missing[i]:
            stats = [None if math.isnan(v) else v for v in stats]
        lo, hi, mean, std, norm, zf = stats
        if integral and lo is not None:
            lo, hi = self.exact.get(i) or (int(lo), int(hi))
        if filled[i]:
            hist = self._histogram[i].astype(np.int64)
            hist.flags.writeable = False
        else:
            hist = NO_COUNTS
        held = int(self.held[i])
        values = None
        if held == FULL:
            values = self._slice(host, i, numel).reshape(shape)
            preview = values.reshape(-1)[:PREVIEW_SIZE]
        elif held == DROPPED:
            preview = _NO_VALUES
        else:
            preview = self._slice(host, i, min(numel, PREVIEW_SIZE))
        return TensorSummary(
            shape,
            self.dtypes[d],
            self.devices[int(self.device[i])],
            numel,
            lo,
            hi,
            mean,
            std,
            norm,
            int(self.nan[i]),
            int(self.inf[i]),
            zf,
            hist,
            preview,
            values,
            held == DROPPED,
        )

    def _slice(self, host: str, i: int, count: int) -> NDArray[Any]:
        if not count:
            empty = np.zeros(0, dtype=host)
            empty.flags.writeable = False
            return empty
        start = int(self.start[i])
        return self.pools[host][start : start + count]

    def nonfinite(self) -> NDArray[np.bool_]:
        """Per row: whether it holds a NaN or an Inf."""
        return (self.nan > 0) | (self.inf > 0)

    @staticmethod
    def starts(
        held: NDArray[np.uint8], numel: NDArray[np.int64], dtype: NDArray[np.integer[Any]], hosts: list[str]
    ) -> tuple[NDArray[np.int64], dict[str, int]]:
        """Where each row's values begin in its host dtype's pool (rows packed in order), and each
        pool's length: what a reader checks the pools against (so exact past int64, where a file's
        counts would wrap; the starts are then meaningless, and the reader refuses the file)."""
        counts = np.where(held == FULL, numel, np.where(held == DROPPED, 0, np.minimum(numel, PREVIEW_SIZE)))
        start = np.zeros(len(numel), dtype=np.int64)
        sizes = {}
        names = sorted(set(hosts))
        host_of = np.array([names.index(h) for h in hosts], dtype=np.int64)  # by dtype index
        for k, name in enumerate(names):
            rows = host_of[dtype] == k if len(names) > 1 else slice(None)  # (one: every row)
            c = counts[rows]
            start[rows] = np.cumsum(c) - c
            sizes[name] = int(c.sum()) if c.sum(dtype=np.float64) < 2.0**62 else int(c.sum(dtype=object))
        return start, sizes

    @classmethod
    def from_summaries(cls, items: list[TensorSummary]) -> SummaryTable:
        """The summaries as a table (their arrays copied into the pools)."""
        n = len(items)
        if n:  # each field across the items, read in one pass
            (
                dtype_names,
                device_names,
                shapes,
                numels,
                nans,
                infs,
                values,
                dropped,
                previews,
                pendings,
            ) = zip(*map(_FIELDS, items))
        else:
            dtype_names = device_names = shapes = numels = nans = infs = values = dropped = previews = pendings = ()
        dtypes = {d: i for i, d in enumerate(dict.fromkeys(dtype_names))}
        devices = {d: i for i, d in enumerate(dict.fromkeys(device_names))}
        dtype = np.fromiter(map(dtypes.__getitem__, dtype_names), np.int32, n)
        device = np.fromiter(map(devices.__getitem__, device_names), np.int32, n)
        dims_start = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, shapes), np.int64, n), out=dims_start[1:])
        dims = np.fromiter(chain.from_iterable(shapes), np.int64, int(dims_start[-1]))
        numel = np.fromiter(numels, np.int64, n)
        stats, exact, counts = _figures_of(items, pendings)
        nan = np.fromiter(nans, np.int64, n)
        inf = np.fromiter(infs, np.int64, n)
        histogram = counts.astype(np.uint32) if not counts.size or int(counts.max()) < 2**32 else counts
        held = np.fromiter(
            (FULL if v is not None else DROPPED if d else PREVIEW for v, d in zip(values, dropped)), np.uint8, n
        )
        names = list(dtypes)
        hosts = [host_dtype(d).name for d in names]
        start, sizes = cls.starts(held, numel, dtype, hosts)
        parts: dict[str, list[NDArray[Any]]] = {h: [] for h in sizes}
        for v, d, p, h in zip(values, dropped, previews, dtype.tolist()):
            a = v if v is not None else None if d else p
            if a is not None and a.size:
                parts[hosts[h]].append(a)
        pools: dict[str, Pool] = {}
        for host, arrays in parts.items():
            pool = np.concatenate(arrays, axis=None).astype(host, copy=False) if arrays else np.zeros(0, dtype=host)
            pool.flags.writeable = False
            pools[host] = pool
        return cls(
            dims_start,
            dims,
            numel,
            dtype,
            names,
            device,
            list(devices),
            stats,
            exact,
            nan,
            inf,
            histogram,
            held,
            start,
            pools,
        )

    def value_bytes(self, i: int) -> int:
        """Bytes of row i's values in the pools (its preview, or every value; 0 once dropped)."""
        held = int(self.held[i])
        if held == DROPPED:
            return 0
        count = int(self.numel[i]) if held == FULL else min(int(self.numel[i]), PREVIEW_SIZE)
        return count * np.dtype(self._hosts[int(self.dtype[i])][0]).itemsize

    def _counts(self) -> NDArray[np.int64]:
        """Per row: how many of its values the pools hold."""
        held, numel = self.held, self.numel
        return np.where(held == FULL, numel, np.where(held == DROPPED, 0, np.minimum(numel, PREVIEW_SIZE)))

    def _values_of(self, host: str) -> NDArray[Any]:
        """The values of the rows kept in `host`'s pool, in row order (a row marked DROPPED since
        the pools were made is left out)."""
        if host not in self.pools:
            return np.zeros(0, dtype=host)
        pool = whole(self.pools[host])
        counts = self._counts()
        mine = np.isin(self.dtype, [k for k, (h, _) in enumerate(self._hosts) if h == host]) & (counts > 0)
        if int(counts[mine].sum()) == len(pool):
            return pool
        return pool[index_ranges(self.start[mine], counts[mine])]

    def take(self, rows: ArrayLike) -> SummaryTable:
        """A table of these rows, in this order (its pools hold only their values: a row marked
        DROPPED since the pools were made gives its values back)."""
        rows = np.asarray(rows, dtype=np.int64)
        ndim = np.diff(self.dims_start)[rows]
        dims_start = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(ndim, out=dims_start[1:])
        held, numel, dtype = self.held[rows], self.numel[rows], self.dtype[rows]
        hosts = [h for h, _ in self._hosts]
        start, _ = self.starts(held, numel, dtype, hosts)
        counts = self._counts()[rows]
        pools: dict[str, Pool] = {}
        for name in sorted(set(hosts)):
            mine = np.isin(dtype, [k for k, h in enumerate(hosts) if h == name]) & (counts > 0)
            pool = whole(self.pools.get(name, np.zeros(0, dtype=name)))[
                index_ranges(self.start[rows[mine]], counts[mine])
            ]
            pool.flags.writeable = False
            pools[name] = pool
        position = {int(r): k for k, r in enumerate(rows.tolist()) if int(r) in self.exact} if self.exact else {}
        exact = {k: self.exact[r] for r, k in position.items()}
        return SummaryTable(
            dims_start,
            self.dims[index_ranges(self.dims_start[rows], ndim)],
            numel,
            dtype,
            self.dtypes,
            self.device[rows],
            self.devices,
            self.stats[rows],
            exact,
            self.nan[rows],
            self.inf[rows],
            self.histogram[rows],
            held,
            start,
            pools,
        )

    def concat(self, other: SummaryTable) -> SummaryTable:
        """This table's rows, then other's."""
        return SummaryTable.concat_all([self, other])

    @staticmethod
    def concat_all(tables: list[SummaryTable]) -> SummaryTable:
        """The tables' rows, one table after another."""
        if not tables:
            return SummaryTable.from_summaries([])
        dtypes = list(dict.fromkeys(d for t in tables for d in t.dtypes))
        devices = list(dict.fromkeys(d for t in tables for d in t.devices))
        hosts = [host_dtype(d).name for d in dtypes]
        wide = np.int64 if any(t.histogram.dtype == np.int64 for t in tables) else np.uint32
        dims_start = [np.zeros(1, dtype=np.int64)]
        dtype_parts: list[NDArray[np.int32]] = []
        device: list[NDArray[np.int32]] = []
        exact: dict[int, tuple[int, int]] = {}
        offset, rows = 0, 0
        for t in tables:
            dims_start.append(t.dims_start[1:] + offset)
            offset += int(t.dims_start[-1])
            dtype_parts.append(np.array([dtypes.index(d) for d in t.dtypes] or [0], dtype=np.int32)[t.dtype])
            device.append(np.array([devices.index(d) for d in t.devices] or [0], dtype=np.int32)[t.device])
            exact.update((i + rows, v) for i, v in t.exact.items())
            rows += len(t)
        held = np.concatenate([t.held for t in tables])
        numel = np.concatenate([t.numel for t in tables])
        dtype = np.concatenate(dtype_parts)
        start, _ = SummaryTable.starts(held, numel, dtype, hosts)
        pools: dict[str, Pool] = {}
        for host in sorted(set(hosts)):
            parts = [t._values_of(host) for t in tables]
            pool = np.concatenate(parts) if parts else np.zeros(0, dtype=host)
            pool.flags.writeable = False
            pools[host] = pool
        return SummaryTable(
            np.concatenate(dims_start),
            np.concatenate([t.dims for t in tables]),
            numel,
            dtype,
            dtypes,
            np.concatenate(device),
            devices,
            np.concatenate([t.stats for t in tables]),
            exact,
            np.concatenate([t.nan for t in tables]),
            np.concatenate([t.inf for t in tables]),
            np.concatenate([t.histogram.astype(wide, copy=False) for t in tables]),
            held,
            start,
            pools,
        )


def whole(pool: Pool) -> NDArray[Any]:
    """Every value of a pool as an array (a loaded one decoded)."""
    return pool.decoded() if isinstance(pool, EncodedPool) else pool


def index_ranges(starts: ArrayLike, counts: ArrayLike) -> NDArray[np.int64]:
    """The indices starts[0]..+counts[0], then starts[1]..+counts[1], ... as one array."""
    counts = np.asarray(counts, dtype=np.int64)
    ends = np.cumsum(counts)
    return np.repeat(np.asarray(starts, dtype=np.int64) - ends + counts, counts) + np.arange(
        int(ends[-1]) if len(ends) else 0
    )


def _figures_of(
    items: list[TensorSummary], pendings: tuple[tuple[PendingFigures, int] | None, ...]
) -> tuple[NDArray[np.float64], dict[int, tuple[int, int]], NDArray[np.int64]]:
    """(statistics [n, 6], exact extremes, histogram counts [n, 16]) of the summaries: read from each,
    or, for a deferred one (its `pending`), from its batch's figures, leaving it deferred."""
    n = len(items)
    stats = np.full((n, len(STAT_FIELDS)), np.nan)
    counts = np.zeros((n, HISTOGRAM_BINS), dtype=np.int64)
    now: list[int] | range = range(n)
    later: list[tuple[PendingFigures, NDArray[np.int64], NDArray[np.int64]]] = []  # (batch, rows, their indices there)
    waiting = n - pendings.count(None)
    if waiting == n:  # every one deferred (a recording's node outputs): grouped by batch in C
        batches: list[PendingFigures] = list(map(_BATCH, pendings))  # type: ignore[arg-type]  # (none is None)
        index = np.fromiter(map(_INDEX, pendings), np.int64, n)  # type: ignore[arg-type]
        keys = np.fromiter(map(id, batches), np.int64, n)
        for key, first in zip(*np.unique(keys, return_index=True)):
            rows = np.flatnonzero(keys == key)
            later.append((batches[first], rows, index[rows]))
        now = []
    elif waiting:
        now = []
        grouped: dict[int, tuple[PendingFigures, list[int], list[int]]] = {}  # id(batch) -> (batch, rows, indices)
        for i, p in enumerate(pendings):
            if p is None:
                now.append(i)
                continue
            entry = grouped.get(id(p[0]))
            if entry is None:
                entry = grouped[id(p[0])] = (p[0], [], [])
            entry[1].append(i)
            entry[2].append(p[1])
        later = [(batch, np.array(rows), np.array(indices)) for batch, rows, indices in grouped.values()]
    exact: dict[int, tuple[int, int]] = {}
    if len(now):
        lows, highs, means, stds, norms, zeros, histograms = zip(*map(_FIGURES, [items[i] for i in now]))
        stats[now] = np.array([lows, highs, means, stds, norms, zeros], dtype=np.float64).T
        exact = {
            now[k]: (low, highs[k])
            for k, low in enumerate(lows)
            if type(low) is int and not (-(2**53) <= low <= 2**53 and -(2**53) <= highs[k] <= 2**53)
        }
        filled = np.fromiter((h.size == HISTOGRAM_BINS for h in histograms), bool, len(now))
        if filled.any():
            rows = np.asarray(now)[filled]
            counts[rows] = np.stack([h for h in histograms if h.size == HISTOGRAM_BINS])
    for batch, rows, indices in later:
        figures, hist = batch.figures()
        stats[rows] = figures[indices]
        counts[rows] = hist[indices]
    return stats, exact, counts
