"""TensorSummary: what the debugger shows of a tensor, computed on its own device so only scalars and a preview cross to the host."""

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
    from min to max, all counts in bin 0 when min == max.
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
    if isinstance(value, bool):
        return _summarize_host(np.asarray(value), 1, "cpu")
    if isinstance(value, (int, float)):
        try:
            return _summarize_host(np.asarray(value, dtype=np.float64 if isinstance(value, float) else np.int64), 1, "cpu")
        except OverflowError:
            return _summarize_host(np.asarray(float(value)), 1, "cpu")
    return None


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
    mean = float(np.add.reduce(fin, dtype=np.float64)) / m
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
    span = mx - mn
    if fin.dtype.itemsize < 8 and span > float(np.finfo(fin.dtype).max) / 2:
        fin = fin.astype(np.float64)
    if not math.isfinite(span):  # the range overflows even float64: work in halves
        fin, mn, span = fin / 2, mn / 2, mx / 2 - mn / 2
    idx = ((fin - mn) * (HISTOGRAM_BINS / span)).astype(np.intp)
    np.clip(idx, 0, HISTOGRAM_BINS - 1, out=idx)
    out = np.bincount(idx, minlength=HISTOGRAM_BINS).astype(np.int64, copy=False)
    out.flags.writeable = False
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
