"""Device statistics: every reduction on the array's own device, a couple of copies to the host."""

from __future__ import annotations

import math
from typing import Any

from graphscope.engine import backend
from graphscope.engine.backend import device_of, namespace, to_host

from ..record.tensor_summary import (
    ARRAY_DTYPES,
    FULL_VALUES_LIMIT,
    HISTOGRAM_BINS,
    PREVIEW_SIZE,
    TensorSummary,
)
from .host import counts, fill_bool, single_bin

# Where each statistic sits in a summary's vector of float64s on the device; the histogram's 16
# counts follow. An int64's extremes also travel as a (quotient, remainder) pair by 2**32, each
# exact in float64, so they come back exact.
_COUNT, _NANS, _ZEROS, _LO, _HI, _TOTAL, _SPREAD, _SCALE, _SQUARES, _LO_Q, _LO_R, _HI_Q, _HI_R = range(13)
_STATS = 13
_WIDE_FLOATS = frozenset({"float32", "float64", "complex64", "complex128"})

# An array of any graphscope device: NumPy's, CuPy's, array-api-strict's (the tests'). They share
# no static type; the array API standard they follow is not one a type checker reads.
DeviceArray = Any


def summarize_on_device(
    a: DeviceArray,
    xp: object = None,
    limit: int = FULL_VALUES_LIMIT,
    device: str | None = None,
) -> TensorSummary:
    """Summarise one array with every reduction on its own device (see `summarize_on_device_batch`);
    any array module works, NumPy included. `xp`, the array's namespace, is found from the array
    itself (the argument is accepted for callers that pass it)."""
    return summarize_on_device_batch([a], limit, device)[0]


def summarize_on_device_batch(arrays: list[DeviceArray], limit: int, device: str | None = None) -> list[TensorSummary]:
    """Summaries of arrays that live on one device, computed there: each array's statistics and
    histogram become one float64 vector, all the vectors are stacked and copied to the host at
    once, and so are the previews (or full values), concatenated per dtype. Only those cross:
    two or three device-to-host copies for the whole batch, however many arrays it holds."""
    if device is None:
        device = str(device_of(arrays[0]))
    out: list[TensorSummary] = []
    vectors: list[DeviceArray] = []
    owners: list[tuple[TensorSummary, str]] = []
    # host dtype name -> [(summary, flat piece, keeps full values)]
    captures: dict[str, list[tuple[TensorSummary, DeviceArray, bool]]] = {}
    for a in arrays:
        shape = tuple(int(d) for d in a.shape)
        n = math.prod(shape)
        name, kind = backend.dtype_name(a), backend.dtype_kind(a)
        s = TensorSummary(shape, name, device, n)
        out.append(s)
        if n == 0:
            continue
        flat = backend.reshape(a, (-1,))
        piece = flat if n <= limit else flat[: min(n, PREVIEW_SIZE)]  # the standard has no slicing past the end
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
                s.values = host[start : start + size].reshape(s.shape)
            s.preview = host[start : start + min(size, PREVIEW_SIZE)]
            start += size
    if vectors:
        xp = namespace(vectors[0])
        table = to_host(xp.stack(vectors))
        for (s, kind), row in zip(owners, table.tolist()):
            _fill_from_vector(s, kind, row)
    return out


def _device_stats(flat: DeviceArray, kind: str, name: str) -> DeviceArray:
    """A 1-D array's statistics and histogram as one float64 vector on its device (no copy
    to the host, no synchronisation): the reductions of `fill_float_host`, the finite values
    masked in place of being selected, since a selection's size would have to be read first."""
    xp = namespace(flat)
    f64 = xp.float64
    zero = backend.zeros((), f64, flat)
    if kind == "b":
        return xp.concat(
            [
                xp.reshape(xp.sum(backend.astype(flat, f64)), (1,)),
                backend.zeros((_STATS - 1 + HISTOGRAM_BINS,), f64, flat),
            ]
        )
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


def _fill_from_vector(s: TensorSummary, kind: str, row: list[float]) -> None:
    """Fill a summary from its vector of statistics, back on the host."""
    n = s.numel
    if kind == "b":
        fill_bool(s, int(row[_COUNT]), n)
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
    s.histogram = counts([int(c) for c in row[_STATS:]]) if hi > lo else single_bin(m)
