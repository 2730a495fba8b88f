"""Host statistics: NumPy summaries one array at a time, large ones in pieces (small floats together: `batched`)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np

from graphscope.engine.backend import numpy_dtype_name as dtype_name

from ..record.tensor_summary import (
    HISTOGRAM_BINS,
    HISTOGRAM_EXACT,
    PREVIEW_SIZE,
    TensorSummary,
    host_dtype,
)
from .scratch import scratch

# A histogram's work: (an evenly strided sample of the finite values, their min, their max, how many)
_Job = tuple[np.ndarray, float, float, int]


def summarize_host(a: np.ndarray, limit: int, device: str) -> TensorSummary:
    return summarize_hosts([a], limit, device)[0]


def summarize_hosts(arrays: list[np.ndarray], limit: int, device: str = "cpu") -> list[TensorSummary]:
    """Summaries of NumPy arrays, each reduced on its own; their histograms are binned together
    (a histogram's fixed cost is most of a large array's, the binning of its sample the rest)."""
    out: list[TensorSummary] = []
    owners: list[TensorSummary] = []
    jobs: list[_Job] = []
    for a in arrays:
        n = int(a.size)
        preview, values = _captured(a, n, limit)
        s = TensorSummary(a.shape, dtype_name(a.dtype), device, n, preview=preview, values=values)
        out.append(s)
        if n == 0:
            continue
        kind = a.dtype.kind
        if kind == "b":
            fill_bool(s, int(np.count_nonzero(a)), n)
            continue
        job = fill_float_host(s, a, n)
        if kind in "iu":
            s.min, s.max = int(a.min()), int(a.max())
        if job is not None:
            owners.append(s)
            jobs.append(job)
    for s, histogram in zip(owners, _histograms(jobs)):
        s.histogram = histogram
    return out


# A large array is summarised a piece of this many elements at a time, in place: the live
# array is read, never copied, and every temporary stays piece-sized.
PIECE = 1 << 20


def _pieces(a: np.ndarray) -> Iterator[np.ndarray]:
    """The array's elements in row-major order as 1-D pieces of at most about PIECE elements:
    views of a contiguous array, small copies of the rows of any other."""
    if a.flags.c_contiguous:
        flat = a.reshape(-1)
        for start in range(0, flat.size, PIECE):
            yield flat[start : start + PIECE]
        return
    if a.ndim == 0:
        yield a.reshape(1)
        return
    rows = max(1, PIECE // max(1, a.size // a.shape[0]))
    for start in range(0, a.shape[0], rows):
        yield a[start : start + rows].reshape(-1)


def _finite_pieces(a: np.ndarray) -> Iterator[tuple[np.ndarray, int, float | None, float | None]]:
    """(finite values as float32/float64, NaN count, their min, their max) of each piece: integers
    as float64, complex as their real part, float16 widened to float32 (its squares lose digits).
    A piece with no finite value has min and max None."""
    kind = a.dtype.kind
    for p in _pieces(a):
        if kind == "c":
            p = p.real
        elif kind in "iu":
            p = p.astype(np.float64)
        elif p.dtype.itemsize < 4:
            p = p.astype(np.float32)
        lo, hi = float(p.min()), float(p.max())  # NaN propagates through min/max: finite ends mean all finite
        if lo - lo == 0.0 and hi - hi == 0.0:
            yield p, 0, lo, hi
            continue
        fin = p[np.isfinite(p)]
        nans = int(np.count_nonzero(np.isnan(p)))
        yield (fin, nans, float(fin.min()), float(fin.max())) if fin.size else (fin, nans, None, None)


def fill_float_host(s: TensorSummary, a: np.ndarray, n: int) -> _Job | None:
    """Statistics of the finite values of a float (or integer, or complex) array, in one pass
    over its pieces (a second only for a spread lost to cancellation or an overflowing norm).
    Each piece is read by five reductions: min, max, the sum, the sum of squares and, only when
    its range holds 0, the zeros. Returns the histogram's work, (sample, min, max, finite count),
    or None when no value is finite."""
    step = 1 if n <= HISTOGRAM_EXACT else -(-n // HISTOGRAM_EXACT)
    complex_ = a.dtype.kind == "c"
    m = nans = zeros = 0
    mn: float | None = None
    mx: float | None = None
    total = squares = 0.0
    sample: list[np.ndarray] = []
    for fin, nan, lo, hi in _finite_pieces(a):
        nans += nan
        if lo is None or hi is None:  # no finite value (the two are None together)
            continue
        if lo <= 0.0 <= hi and not complex_:  # NaN and Inf are not zero
            zeros += _zeros(fin)
        mn, mx = (lo, hi) if mn is None or mx is None else (min(mn, lo), max(mx, hi))
        sample.append(fin[(-m) % step :: step])
        m += fin.size
        total += _total(fin)
        part = float(np.vdot(fin, fin))
        if not math.isfinite(part):  # the narrow dot product overflowed: redo it wide
            wide = fin.astype(np.float64)
            part = float(np.vdot(wide, wide))
        squares += part
        narrow = fin.dtype.itemsize < 8
    if complex_:  # its pieces are the real parts: a zero needs both parts zero
        zeros = n - int(np.count_nonzero(a))
    s.nan_count, s.inf_count = nans, n - m - nans
    s.zero_fraction = zeros / n
    if m == 0:
        return None
    assert mn is not None and mx is not None  # some piece had finite values
    mean = total / m
    if math.isfinite(squares):
        s.norm = math.sqrt(squares)
    else:
        big = max(abs(mn), abs(mx))
        s.norm = big * math.sqrt(
            sum(float(np.vdot(x, x)) for x in (f.astype(np.float64) / big for f, *_ in _finite_pieces(a)))
        )
    s.min, s.max, s.mean = mn, mx, mean
    if m > 1:
        spread = squares - m * mean * mean
        if mx == mn:  # level: no spread, whatever the rounding of the mean (as the batched path)
            spread = 0.0
        elif not math.isfinite(spread) or spread < _trusted_share(narrow) * squares:  # cancellation: two passes
            spread = sum(float(np.vdot(c, c)) for c in (f.astype(np.float64) - mean for f, *_ in _finite_pieces(a)))
        s.std = math.sqrt(max(spread, 0.0) / (m - 1))
    return sample[0] if len(sample) == 1 else np.concatenate(sample), mn, mx, m


def _trusted_share(narrow: bool) -> float:
    """The share of the sum of squares a one-pass spread must keep to be trusted. Float64 sums
    lose ~1e-16 of it, so a spread of 1% is still exact to ~1e-14; float32 (BLAS sdot) sums lose
    ~1e-6, which cancellation multiplies by squares/spread: only a spread of half or more (a mean
    no larger than the spread) keeps the std within ~1e-6."""
    return 0.5 if narrow else 0.01


def _zeros(x: np.ndarray) -> int:
    """How many elements of a 1-D float array are 0, through a reused mask (a float's own
    nonzero count is 5x slower, a fresh mask of a large array costs its page faults), counted
    only when it has any (weights and grads seldom hold an exact 0; `any` is 3x faster)."""
    mask = np.equal(x, 0, out=scratch("zeros", np.bool_, x.size, PIECE))
    return int(np.count_nonzero(mask)) if mask.any() else 0


_ones: dict[np.dtype, np.ndarray] = {}


def _total(x: np.ndarray) -> float:
    """The sum of a 1-D float array: a BLAS dot with ones when large (several times faster
    than a pairwise sum), an exact float64 reduction when small."""
    if x.size < 4096 or x.dtype.kind != "f" or x.dtype.itemsize < 4 or x.strides[0] != x.itemsize:
        return float(np.add.reduce(x, dtype=np.float64))
    ones = _ones.get(x.dtype)
    if ones is None or ones.size < x.size:
        ones = _ones[x.dtype] = np.ones(max(x.size, 2 * (0 if ones is None else ones.size)), dtype=x.dtype)
    total = float(np.dot(x, ones[: x.size]))
    return total if math.isfinite(total) else float(np.add.reduce(x, dtype=np.float64))


def counts(values: Sequence[int]) -> np.ndarray:
    """Histogram counts as a read-only int64 array."""
    out = np.array(values, dtype=np.int64)
    out.flags.writeable = False
    return out


def single_bin(m: int) -> np.ndarray:
    out = np.zeros(HISTOGRAM_BINS, dtype=np.int64)
    out[0] = m
    out.flags.writeable = False
    return out


_Binned = tuple[int, np.ndarray, float, float]  # a sample to bin: (its job, the sample, its min, its scale)
# Values of samples of one size that are binned apart from the others (fewer: a dozen NumPy calls
# more would cost more than repeating their min, scale and first bin for each value).
ROWS_APART = 32768


def _histograms(jobs: list[_Job]) -> list[np.ndarray]:
    """The 16 bins from min to max of each job's `m` finite values (a job: sample, min, max, m),
    counted on its sample (all of them, or an evenly strided sample) and scaled to `m`. The
    samples of a dtype are binned together (`_count`), those of one size apart from the others."""
    out: list[np.ndarray | None] = [None] * len(jobs)
    groups: dict[np.dtype, list[_Binned]] = {}  # dtype -> [(job, sample, min, scale)]
    for i, (sample, mn, mx, m) in enumerate(jobs):
        if mx == mn:
            out[i] = single_bin(m)
            continue
        span = mx - mn
        if sample.dtype.itemsize < 4:  # float16: too coarse for the scale below
            sample = sample.astype(np.float32)
        if sample.dtype.itemsize < 8 and span > _half_max(sample.dtype):
            sample = sample.astype(np.float64)
        if not math.isfinite(span):  # the range overflows even float64: work in halves
            sample, mn, span = sample / 2, mn / 2, mx / 2 - mn / 2
        # x - min is never negative; a scale a hair under 16/span (8 float32 epsilons) keeps the
        # max out of a 17th bin however float32 rounds, so the bins need no clipping (except for
        # a tiny span, whose scale is no longer a plain finite number).
        groups.setdefault(sample.dtype, []).append((i, sample, mn, HISTOGRAM_BINS * (1 - 2.0**-20) / span))
    for dtype, group in groups.items():
        # Many samples of one size (a model's layers repeat their shapes) are binned as rows of their
        # own, with no per-value copy of their min, scale and first bin; the others together.
        alike: dict[int, list[_Binned]] = {}
        for g in group:
            alike.setdefault(g[1].size, []).append(g)
        apart = [rows for size, rows in alike.items() if len(rows) > 1 and len(rows) * size >= ROWS_APART]
        mixed = [g for rows in alike.values() if not any(rows is r for r in apart) for g in rows]
        for rows in [*apart, *([mixed] if mixed else [])]:
            _count(jobs, dtype, rows, out)
    return out  # type: ignore[return-value]  # each job is in one group or a single bin: none is left None


def _count(jobs: list[_Job], dtype: np.dtype, group: list[_Binned], out: list[np.ndarray | None]) -> None:
    """Bin `group`'s samples of `dtype` together: one subtraction, one product, one count for all; each
    job's counts into `out`."""
    k = len(group)
    sizes = [g[1].size for g in group]
    # Each sample's min, scale and first bin, in its own dtype as NumPy rounds a Python float
    # meeting it, as a column when the samples are alike (a large array's sample has 4,096
    # values), else repeated for each value.
    lows = np.array([g[2] for g in group], dtype=dtype)
    scales = np.array([g[3] for g in group], dtype=dtype)
    firsts = np.arange(0, k * HISTOGRAM_BINS, HISTOGRAM_BINS, dtype=np.intp)
    total = sum(sizes)
    values = np.concatenate([g[1] for g in group], out=scratch("hist" + dtype.char, dtype, total))
    index = scratch("bins", np.intp, total)
    if sizes.count(sizes[0]) == k:
        lows, scales, firsts = lows[:, None], scales[:, None], firsts[:, None]
        values, index = values.reshape(k, -1), index.reshape(k, -1)
    else:
        lows, scales, firsts = lows.repeat(sizes), scales.repeat(sizes), firsts.repeat(sizes)
    np.multiply(np.subtract(values, lows, out=values), scales, out=values)
    np.copyto(index, values, casting="unsafe")  # truncation: the bin
    if not all(g[3] < 1e30 for g in group):
        np.clip(index, 0, HISTOGRAM_BINS - 1, out=index)
    index += firsts
    counted = _scaled(
        np.bincount(index.reshape(-1), minlength=k * HISTOGRAM_BINS).reshape(k, HISTOGRAM_BINS),
        np.array([jobs[g[0]][3] for g in group], dtype=np.int64),
    )
    counted.flags.writeable = False
    for g, row in zip(group, counted):
        out[g[0]] = row


_half_maxes: dict[np.dtype, float] = {}


def _half_max(dtype: np.dtype) -> float:
    """Half the largest finite value of a float dtype (np.finfo is slow to ask)."""
    half = _half_maxes.get(dtype)
    if half is None:
        half = _half_maxes[dtype] = float(np.finfo(dtype).max) / 2
    return half


def _scaled(sample_counts: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Rows of counts of samples, each scaled to its total and rounded so it adds up to it
    exactly: the largest remainders round up, the first of equal ones first. (A count times a
    total stays far inside int64: a sample holds about 4,096 values.)"""
    sizes = sample_counts.sum(axis=1, keepdims=True)
    exact = sample_counts * totals[:, None]
    out: np.ndarray = exact // sizes
    short = totals - out.sum(axis=1)
    order = np.argsort(out * sizes - exact, axis=1, kind="stable")  # remainders, largest first
    out[np.arange(out.shape[0])[:, None], order] += np.arange(HISTOGRAM_BINS) < short[:, None]
    return out


def fill_bool(s: TensorSummary, trues: int, n: int) -> None:
    s.min, s.max = int(trues == n), int(trues > 0)
    s.mean = trues / n
    s.norm = math.sqrt(trues)
    s.zero_fraction = (n - trues) / n
    if n > 1:
        s.std = math.sqrt(max(trues - n * s.mean * s.mean, 0.0) / (n - 1))
    if s.min == s.max:
        s.histogram = single_bin(n)
    else:
        s.histogram = counts((n - trues,) + (0,) * (HISTOGRAM_BINS - 2) + (trues,))


def _captured(a: np.ndarray, n: int, limit: int) -> tuple[np.ndarray, np.ndarray | None]:
    """(preview, values) of a NumPy array as read-only host copies."""
    dtype = host_dtype(dtype_name(a.dtype))
    if n <= limit:
        values = a.real.astype(dtype) if a.dtype.kind == "c" else np.array(a, dtype=dtype, copy=True)
        values.flags.writeable = False
        preview = values.reshape(-1)[:PREVIEW_SIZE]
        return preview, values
    head = next(_pieces(a))[:PREVIEW_SIZE]  # never a.reshape(-1): that copies a non-contiguous array
    preview = head.real.astype(dtype) if head.dtype.kind == "c" else np.array(head, dtype=dtype, copy=True)
    preview.flags.writeable = False
    return preview, None
