"""Update-to-data ratios |Δw| / |w| of a parameter's steps over several passes, reduced together."""

from __future__ import annotations

import math

import numpy as np

from .device import DeviceArray
from .finite import squared_norm, to_host_floats
from .scratch import scratch
from .stacked import rows, runs

_KEEP = 1 << 20  # elements of the squares' buffer kept between steps: a recorder copies parameters up to this size


def update_ratios(befores: list[DeviceArray], afters: list[DeviceArray], same: bool = False) -> np.ndarray:
    """|after - before| / |before| of each pair (NaN where |before| is 0 or not finite); host arrays
    in a few NumPy calls per run of them (`stacked.runs`; `same`: the caller knows they have one
    shape and dtype), another device's in one transfer."""
    first = befores[0]
    if type(first) is not np.ndarray or first.dtype.kind != "f":
        pairs: list[tuple[str, float | DeviceArray]] = []
        for before, after in zip(befores, afters):
            pairs += [("", squared_norm(after - before)), ("", squared_norm(before))]
        host = [v for _, v in to_host_floats(pairs)]
        updates, values = np.array(host[0::2]), np.array(host[1::2])
    else:
        updates, values = np.empty(len(befores)), np.empty(len(befores))
        for run in runs(befores, same):
            updates[run], values[run] = _squares(rows(befores[run], "ratio.before"), rows(afters[run], "ratio.after"))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        ratios = np.sqrt(updates / values)
    return np.where((values > 0) & (values < math.inf), ratios, math.nan)


def _squares(b: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sums of squares of each row of `a - b` and of `b` (host floats of one dtype), summed in
    their dtype (float32 at least), as float64; the squares of both in one scratch buffer."""
    if b.dtype.itemsize < 4:  # (a float16 squared overflows)
        a, b = a.astype(np.float32), b.astype(np.float32)
    work = scratch("ratio.squares", b.dtype, b.size, _KEEP).reshape(b.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        np.subtract(a, b, out=work)
        updates = np.multiply(work, work, out=work).sum(axis=1).astype(np.float64)
        values = np.multiply(b, b, out=work).sum(axis=1).astype(np.float64)
        wide = ~np.isfinite(values)  # a float32's squares past its range (or a NaN/Inf value)
        if wide.any():
            d, b = a[wide] - b[wide], b[wide]
            updates[wide] = np.einsum("ij,ij->i", d, d, dtype=np.float64)
            values[wide] = np.einsum("ij,ij->i", b, b, dtype=np.float64)
    return updates, values
