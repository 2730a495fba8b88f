"""torch.histogram and torch.histc: how many of a tensor's values fall in each bin.

Bins hold their left edge and not their right, but for the last, which holds both; values outside the
range and NaN are not counted. Neither op has a derivative: their outputs never require grad (torch's
histogram gives its outputs a node whose backward only raises; here they are plain tensors).
"""

from __future__ import annotations

import math
import operator
from collections import namedtuple

from .. import backend, dtypes
from ..creation import linspace
from ..tensor import Tensor, wrap
from .operands import tensor_input
from .tensor_methods import method

HistogramResult = namedtuple("histogram", ["hist", "bin_edges"])  # type: ignore[name-match]  # torch.return_types.histogram's name


@method("histogram")
def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """(hist, bin_edges): `bins` equal-width bins over `range` (default: the values' min to max), or the
    bins between the edges of a 1-D tensor `bins`; each value counts its `weight` (default 1); with
    `density`, the counts are divided by their total and by each bin's width."""
    tensor_input(input, "histogram")
    if isinstance(bins, Tensor):
        if range is not None:
            raise TypeError(
                "histogram(): range= goes with a number of bins, not with a tensor of bin edges "
                "(the edges already give the range)"
            )
        edges = _given_edges(input, bins)
    else:
        edges = _equal_width_edges(
            input, _bin_count(bins, "histogram", "the number of bins, or a 1-D tensor of edges"), range
        )
    values = backend.reshape(input.array, (-1,))
    weights = None if weight is None else _weights(input, weight)
    hist = _counts(values, edges.array, weights)
    if density:
        xp = backend.namespace(hist)
        total = backend.asarray(float(xp.sum(hist)), hist, hist.dtype)
        hist = hist / total / (edges.array[1:] - edges.array[:-1])
    return HistogramResult(wrap(hist), edges)


@method("histc")
def histc(input, bins=100, min=0, max=0):
    """The counts of `bins` equal-width bins from `min` to `max` (both 0, or equal: the values' min and
    max), as torch.histc."""
    tensor_input(input, "histc")
    count = _bin_count(bins, "histc", "the number of bins")
    _check_floating(input, "histc")
    low, high = float(min), float(max)
    if low == high and input.numel() > 0:
        xp = backend.namespace(input.array)
        low, high = float(xp.min(input.array)), float(xp.max(input.array))
    if low == high:
        low, high = low - 1, high + 1
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"histc(): the range [{low:g}, {high:g}] is not finite; give finite min= and max=")
    if not low < high:
        raise RuntimeError(f"histc(): max must be larger than min, got min={low:g} and max={high:g}")
    edges = linspace(low, high, count + 1, dtype=input.dtype, device=input.device).array
    values = backend.reshape(input.array, (-1,))
    xp = backend.namespace(values)
    left, right = edges[0], edges[-1]
    inside = (values >= left) & (values <= right)
    # torch's histc places a value by division in the input's dtype, not by the edges (it returns none).
    scale = backend.asarray(count, values, values.dtype)
    place = backend.astype(xp.where(inside, (values - left) * scale / (right - left), 0), _index_dtype(values))
    place = xp.where(inside, xp.minimum(place, count - 1), count)
    return wrap(_tally(place, count, values.dtype, None))


def _bin_count(bins, op: str, what: str) -> int:
    if isinstance(bins, bool) or not isinstance(bins, int):
        try:
            bins = operator.index(bins)
        except TypeError:
            raise TypeError(f"{op}(): bins must be an int ({what}), not {type(bins).__name__}") from None
    if bins <= 0:
        raise RuntimeError(f"{op}(): bins must be > 0, but got {bins}")
    return bins


def _check_floating(input: Tensor, op: str) -> None:
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(
            f"{op}() is not implemented for {input.dtype.name} tensors; convert the input with .float() first"
        )


def _equal_width_edges(input: Tensor, count: int, range) -> Tensor:
    """`count` + 1 edges from range's ends (or the values' min and max), as torch's linspace gives them."""
    _check_floating(input, "histogram")
    if range is not None:
        if len(range) != 2:
            raise RuntimeError(f"histogram(): range should be (min, max), 2 numbers, but got {len(range)}")
        low, high = float(range[0]), float(range[1])
    elif input.numel() > 0:
        xp = backend.namespace(input.array)
        low, high = float(xp.min(input.array)), float(xp.max(input.array))
    else:
        low, high = 0.0, 1.0  # NumPy's default range for no values
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(
            f"histogram(): the range [{low:g}, {high:g}] is not finite; give range=(min, max) with finite numbers"
        )
    if low > high:
        raise RuntimeError(f"histogram(): min should not exceed max, but got min {low:g} max {high:g}")
    if low == high:
        low, high = low - 0.5, high + 0.5
    return linspace(low, high, count + 1, dtype=input.dtype, device=input.device)


def _given_edges(input: Tensor, bins: Tensor) -> Tensor:
    if bins.dtype is not input.dtype:
        raise RuntimeError(
            f"histogram(): the input ({input.dtype.name}) and the bin edges ({bins.dtype.name}) should have "
            f"the same dtype; convert the edges with .to({input.dtype.name})"
        )
    if bins.ndim != 1:
        raise RuntimeError(f"histogram(): bins should be a 1-D tensor of edges, but got {bins.ndim} dimensions")
    if bins.numel() < 2:
        raise RuntimeError(f"histogram(): bins must be > 0, but got {bins.numel() - 1} (give at least two edges)")
    _check_floating(input, "histogram")
    return bins.detach()


def _weights(input: Tensor, weight) -> object:
    tensor_input(weight, "histogram", "weight")
    if weight.dtype is not input.dtype:
        raise RuntimeError(
            f"histogram(): the input ({input.dtype.name}) and weight ({weight.dtype.name}) should have the same "
            f"dtype; convert the weight with .to({input.dtype.name})"
        )
    if weight.numel() != input.numel():
        raise RuntimeError(
            f"histogram(): weight should have one value per input value ({input.numel()}), "
            f"but got {weight.numel()} (shape {list(weight.shape)})"
        )
    return backend.reshape(weight.array, (-1,))


def _counts(values, edges, weights):
    """Each bin's count (or weight) for the 1-D `values`, by the edges: bin i holds edges[i] <= v < edges[i + 1]."""
    xp = backend.namespace(values)
    count = int(edges.shape[0]) - 1
    inside = (values >= edges[0]) & (values <= edges[-1])  # NaN is outside
    place = xp.searchsorted(edges, xp.where(inside, values, edges[0]), side="right") - 1
    place = xp.where(inside, xp.minimum(place, count - 1), count)
    return _tally(place, count, values.dtype, weights)


def _tally(place, count: int, dtype, weights):
    """The sum of `weights` (or the number of values) at each place 0..count-1; place `count` is not counted."""
    place = backend.astype(place, _index_dtype(place))
    if weights is None:
        return backend.astype(backend.bincount(place, count + 1)[:count], dtype)
    total = backend.zeros((count + 1,), dtype, place)
    backend.scatter_add(total, place, weights)
    return total[:count]


def _index_dtype(like):
    return backend.native_dtype(dtypes.int64, like)
