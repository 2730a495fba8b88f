"""Small float arrays of one dtype summarised together: segmented reductions over their concatenation,
the figures of a batch kept whole worked out when first read."""

from __future__ import annotations

from itertools import chain

import numpy as np
from numpy.typing import NDArray

from graphscope.engine.backend import numpy_dtype_name as dtype_name

from ..record.summary_table import FULL, SummaryTable, index_ranges, whole
from ..record.tensor_summary import HISTOGRAM_BINS, PREVIEW_SIZE, TensorSummary, deferred
from .host import summarize_hosts
from .scratch import KEEP, scratch


def summarize_batch(arrays: list[np.ndarray], limit: int) -> list[TensorSummary]:
    """Statistics of many small float arrays of one dtype from segmented reductions over their
    concatenation; their values become read-only views of that one host buffer (the arrays
    themselves are not kept). Arrays holding a NaN or Inf are summarised one by one. Where every
    value is kept (no array past `limit`), the statistics and histograms are worked out when the
    first of them is read (`LaterFigures`): a value kept whole needs none until it is shown.

    A training loop summarises the same layout (the same sizes in the same order) pass after
    pass: the layout's index arrays are kept, and the float work happens in per-thread buffers,
    reused, not in fresh memory each time (whose first touch costs more than the arithmetic)."""
    count = len(arrays)
    cat = np.concatenate(arrays, axis=None)  # a copy, flattened, in the arrays' own dtype
    sizes = [a.size for a in arrays]
    flat = _wide(cat)
    squares = sums_of_squares(flat, _layout(sizes)[1])
    if not np.isfinite(squares).all():  # a NaN or Inf (or a float64 square's overflow) somewhere
        finite = np.isfinite(squares)
        bad, good = np.flatnonzero(~finite).tolist(), np.flatnonzero(finite).tolist()
        result: list[TensorSummary | None] = [None] * count
        for i, s in zip(bad, summarize_hosts([arrays[i] for i in bad], limit)):
            result[i] = s
        if good:
            for i, s in zip(good, summarize_batch([arrays[i] for i in good], limit)):
                result[i] = s
        return result  # type: ignore[return-value]  # every index is bad or good: none is left None
    cat.flags.writeable = False
    name = dtype_name(cat.dtype)
    out: list[TensorSummary] = []
    append = out.append
    start = 0
    if max(sizes) <= limit:  # every value kept: the figures wait until they are read
        later = LaterFigures(cat, sizes, squares)
        shapes: dict[tuple[int, ...], tuple[int, ...]] = {}  # one tuple per shape, not one per summary
        for i, (a, n) in enumerate(zip(arrays, sizes)):
            view = cat[start : start + n]
            start += n
            preview = view if n <= PREVIEW_SIZE else view[:PREVIEW_SIZE]
            shape = a.shape
            shape = shapes.setdefault(shape, shape)
            append(deferred(shape, name, n, preview, view if a.ndim == 1 else view.reshape(shape), later, i))
        return out
    sized, starts, offsets = _layout(sizes)
    lows, highs, means, stds, norms, fractions, hist = batch_figures(flat, sized, starts, offsets, squares)
    hist.flags.writeable = False
    columns = [x.tolist() for x in (lows, highs, means, stds, norms, fractions)]
    for a, row, n, lo, hi, mean, sd, norm, zf in zip(arrays, hist, sizes, *columns):
        view = cat[start : start + n]
        start += n
        append(
            TensorSummary(
                a.shape,
                name,
                "cpu",
                n,
                lo,
                hi,
                mean,
                sd if n > 1 else None,
                norm,
                0,
                0,
                zf,
                row,
                view if n <= PREVIEW_SIZE else view[:PREVIEW_SIZE],
                None if n > limit else view if a.ndim == 1 else view.reshape(a.shape),
            )
        )
    return out


def summary_rows(arrays: list[np.ndarray]) -> SummaryTable | None:
    """The summaries of small float arrays of one dtype, every value kept (none past the full values
    limit), as the rows of one table: what `summarize_batch` makes of them, packed as a table packs its
    summaries (`SummaryTable.from_summaries`), with no TensorSummary made for each. Their statistics and
    histograms wait until read (`derived_figures`): a value kept whole needs none until it is shown, and
    their columns take no memory till then. None when one holds a NaN or an Inf (summarised one by one)."""
    cat = np.concatenate(arrays, axis=None)
    sizes = [a.size for a in arrays]
    if not np.isfinite(sums_of_squares(_wide(cat), _layout(sizes)[1])).all():
        return None
    cat.flags.writeable = False
    count = len(arrays)
    shapes = [a.shape for a in arrays]
    dims_start = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, shapes), np.int64, count), out=dims_start[1:])
    numel = np.array(sizes, dtype=np.int64)
    dtype = np.zeros(count, dtype=np.int32)
    held = np.full(count, FULL, dtype=np.uint8)
    name = dtype_name(cat.dtype)
    return SummaryTable(
        dims_start,
        np.fromiter(chain.from_iterable(shapes), np.int64, int(dims_start[-1])),
        numel,
        dtype,
        [name],
        np.zeros(count, dtype=np.int32),
        ["cpu"],
        np.zeros((count, 6), dtype=np.float64),  # (zero pages, untouched until derived)
        {},
        np.zeros(count, dtype=np.int64),
        np.zeros(count, dtype=np.int64),
        np.zeros((count, HISTOGRAM_BINS), dtype=np.uint32),  # (at most BATCH_LIMIT values a row: well below 2**32)
        held,
        SummaryTable.starts(held, numel, dtype, [name])[0],
        {name: cat},
        np.ones(count, dtype=bool),
        derived_figures,
    )


class LaterFigures:
    """The statistics and histograms of a batch of small arrays of finite values, every value kept:
    worked out together, from the batch's host buffer, when the first of them is read, bit for bit
    as `summarize_batch` works them out at once (the same buffer, sums of squares and reductions)."""

    __slots__ = ("_cat", "_figures", "_sizes", "_squares")

    def __init__(self, cat: np.ndarray, sizes: list[int], squares: _F) -> None:
        self._cat: np.ndarray | None = cat
        self._sizes = sizes
        self._squares = squares
        self._figures: tuple[_F, _I] | None = None

    def figures(self) -> tuple[_F, _I]:
        """(statistics [arrays, 6]: min, max, mean, std (NaN for a single value), norm, zero fraction;
        histograms [arrays, 16], read-only) of the whole batch, worked out on the first call."""
        cat = self._cat  # (read before the figures: another thread may be working them out)
        figures = self._figures
        if figures is None:
            assert cat is not None  # let go of only once the figures are there
            sized, starts, offsets = _layout(self._sizes)
            lows, highs, means, stds, norms, fractions, hist = batch_figures(
                _wide(cat), sized, starts, offsets, self._squares
            )
            hist.flags.writeable = False
            stds[sized == 1] = np.nan  # one value has no sample std
            figures = self._figures = np.stack([lows, highs, means, stds, norms, fractions], axis=1), hist
            self._cat = None  # (the summaries hold their values; the batch needs the buffer no more)
        return figures

    def fill(self, s: TensorSummary, index: int) -> None:
        """Set summary `s` (the batch's `index`th) its statistics and histogram."""
        stats, hist = self.figures()
        s.min, s.max, s.mean, std, s.norm, s.zero_fraction = stats[index].tolist()
        s.std = std if s.numel > 1 else None
        s.histogram = hist[index]


def derived_figures(table: SummaryTable, rows: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """(statistics [rows, 6] as the `stats` column holds them, histogram counts [rows, 16]) of these rows
    of a table (each a float tensor, every value held, all finite), derived from their values, a batch per
    dtype: bit for bit those `summarize_batch` works out (each array's figures depend on its values alone),
    as a table whose rows' figures wait until read derives them (a snapshot's `derived_stats`, `summary_rows`)."""
    stats = np.zeros((len(rows), 6), dtype=np.float64)
    counts = np.zeros((len(rows), HISTOGRAM_BINS), dtype=np.intp)
    kinds = table.dtype[rows]
    for kind in np.unique(kinds).tolist():
        mine = kinds == kind
        stats[mine], counts[mine] = _derived_batch(table, rows[mine], table.dtypes[kind])
    return stats, counts


def _derived_batch(table: SummaryTable, rows: NDArray[np.int64], dtype: str) -> tuple[_F, NDArray[np.intp]]:
    """`derived_figures` of rows of one dtype, as the recorder's batch reduced them."""
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
    with np.errstate(over="ignore", invalid="ignore"):
        squares = sums_of_squares(flat, starts)
        denied = _unbinnable(flat, starts, squares)
        if denied.any():  # figures no row holds, worked out from zeros: a writer keeps the recorded ones
            flat[np.repeat(denied, sizes)] = 0.0
            squares[denied] = 0.0
        lows, highs, means, stds, norms, fractions, counts = batch_figures(
            flat,
            sizes,
            starts,
            np.repeat(np.arange(0, len(rows) * HISTOGRAM_BINS, HISTOGRAM_BINS, dtype=np.intp), sizes),
            squares,
        )
    stds[sizes == 1] = np.nan  # one value has no sample std
    stats = np.stack([lows, highs, means, stds, norms, fractions], axis=1)
    stats[denied], counts[denied] = np.nan, -1
    return stats, counts


def _unbinnable(flat: _F, starts: _I, squares: _F) -> NDArray[np.bool_]:
    """Per row: whether its values have no histogram of 16 bins from their min (a NaN or an Inf, which a
    file's counts deny, or a range past float64's): among the rows whose sum of squares is not finite."""
    unbinnable = ~np.isfinite(squares)
    if unbinnable.any():
        spans = np.maximum.reduceat(flat, starts) - np.minimum.reduceat(flat, starts)
        unbinnable &= ~np.isfinite(spans)
    return unbinnable


def _wide(cat: np.ndarray) -> _F:
    """A batch's values as float64: the buffer itself, or its copy in this thread's scratch buffer."""
    if cat.dtype == np.float64:
        return cat
    flat = scratch("flat", np.float64, cat.size)
    np.copyto(flat, cat)
    return flat


_F = NDArray[np.float64]
_I = NDArray[np.intp]
# Per array of a batch: min, max, mean, std (0 for a single value), norm, zero fraction; histogram counts [arrays, 16].
Figures = tuple[_F, _F, _F, _F, _F, _F, _I]


def sums_of_squares(flat: _F, starts: _I) -> _F:
    """Each array's sum of squares, of arrays laid end to end in `flat` from `starts`."""
    squares: _F = np.add.reduceat(np.multiply(flat, flat, out=scratch("work", np.float64, flat.size)), starts)
    return squares


def batch_figures(flat: _F, sizes: _I, starts: _I, offsets: _I, squares: _F) -> Figures:
    """The statistics of arrays of finite values laid end to end in `flat` (their sizes, starts, each
    element's first bin: `_layout`; their sums of squares), from segmented reductions. Each array's
    figures depend on its own values alone: a snapshot derives them again from its values
    (`snapshot.derived_stats`)."""
    count, total = len(sizes), flat.size
    work = scratch("work", np.float64, total)
    lows = np.minimum.reduceat(flat, starts)
    highs = np.maximum.reduceat(flat, starts)
    sums = np.add.reduceat(flat, starts)
    means = sums / sizes
    spans = highs - lows
    spreads = squares - sums * means  # one pass; two where it cancels (the mean dwarfs the spread)
    spreads[spans <= 0] = 0.0  # level, or a single value
    close = (spreads < 0.01 * squares) & (spans > 0)
    if close.any():
        centered = np.subtract(flat, means.repeat(sizes), out=work)
        spreads = np.where(close, np.add.reduceat(np.multiply(centered, centered, out=work), starts), spreads)
    zeros = np.add.reduceat(np.equal(flat, 0, out=scratch("zero", np.bool_, total)), starts, dtype=np.intp)
    # Bins of width span/16 from each array's min; the scale is a hair under 16/span, so each
    # max lands in bin 15, not 16. A level array has scale 0: everything in bin 0.
    scales = np.divide(HISTOGRAM_BINS * (1 - 2.0**-40), spans, out=np.zeros(count), where=spans > 0)
    scaled = np.subtract(flat, lows.repeat(sizes), out=work)  # (a repeat is faster than a take)
    scaled *= scales.repeat(sizes)
    index = scratch("index", np.intp, total)
    np.copyto(index, scaled, casting="unsafe")  # truncation: the bin within the array
    index += offsets  # the array's own 16 bins
    hist = np.bincount(index, minlength=HISTOGRAM_BINS * count).reshape(count, HISTOGRAM_BINS)
    return lows, highs, means, np.sqrt(spreads / np.maximum(sizes - 1, 1)), np.sqrt(squares), zeros / sizes, hist


_layouts: dict[tuple[int, ...], _Layout] = {}  # tuple of sizes -> (sizes, starts, each element's first bin)
_Layout = tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]
_layout_elements = [0]  # elements of the kept layouts' index arrays (a bound on their memory)


def _layout(sizes: list[int]) -> _Layout:
    """(sizes, starts, each element's first bin) of a batch of arrays of these sizes."""
    key = tuple(sizes)
    layout = _layouts.get(key)
    if layout is None:
        count = len(sizes)
        sized = np.array(sizes, dtype=np.intp)
        starts = np.zeros(count, dtype=np.intp)
        np.cumsum(sized[:-1], out=starts[1:])
        offsets = np.repeat(np.arange(0, count * HISTOGRAM_BINS, HISTOGRAM_BINS, dtype=np.intp), sized)
        layout = (sized, starts, offsets)
        if offsets.size <= KEEP:  # kept: the next pass likely has the same layout
            if len(_layouts) >= 64 or _layout_elements[0] > 4 * KEEP:
                _layouts.clear()
                _layout_elements[0] = 0
            _layouts[key] = layout
            _layout_elements[0] += offsets.size
    return layout
