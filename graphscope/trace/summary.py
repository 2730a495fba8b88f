"""TensorSummary: what the debugger shows of a tensor, computed where the tensor lives."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import numpy as np
from rich.console import Group
from rich.table import Table
from rich.text import Text

from graphscope.engine import backend
from graphscope.engine.backend import device_of, namespace, to_host

from .equality import Same
from .literal import literal

HISTOGRAM_BINS = 16
PREVIEW_SIZE = 64
FULL_VALUES_LIMIT = 4096
# Histograms count every finite value up to this many; past it they are estimated from an
# evenly strided sample of this size, scaled to the finite count (binning costs several
# nanoseconds an element, the rest of a summary well under one).
HISTOGRAM_EXACT = 4096

# Host dtypes a preview or full values may have (and a snapshot may carry); anything
# else is converted to float64 on its way to the host.
ARRAY_DTYPES = frozenset({
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64",
})

_EMPTY = np.zeros(0, dtype=np.float64)
_EMPTY.flags.writeable = False
_NO_COUNTS = np.zeros(0, dtype=np.int64)
_NO_COUNTS.flags.writeable = False
_SPARKS = "▁▂▃▄▅▆▇█"


@dataclass(eq=False, slots=True)
class TensorSummary(Same):
    """Shape, dtype, statistics of the finite values, NaN/Inf/zero counts, histogram, preview.

    min/max/mean/std/norm and the histogram cover the finite values only (None when there
    are none); the NaNs and Infs are counted apart. std is the sample std (as `Tensor.std()`).
    The histogram (16 int64 counts, read-only; empty when no value is finite) has equal bins
    from min to max, all counts in bin 0 when min == max; on the CPU, past 4,096 finite values
    it is estimated from an evenly strided sample of about 4,096 and scaled to the finite count
    (another device bins every value: a device's bincount is cheap).
    `preview` holds the first 64 elements in row-major order, `values` every element
    (in the tensor's shape) when there are at most `full_values_limit`; both are read-only
    NumPy host arrays. `dropped` says the memory budget took them away.
    """

    shape: tuple[int, ...]
    dtype: str
    device: str = "cpu"
    numel: int = 0
    min: float | int | None = None
    max: float | int | None = None
    mean: float | None = None
    std: float | None = None
    norm: float | None = None
    nan_count: int = 0
    inf_count: int = 0
    zero_fraction: float = 0.0
    histogram: np.ndarray = field(default_factory=lambda: _NO_COUNTS)  # int64 counts
    preview: np.ndarray = field(default_factory=lambda: _EMPTY)
    values: np.ndarray | None = None
    dropped: bool = False

    @property
    def has_nonfinite(self) -> bool:
        return self.nan_count > 0 or self.inf_count > 0

    @property
    def captured_bytes(self) -> int:
        """Host bytes held by the preview and the full values (what the memory budget counts)."""
        total = 0 if self.values is None else self.values.nbytes
        if self.preview.base is None or self.values is None:
            total += self.preview.nbytes
        return total

    def drop_values(self) -> int:
        """Let go of the preview and full values (the memory budget is spent); bytes freed."""
        freed = self.captured_bytes
        self.preview = _EMPTY
        self.values = None
        self.dropped = True
        return freed

    def __rich__(self):
        return render(self)


def summarize(array, full_values_limit: int = FULL_VALUES_LIMIT, device: str | None = None) -> TensorSummary:
    """Summarise an array of any graphscope device on that device."""
    if type(array) is np.ndarray or isinstance(array, np.generic):
        return _summarize_host(np.asarray(array), full_values_limit, device or "cpu")
    return _summarize_on_device([array], full_values_limit, device)[0]


def summarize_value(value) -> TensorSummary | None:
    """Summarise a Python number passed to an op as a constant (None for anything else)."""
    kind = type(value)
    if kind is bool:
        dtype = np.bool_
    elif kind is int:
        dtype = np.int64 if -2**63 <= value < 2**63 else np.float64
    elif kind is float:
        dtype = np.float64
    else:
        return None
    values = np.array(value, dtype=dtype)
    values.flags.writeable = False
    s = TensorSummary((), dtype_name(values.dtype), "cpu", 1, preview=values.reshape(1), values=values)
    v = values.item()
    if kind is float and not math.isfinite(v):
        s.nan_count, s.inf_count = (1, 0) if v != v else (0, 1)
        return s
    s.min = s.max = int(v) if kind is not float and dtype is not np.float64 else v
    s.mean = float(v)
    s.norm = abs(float(v))
    s.zero_fraction = 1.0 if v == 0 else 0.0
    s.histogram = _single_bin(1)
    return s


BATCH_LIMIT = 4096  # arrays up to this size share the vectorised statistics of summarize_many


class Summarized:
    """An array already summarised, standing in for a copy of it: a recorder keeps this, not a
    copy, of an array too large to copy (summarize_many returns its summary as it is)."""

    __slots__ = ("summary",)

    def __init__(self, summary: TensorSummary):
        self.summary = summary


def summarize_many(arrays, full_values_limit: int = FULL_VALUES_LIMIT) -> list:
    """Summaries of many device arrays at once. Small float NumPy arrays are reduced together,
    a batch per dtype (one segmented pass per statistic instead of a dozen small calls each);
    the arrays of each other device are summarised there as one batch, with a couple of copies
    to the host."""
    out = [None] * len(arrays)
    batches: dict = {}  # NumPy dtype -> indices of its small float arrays
    devices: dict = {}  # device -> indices of its arrays (not NumPy's)
    for i, a in enumerate(arrays):
        if type(a) is Summarized:
            out[i] = a.summary
        elif type(a) is np.ndarray:
            dtype = a.dtype
            if dtype in _BATCHED and 0 < a.size <= BATCH_LIMIT:
                batch = batches.get(dtype)
                if batch is None:
                    batches[dtype] = [i]
                else:
                    batch.append(i)
            else:
                out[i] = _summarize_host(a, full_values_limit, "cpu")
        elif isinstance(a, np.generic):
            out[i] = _summarize_host(np.asarray(a), full_values_limit, "cpu")
        else:
            devices.setdefault(device_of(a), []).append(i)
    for device, indices in devices.items():
        for i, s in zip(indices, _summarize_on_device([arrays[i] for i in indices], full_values_limit,
                                                      str(device))):
            out[i] = s
    for indices in batches.values():
        for i, s in zip(indices, _summarize_batch([arrays[i] for i in indices], full_values_limit)):
            out[i] = s
    return out


_BATCHED = frozenset(np.dtype(d) for d in ("float16", "float32", "float64"))


def _summarize_batch(arrays: list, limit: int) -> list:
    """Statistics of many small float arrays of one dtype from segmented reductions over their
    concatenation; their values become read-only views of that one host buffer (the arrays
    themselves are not kept). Arrays holding a NaN or Inf are summarised one by one.

    A training loop summarises the same layout (the same sizes in the same order) pass after
    pass: the layout's index arrays are kept, and the float work happens in per-thread buffers,
    reused, not in fresh memory each time (whose first touch costs more than the arithmetic)."""
    count = len(arrays)
    cat = np.concatenate(arrays, axis=None)  # a copy, flattened, in the arrays' own dtype
    sizes, starts, offsets = _layout([a.size for a in arrays])
    total = cat.size
    if cat.dtype == np.float64:
        flat = cat
    else:
        flat = _scratch("flat", np.float64, total)
        np.copyto(flat, cat)
    work = _scratch("work", np.float64, total)
    squares = np.add.reduceat(np.multiply(flat, flat, out=work), starts)
    if not np.isfinite(squares).all():  # a NaN or Inf (or a float64 square's overflow) somewhere
        bad = set(np.flatnonzero(~np.isfinite(squares)).tolist())
        good = [i for i in range(count) if i not in bad]
        result = [None] * count
        for i in bad:
            result[i] = _summarize_host(arrays[i], limit, "cpu")
        if good:
            for i, s in zip(good, _summarize_batch([arrays[i] for i in good], limit)):
                result[i] = s
        return result
    cat.flags.writeable = False
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
    zeros = np.add.reduceat(np.equal(flat, 0, out=_scratch("zero", np.bool_, total)), starts, dtype=np.intp)
    # Bins of width span/16 from each array's min; the scale is a hair under 16/span, so each
    # max lands in bin 15, not 16. A level array has scale 0: everything in bin 0.
    scales = np.divide(HISTOGRAM_BINS * (1 - 2.0**-40), spans, out=np.zeros(count), where=spans > 0)
    scaled = np.subtract(flat, lows.repeat(sizes), out=work)  # (a repeat is faster than a take)
    scaled *= scales.repeat(sizes)
    index = _scratch("index", np.intp, total)
    np.copyto(index, scaled, casting="unsafe")  # truncation: the bin within the array
    index += offsets  # the array's own 16 bins
    hist = np.bincount(index, minlength=HISTOGRAM_BINS * count).reshape(count, HISTOGRAM_BINS)
    hist.flags.writeable = False
    stds = np.sqrt(spreads / np.maximum(sizes - 1, 1)).tolist()
    norms = np.sqrt(squares).tolist()
    fractions = (zeros / sizes).tolist()
    name = dtype_name(cat.dtype)
    out = []
    append = out.append
    start = 0
    for a, row, n, lo, hi, mean, sd, norm, zf in zip(
            arrays, hist, sizes.tolist(), lows.tolist(), highs.tolist(), means.tolist(), stds, norms, fractions):
        view = cat[start:start + n]
        start += n
        append(TensorSummary(a.shape, name, "cpu", n, lo, hi, mean, sd if n > 1 else None, norm, 0, 0, zf, row,
                             view if n <= PREVIEW_SIZE else view[:PREVIEW_SIZE],
                             view.reshape(a.shape) if n <= limit else None))
    return out


_layouts: dict = {}  # tuple of sizes -> (sizes, starts, each element's first bin)
_buffers = threading.local()
_SCRATCH_LIMIT = 1 << 18  # elements a per-thread buffer may keep between calls


def _layout(sizes: list):
    """(sizes, starts, each element's first bin) of a batch of arrays of these sizes."""
    key = tuple(sizes)
    layout = _layouts.get(key)
    if layout is None:
        count = len(sizes)
        sizes = np.array(sizes, dtype=np.intp)
        starts = np.zeros(count, dtype=np.intp)
        np.cumsum(sizes[:-1], out=starts[1:])
        offsets = np.repeat(np.arange(0, count * HISTOGRAM_BINS, HISTOGRAM_BINS, dtype=np.intp), sizes)
        layout = (sizes, starts, offsets)
        if offsets.size <= _SCRATCH_LIMIT:  # kept: the next pass likely has the same layout
            if len(_layouts) >= 64:
                _layouts.clear()
            _layouts[key] = layout
    return layout


def _scratch(name: str, dtype, size: int) -> np.ndarray:
    """A work buffer of `size` elements, this thread's own, reused from call to call."""
    buffer = getattr(_buffers, name, None)
    if buffer is None or buffer.size < size:
        buffer = np.empty(size, dtype=dtype)
        if size > _SCRATCH_LIMIT:
            return buffer
        setattr(_buffers, name, buffer)
    return buffer[:size]


# --- host (NumPy): the array is already where the statistics are wanted --------------------

def _summarize_host(a: np.ndarray, limit: int, device: str) -> TensorSummary:
    shape = a.shape
    n = int(a.size)
    preview, values = _captured(a, n, limit)
    summary = TensorSummary(shape, dtype_name(a.dtype), device, n, preview=preview, values=values)
    if n == 0:
        return summary
    kind = a.dtype.kind
    if kind == "b":
        _fill_bool(summary, int(np.count_nonzero(a)), n)
        return summary
    _fill_float_host(summary, a, n)
    if kind in "iu":
        summary.min, summary.max = int(a.min()), int(a.max())
    return summary


# A large array is summarised a piece of this many elements at a time, in place: the live
# array is read, never copied, and every temporary stays piece-sized.
PIECE = 1 << 20


def _pieces(a: np.ndarray):
    """The array's elements in row-major order as 1-D pieces of at most about PIECE elements:
    views of a contiguous array, small copies of the rows of any other."""
    if a.flags.c_contiguous:
        flat = a.reshape(-1)
        for start in range(0, flat.size, PIECE):
            yield flat[start:start + PIECE]
        return
    if a.ndim == 0:
        yield a.reshape(1)
        return
    rows = max(1, PIECE // max(1, a.size // a.shape[0]))
    for start in range(0, a.shape[0], rows):
        yield a[start:start + rows].reshape(-1)


def _finite_pieces(a: np.ndarray):
    """(finite values as float32/float64, NaN count) of each piece: integers as float64, complex
    as their real part, float16 widened to float32 (its squares lose digits)."""
    kind = a.dtype.kind
    for p in _pieces(a):
        if kind == "c":
            p = p.real
        elif kind in "iu":
            p = p.astype(np.float64)
        elif p.dtype.itemsize < 4:
            p = p.astype(np.float32)
        lo, hi = p.min(), p.max()  # NaN propagates through min/max: finite ends mean all finite
        if math.isfinite(lo) and math.isfinite(hi):
            yield p, 0
        else:
            yield p[np.isfinite(p)], int(np.count_nonzero(np.isnan(p)))


def _fill_float_host(s: TensorSummary, a: np.ndarray, n: int) -> None:
    """Statistics of the finite values of a float (or integer, or complex) array, in one pass
    over its pieces (a second only for a spread lost to cancellation or an overflowing norm)."""
    step = 1 if n <= HISTOGRAM_EXACT else -(-n // HISTOGRAM_EXACT)
    m = nans = 0
    mn = mx = None
    total = squares = 0.0
    sample = []
    for fin, nan in _finite_pieces(a):
        nans += nan
        if not fin.size:
            continue
        lo, hi = float(fin.min()), float(fin.max())
        mn, mx = (lo, hi) if mn is None else (min(mn, lo), max(mx, hi))
        sample.append(fin[(-m) % step::step])
        m += fin.size
        total += _total(fin)
        part = float(np.vdot(fin, fin))
        if not math.isfinite(part):  # the narrow dot product overflowed: redo it wide
            wide = fin.astype(np.float64)
            part = float(np.vdot(wide, wide))
        squares += part
    zeros = n - int(np.count_nonzero(a))  # NaNs and Infs count as nonzero
    s.nan_count, s.inf_count = nans, n - m - nans
    s.zero_fraction = zeros / n
    if m == 0:
        return
    mean = total / m
    if math.isfinite(squares):
        s.norm = math.sqrt(squares)
    else:
        big = max(abs(mn), abs(mx))
        s.norm = big * math.sqrt(sum(float(np.vdot(x, x)) for x in (f.astype(np.float64) / big
                                                                    for f, _ in _finite_pieces(a))))
    s.min, s.max, s.mean = mn, mx, mean
    if m > 1:
        spread = squares - m * mean * mean
        if not math.isfinite(spread) or spread < 0.01 * squares:  # cancellation: two passes
            spread = sum(float(np.vdot(c, c)) for c in (f.astype(np.float64) - mean for f, _ in _finite_pieces(a)))
        s.std = math.sqrt(max(spread, 0.0) / (m - 1))
    s.histogram = _histogram_host(sample[0] if len(sample) == 1 else np.concatenate(sample), mn, mx, m)


_ones: dict = {}


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


def counts(values) -> np.ndarray:
    """Histogram counts as a read-only int64 array."""
    out = np.array(values, dtype=np.int64)
    out.flags.writeable = False
    return out


def _single_bin(m: int) -> np.ndarray:
    out = np.zeros(HISTOGRAM_BINS, dtype=np.int64)
    out[0] = m
    out.flags.writeable = False
    return out


def _histogram_host(sample: np.ndarray, mn: float, mx: float, m: int) -> np.ndarray:
    """The 16 bins of `m` finite values from min to max, counted on `sample` (all of them, or an
    evenly strided sample) and scaled to `m`."""
    if mx == mn:
        return _single_bin(m)
    span = mx - mn
    if sample.dtype.itemsize < 4:  # float16: too coarse for the scale below
        sample = sample.astype(np.float32)
    if sample.dtype.itemsize < 8 and span > _half_max(sample.dtype):
        sample = sample.astype(np.float64)
    if not math.isfinite(span):  # the range overflows even float64: work in halves
        sample, mn, span = sample / 2, mn / 2, mx / 2 - mn / 2
    # x - min is never negative; a scale a hair under 16/span (8 float32 epsilons) keeps the max
    # out of a 17th bin however float32 rounds, so the bins need no clipping (except for a tiny span,
    # whose scale is no longer a plain finite number).
    scale = HISTOGRAM_BINS * (1 - 2.0**-20) / span
    idx = np.empty(sample.size, dtype=np.intp)
    np.multiply(sample - mn, scale, out=idx, casting="unsafe")
    if not scale < 1e30:
        np.clip(idx, 0, HISTOGRAM_BINS - 1, out=idx)
    out = np.bincount(idx, minlength=HISTOGRAM_BINS).astype(np.int64, copy=False)
    if sample.size != m:
        out = _scaled(out, m)
    out.flags.writeable = False
    return out


_half_maxes: dict = {}


def _half_max(dtype) -> float:
    """Half the largest finite value of a float dtype (np.finfo is slow to ask)."""
    half = _half_maxes.get(dtype)
    if half is None:
        half = _half_maxes[dtype] = float(np.finfo(dtype).max) / 2
    return half


def _scaled(sample_counts: np.ndarray, total: int) -> np.ndarray:
    """Counts of a sample scaled to `total`, rounded so they add up to it exactly (the largest
    remainders round up); in Python integers, as there are only 16."""
    sample = sample_counts.tolist()
    size = sum(sample)
    exact = [c * total for c in sample]
    out = [e // size for e in exact]
    short = total - sum(out)
    if short:
        for i in sorted(range(len(out)), key=lambda i: out[i] * size - exact[i])[:short]:
            out[i] += 1
    return np.array(out, dtype=np.int64)


def _fill_bool(s: TensorSummary, trues: int, n: int) -> None:
    s.min, s.max = int(trues == n), int(trues > 0)
    s.mean = trues / n
    s.norm = math.sqrt(trues)
    s.zero_fraction = (n - trues) / n
    if n > 1:
        s.std = math.sqrt(max(trues - n * s.mean * s.mean, 0.0) / (n - 1))
    if s.min == s.max:
        s.histogram = _single_bin(n)
    else:
        s.histogram = counts((n - trues,) + (0,) * (HISTOGRAM_BINS - 2) + (trues,))


_names: dict = {}


def dtype_name(dtype) -> str:
    """`dtype.name`, cached (NumPy computes it in Python on every access)."""
    name = _names.get(dtype)
    if name is None:
        name = _names[dtype] = dtype.name
    return name


def _host_dtype(dtype) -> np.dtype:
    return dtype if dtype_name(dtype) in ARRAY_DTYPES else np.dtype(np.float64)


def _captured(a: np.ndarray, n: int, limit: int):
    """(preview, values) of a NumPy array as read-only host copies."""
    dtype = _host_dtype(a.dtype)
    if n <= limit:
        values = a.real.astype(dtype) if a.dtype.kind == "c" else np.array(a, dtype=dtype, copy=True)
        values.flags.writeable = False
        preview = values.reshape(-1)[:PREVIEW_SIZE]
        return preview, values
    head = next(_pieces(a))[:PREVIEW_SIZE]  # never a.reshape(-1): that copies a non-contiguous array
    preview = head.real.astype(dtype) if head.dtype.kind == "c" else np.array(head, dtype=dtype, copy=True)
    preview.flags.writeable = False
    return preview, None


# --- device (CuPy, the strict test device, any array module): reduce there, copy back little ------

# Where each statistic sits in a summary's vector of float64s on the device; the histogram's 16
# counts follow. An int64's extremes also travel as a (quotient, remainder) pair by 2**32, each
# exact in float64, so they come back exact.
_COUNT, _NANS, _ZEROS, _LO, _HI, _TOTAL, _SPREAD, _SCALE, _SQUARES, _LO_Q, _LO_R, _HI_Q, _HI_R = range(13)
_STATS = 13
_WIDE_FLOATS = frozenset({"float32", "float64", "complex64", "complex128"})


def summarize_on_device(a, xp=None, limit: int = FULL_VALUES_LIMIT, device: str | None = None) -> TensorSummary:
    """Summarise one array with every reduction on its own device (see `_summarize_on_device`);
    any array module works, NumPy included. `xp`, the array's namespace, is found from the array
    itself (the argument is accepted for callers that pass it)."""
    return _summarize_on_device([a], limit, device)[0]


def _summarize_on_device(arrays: list, limit: int, device: str | None = None) -> list:
    """Summaries of arrays that live on one device, computed there: each array's statistics and
    histogram become one float64 vector, all the vectors are stacked and copied to the host at
    once, and so are the previews (or full values), concatenated per dtype. Only those cross:
    two or three device-to-host copies for the whole batch, however many arrays it holds."""
    if device is None:
        device = str(device_of(arrays[0]))
    out, vectors, owners = [], [], []
    captures: dict[str, list] = {}  # host dtype name -> [(summary, flat piece, keeps full values)]
    for a in arrays:
        shape = tuple(int(d) for d in a.shape)
        n = math.prod(shape)
        name, kind = backend.dtype_name(a), backend.dtype_kind(a)
        s = TensorSummary(shape, name, device, n)
        out.append(s)
        if n == 0:
            continue
        flat = backend.reshape(a, (-1,))
        piece = flat if n <= limit else flat[:min(n, PREVIEW_SIZE)]  # the standard has no slicing past the end
        if kind == "c":
            piece = namespace(piece).real(piece)
        if name not in ARRAY_DTYPES:
            piece = backend.astype(piece, namespace(piece).float64)
        captures.setdefault(backend.dtype_name(piece), []).append((s, piece, n <= limit))
        vectors.append(_device_stats(flat, kind, name))
        owners.append((s, kind))
    for pieces in captures.values():
        xp = namespace(pieces[0][1])
        host = to_host(xp.concat([p for _, p, _ in pieces]))  # a fresh buffer: no one else's memory
        host.flags.writeable = False
        start = 0
        for s, piece, full in pieces:
            size = int(piece.shape[0])
            if full:
                s.values = host[start:start + size].reshape(s.shape)
            s.preview = host[start:start + min(size, PREVIEW_SIZE)]
            start += size
    if vectors:
        xp = namespace(vectors[0])
        table = to_host(xp.stack(vectors))
        for (s, kind), row in zip(owners, table.tolist()):
            _fill_from_vector(s, kind, row)
    return out


def _device_stats(flat, kind: str, name: str):
    """A 1-D array's statistics and histogram as one float64 vector on its device (no copy
    to the host, no synchronisation): the reductions of `_fill_float_host`, the finite values
    masked in place of being selected, since a selection's size would have to be read first."""
    xp = namespace(flat)
    f64 = xp.float64
    zero = backend.zeros((), f64, flat)
    if kind == "b":
        return xp.concat([xp.reshape(xp.sum(backend.astype(flat, f64)), (1,)),
                          backend.zeros((_STATS - 1 + HISTOGRAM_BINS,), f64, flat)])
    x = xp.real(flat) if kind == "c" else flat
    if name not in _WIDE_FLOATS:  # integers, float16 (whose sums overflow): in float64
        x = backend.astype(x, f64)
    exact = [zero] * 4
    if kind in "iu":  # no NaN or Inf: every value counts
        mask = None
        count = nans = zero
        wide = x
        lo_native, hi_native = xp.min(flat), xp.max(flat)
        lo, hi = backend.astype(lo_native, f64), backend.astype(hi_native, f64)
        if name in ("int64", "uint64"):
            exact = []
            for v in (lo_native, hi_native):
                q = v // 2**32
                exact += [backend.astype(q, f64), backend.astype(v - q * 2**32, f64)]
        total = xp.sum(wide)
        mean = total / flat.shape[0]
        centered = wide - mean
    else:
        mask = xp.isfinite(x)
        count = xp.sum(backend.astype(mask, f64))
        nans = xp.sum(backend.astype(xp.isnan(x), f64))
        wide = backend.astype(xp.where(mask, x, 0), f64)
        lo = backend.astype(xp.min(xp.where(mask, x, xp.inf)), f64)
        hi = backend.astype(xp.max(xp.where(mask, x, -xp.inf)), f64)
        total = xp.sum(wide)
        mean = total / xp.maximum(count, 1.0)
        centered = xp.where(mask, wide - mean, 0.0)
    zeros = xp.sum(backend.astype(x == 0, f64))
    spread = xp.sum(centered * centered)
    scale = xp.maximum(xp.abs(lo), xp.abs(hi))
    scale = xp.where(xp.isfinite(scale) & (scale > 0), scale, 1.0)  # the norm, scaled: no overflow
    scaled = wide / scale
    squares = xp.sum(scaled * scaled)
    # Bins over [lo, hi], worked out in halves: hi - lo may overflow even float64.
    base = xp.where(xp.isfinite(lo), lo, 0.0) / 2
    width = xp.where(hi > lo, hi / 2 - lo / 2, 1.0)
    index = backend.astype(xp.floor((wide / 2 - base) * (HISTOGRAM_BINS / width)), xp.int64)
    index = xp.clip(index, 0, HISTOGRAM_BINS - 1)
    if mask is not None:  # the NaNs and Infs go to a bin of their own, left out
        index = xp.where(mask, index, HISTOGRAM_BINS)
    hist = backend.bincount(index, HISTOGRAM_BINS + 1)[:HISTOGRAM_BINS]
    stats = xp.stack([count, nans, zeros, lo, hi, total, spread, scale, squares, *exact])
    return xp.concat([stats, backend.astype(hist, f64)])


def _fill_from_vector(s: TensorSummary, kind: str, row: list) -> None:
    """Fill a summary from its vector of statistics, back on the host."""
    n = s.numel
    if kind == "b":
        _fill_bool(s, int(row[_COUNT]), n)
        return
    m = n if kind in "iu" else int(row[_COUNT])
    s.nan_count = int(row[_NANS])
    s.inf_count = n - m - s.nan_count
    s.zero_fraction = int(row[_ZEROS]) / n
    if m == 0:
        return
    lo, hi = row[_LO], row[_HI]
    s.mean = row[_TOTAL] / m
    s.norm = row[_SCALE] * math.sqrt(row[_SQUARES])
    if m > 1:
        s.std = math.sqrt(row[_SPREAD] / (m - 1))
    if kind in "iu":
        if row[_LO_Q] or row[_LO_R] or row[_HI_Q] or row[_HI_R]:
            s.min = int(row[_LO_Q]) * 2**32 + int(row[_LO_R])
            s.max = int(row[_HI_Q]) * 2**32 + int(row[_HI_R])
        else:
            s.min, s.max = int(lo), int(hi)
    else:
        s.min, s.max = lo, hi
    s.histogram = counts([int(c) for c in row[_STATS:]]) if hi > lo else _single_bin(m)


# --- rendering: one look shared by the headless summary and the TUI -------------------------

def format_number(value) -> str:
    """A statistic as a short string ("—" when there is none)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}" if abs(value) < 10**15 else f"{value:.4e}"
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.4g}"


def sparkline(counts) -> str:
    """Counts as a row of block characters, tallest for the largest."""
    heights = [float(c) for c in counts]
    if not heights:
        return ""
    top = max(heights)
    if top <= 0:
        return _SPARKS[0] * len(heights)
    return "".join(" " if c == 0 else _SPARKS[min(len(_SPARKS) - 1, int(c / top * (len(_SPARKS) - 1) + 0.5))]
                   for c in heights)


def preview_text(s: TensorSummary, count: int = 8) -> str:
    """The first `count` preview values, comma-separated, with "…" when there are more."""
    if s.dropped:
        return "(values dropped: memory budget)"
    head = s.preview[:count].tolist()
    body = ", ".join(format_number(v) if not isinstance(v, bool) else str(v) for v in head)
    return f"[{body}{', …' if s.numel > len(head) else ''}]"


def render(s: TensorSummary):
    """A Rich renderable for a summary; every string from the record is literal text."""
    shape = "×".join(str(d) for d in s.shape) if s.shape else "scalar"
    head = Text.assemble(literal(s.dtype, "bold"), " ", shape, "  ", literal(s.device, "dim"),
                         f"  {s.numel:,} element{'s' if s.numel != 1 else ''}")
    grid = Table.grid(padding=(0, 2))
    for _ in range(4):
        grid.add_column()
    grid.add_row(Text("min", "dim"), Text(format_number(s.min)), Text("max", "dim"), Text(format_number(s.max)))
    grid.add_row(Text("mean", "dim"), Text(format_number(s.mean)), Text("std", "dim"), Text(format_number(s.std)))
    grid.add_row(Text("norm", "dim"), Text(format_number(s.norm)), Text("zeros", "dim"),
                 Text(f"{s.zero_fraction:.1%}"))
    bad = "bold red" if s.has_nonfinite else ""
    grid.add_row(Text("nan", "dim"), Text(format_number(s.nan_count), bad),
                 Text("inf", "dim"), Text(format_number(s.inf_count), bad))
    parts = [head, grid]
    if s.histogram.size:
        parts.append(Text.assemble((format_number(s.min), "dim"), " ", (sparkline(s.histogram), "cyan"),
                                   " ", (format_number(s.max), "dim")))
    parts.append(Text(preview_text(s)))
    return Group(*parts)
