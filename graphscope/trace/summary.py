"""TensorSummary: what the debugger shows of a tensor, computed where the tensor lives."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from rich.console import Group
from rich.table import Table
from rich.text import Text

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
    from min to max, all counts in bin 0 when min == max; past 4,096 finite values it is
    estimated from an evenly strided sample of about 4,096 and scaled to the finite count.
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
    """Summarise a device array (NumPy or CuPy) on its own device."""
    xp = namespace(array)
    if xp is np:
        return _summarize_host(np.asarray(array), full_values_limit, device or "cpu")
    return summarize_on_device(array, xp, full_values_limit, device or str(device_of(array)))


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


def summarize_many(arrays, full_values_limit: int = FULL_VALUES_LIMIT) -> list:
    """Summaries of many device arrays at once. Small finite float NumPy arrays are reduced
    together (one segmented pass per statistic instead of a dozen small calls each); the rest
    go through `summarize`."""
    out = [None] * len(arrays)
    batch = []
    for i, a in enumerate(arrays):
        if type(a) is np.ndarray and a.dtype.kind == "f" and 0 < a.size <= BATCH_LIMIT:
            batch.append(i)
        else:
            out[i] = summarize(a, full_values_limit)
    if batch:
        for i, s in zip(batch, _summarize_batch([arrays[i] for i in batch], full_values_limit)):
            out[i] = s
    return out


def _summarize_batch(arrays: list, limit: int) -> list:
    """Statistics of many small float arrays from segmented reductions over their concatenation;
    their values become read-only views of one host buffer (the arrays themselves are not kept)."""
    count = len(arrays)
    sizes = np.fromiter((a.size for a in arrays), dtype=np.intp, count=count)
    starts = np.zeros(count, dtype=np.intp)
    np.cumsum(sizes[:-1], out=starts[1:])
    dtype = arrays[0].dtype
    same_dtype = all(a.dtype is dtype for a in arrays) and dtype.name in ARRAY_DTYPES
    if not same_dtype:
        dtype = np.dtype(np.float64)
    cat = np.concatenate([a.reshape(-1) for a in arrays]).astype(dtype, copy=False)
    flat = cat.astype(np.float64, copy=False)
    finite = np.isfinite(flat)
    if not finite.all():  # a few arrays with NaN/Inf: summarise those one by one
        bad = set(np.add.reduceat(~finite, starts).nonzero()[0].tolist())
        good = [i for i in range(count) if i not in bad]
        result = [None] * count
        for i in bad:
            result[i] = summarize(arrays[i], limit)
        if good:
            for i, s in zip(good, _summarize_batch([arrays[i] for i in good], limit)):
                result[i] = s
        return result
    if not same_dtype:  # keep each array's own dtype in its values
        cat = None
    else:
        cat.flags.writeable = False
    lows = np.minimum.reduceat(flat, starts)
    highs = np.maximum.reduceat(flat, starts)
    means = np.add.reduceat(flat, starts) / sizes
    squares = np.add.reduceat(flat * flat, starts)
    centered = flat - np.repeat(means, sizes)
    stds = np.sqrt(np.add.reduceat(centered * centered, starts) / np.maximum(sizes - 1, 1))
    zeros = np.add.reduceat(flat == 0, starts, dtype=np.intp) / sizes
    spans = highs - lows
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        scales = np.where((spans > 0) & np.isfinite(spans), HISTOGRAM_BINS / spans, 0.0)
    idx = ((flat - np.repeat(lows, sizes)) * np.repeat(scales, sizes)).astype(np.intp)
    np.clip(idx, 0, HISTOGRAM_BINS - 1, out=idx)
    idx += np.repeat(np.arange(count, dtype=np.intp) * HISTOGRAM_BINS, sizes)
    hist = np.bincount(idx, minlength=HISTOGRAM_BINS * count).reshape(count, HISTOGRAM_BINS)
    level = spans <= 0
    if level.any():  # every value equal: all in the first bin
        hist[level] = 0
        hist[level, 0] = sizes[level]
    hist.flags.writeable = False
    norms = np.sqrt(squares).tolist()
    name = dtype_name(dtype)
    out = []
    append = out.append
    for i, (a, start, n, lo, hi, mean, sd, norm, zf) in enumerate(zip(
            arrays, starts.tolist(), sizes.tolist(), lows.tolist(), highs.tolist(), means.tolist(),
            stds.tolist(), norms, zeros.tolist())):
        if cat is not None:
            if n <= limit:
                values = cat[start:start + n].reshape(a.shape)
                preview = cat[start:start + min(n, PREVIEW_SIZE)]
            else:
                values, preview = None, cat[start:start + min(n, PREVIEW_SIZE)]
            append(TensorSummary(a.shape, name, "cpu", n, lo, hi, mean, sd if n > 1 else None, norm,
                                 0, 0, zf, hist[i], preview, values))
        else:
            preview, values = _captured(a, n, limit)
            append(TensorSummary(a.shape, dtype_name(a.dtype), "cpu", n, lo, hi, mean,
                                 sd if n > 1 else None, norm, 0, 0, zf, hist[i], preview, values))
    return out


# --- host (NumPy): the array is already where the statistics are wanted --------------------

def _summarize_host(a: np.ndarray, limit: int, device: str) -> TensorSummary:
    shape = tuple(int(d) for d in a.shape)
    n = int(a.size)
    preview, values = _captured(a, n, limit)
    summary = TensorSummary(shape, dtype_name(a.dtype), device, n, preview=preview, values=values)
    if n == 0:
        return summary
    kind = a.dtype.kind
    flat = a.reshape(-1)
    if kind == "b":
        _fill_bool(summary, int(np.count_nonzero(flat)), n)
        return summary
    if kind == "c":
        flat = flat.real
    elif kind in "iu":
        flat = flat.astype(np.float64)
    _fill_float_host(summary, flat, n)
    if kind in "iu":
        summary.min, summary.max = int(a.min()), int(a.max())
    return summary


def _fill_float_host(s: TensorSummary, x: np.ndarray, n: int) -> None:
    mn, mx = x.min(), x.max()  # NaN propagates through min/max: finite ends mean all finite
    if math.isfinite(mn) and math.isfinite(mx):
        fin = x
    else:
        fin = x[np.isfinite(x)]
        s.nan_count = int(np.count_nonzero(np.isnan(x)))
        s.inf_count = n - int(fin.size) - s.nan_count
        if fin.size:
            mn, mx = fin.min(), fin.max()
    zeros = n - int(np.count_nonzero(x)) if n < 8192 else int(np.count_nonzero(x == 0))
    s.zero_fraction = zeros / n
    m = int(fin.size)
    if m == 0:
        return
    mn, mx = float(mn), float(mx)
    mean = _total(fin) / m
    squares = float(np.vdot(fin, fin))
    if not math.isfinite(squares):  # the narrow dot product overflowed: redo it wide
        wide = fin.astype(np.float64)
        squares = float(np.vdot(wide, wide))
    if math.isfinite(squares):
        s.norm = math.sqrt(squares)
    else:
        big = max(abs(mn), abs(mx))
        scaled = fin.astype(np.float64) / big
        s.norm = big * math.sqrt(float(np.vdot(scaled, scaled)))
    s.min, s.max, s.mean = mn, mx, mean
    if m > 1:
        spread = squares - m * mean * mean
        if not math.isfinite(spread) or spread < 0.01 * squares:  # cancellation: two passes
            centered = fin.astype(np.float64) - mean
            spread = float(np.vdot(centered, centered))
        s.std = math.sqrt(max(spread, 0.0) / (m - 1))
    s.histogram = _histogram_host(fin, mn, mx, m)


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


def _histogram_host(fin: np.ndarray, mn: float, mx: float, m: int) -> np.ndarray:
    if mx == mn:
        return _single_bin(m)
    sample = fin if m <= HISTOGRAM_EXACT else fin[:: -(-m // HISTOGRAM_EXACT)]
    span = mx - mn
    if sample.dtype.itemsize < 8 and span > float(np.finfo(sample.dtype).max) / 2:
        sample = sample.astype(np.float64)
    if not math.isfinite(span):  # the range overflows even float64: work in halves
        sample, mn, span = sample / 2, mn / 2, mx / 2 - mn / 2
    idx = ((sample - mn) * (HISTOGRAM_BINS / span)).astype(np.intp)
    np.clip(idx, 0, HISTOGRAM_BINS - 1, out=idx)
    out = np.bincount(idx, minlength=HISTOGRAM_BINS).astype(np.int64, copy=False)
    if sample.size != m:
        out = _scaled(out, m)
    out.flags.writeable = False
    return out


def _scaled(sample_counts: np.ndarray, total: int) -> np.ndarray:
    """Counts of a sample scaled to `total`, rounded so they add up to it exactly."""
    exact = sample_counts * (total / int(sample_counts.sum()))
    out = np.floor(exact).astype(np.int64)
    short = total - int(out.sum())
    if short:
        out[np.argsort(out - exact)[:short]] += 1
    return out


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


def _captured(a, n: int, limit: int):
    """(preview, values) as read-only host arrays; `a` may be NumPy or CuPy."""
    dtype = _host_dtype(a.dtype)
    if n <= limit:
        host = to_host(a)
        values = host.real.astype(dtype) if host.dtype.kind == "c" else np.array(host, dtype=dtype, copy=True)
        values.flags.writeable = False
        preview = values.reshape(-1)[:PREVIEW_SIZE]
        return preview, values
    head = to_host(a.reshape(-1)[:PREVIEW_SIZE])
    preview = head.real.astype(dtype) if head.dtype.kind == "c" else np.array(head, dtype=dtype, copy=True)
    preview.flags.writeable = False
    return preview, None


# --- device (CuPy, or any array module): reduce there, bring back one vector -------------------

def summarize_on_device(a, xp, limit: int = FULL_VALUES_LIMIT, device: str = "cuda") -> TensorSummary:
    """Summarise with every reduction on the array's device and two transfers to the host:
    the preview (or full values), and one vector of statistics and histogram counts."""
    shape = tuple(int(d) for d in a.shape)
    n = int(a.size)
    preview, values = _captured(a, n, limit)
    s = TensorSummary(shape, dtype_name(a.dtype), device, n, preview=preview, values=values)
    if n == 0:
        return s
    flat = a.reshape(-1)
    kind = a.dtype.kind
    if kind == "b":
        _fill_bool(s, int(xp.count_nonzero(flat)), n)
        return s
    x = flat.real if kind == "c" else flat
    x = x.astype(xp.float64) if kind in "iu" or x.dtype.itemsize < 4 else x
    mask = xp.isfinite(x)
    count = mask.sum()
    wide = xp.where(mask, x, 0).astype(xp.float64)
    lo = xp.where(mask, x, xp.inf).min().astype(xp.float64)
    hi = xp.where(mask, x, -xp.inf).max().astype(xp.float64)
    total = wide.sum()
    mean = total / xp.maximum(count, 1)
    centered = xp.where(mask, wide - mean, 0)
    spread = (centered * centered).sum()
    scale = xp.maximum(xp.abs(lo), xp.abs(hi))
    scale = xp.where(xp.isfinite(scale) & (scale > 0), scale, 1.0)
    scaled = wide / scale
    squares = (scaled * scaled).sum()
    base = xp.where(xp.isfinite(lo), lo, 0.0) / 2  # halves: the range may overflow float64
    width = xp.where(hi > lo, hi / 2 - lo / 2, 1.0)
    idx = ((wide / 2 - base) * (HISTOGRAM_BINS / width)).astype(xp.int64)
    idx = xp.where(mask, xp.clip(idx, 0, HISTOGRAM_BINS - 1), HISTOGRAM_BINS)
    hist = xp.bincount(idx, minlength=HISTOGRAM_BINS + 1)[:HISTOGRAM_BINS]
    nans = xp.isnan(x).sum()
    zeros = (x == 0).sum()
    stats = xp.concatenate([
        xp.stack([lo, hi, total, spread, scale, squares, count.astype(xp.float64),
                  nans.astype(xp.float64), zeros.astype(xp.float64)]),
        hist.astype(xp.float64),
    ])
    host = to_host(stats).tolist()
    lo, hi, total, spread, scale, squares, count, nans, zeros = host[:9]
    m = int(count)
    s.nan_count = int(nans)
    s.inf_count = n - m - s.nan_count
    s.zero_fraction = int(zeros) / n
    if m == 0:
        return s
    s.mean = total / m
    s.norm = scale * math.sqrt(squares)
    if m > 1:
        s.std = math.sqrt(spread / (m - 1))
    if kind in "iu":
        s.min, s.max = int(lo), int(hi)
    else:
        s.min, s.max = lo, hi
    s.histogram = counts([int(c) for c in host[9:]]) if hi > lo else _single_bin(m)
    return s


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
