"""Update-to-data ratios |Δw| / |w| of a parameter's steps over several passes, reduced together."""

from __future__ import annotations

import math

import numpy as np

from .device import DeviceArray
from .finite import squared_norm, to_host_floats


def update_ratios(befores: list[DeviceArray], afters: list[DeviceArray]) -> np.ndarray:
    """|after - before| / |before| of each pair (NaN where |before| is 0 or not finite); host arrays
    of one shape and dtype in a few NumPy calls for them all, another device's one transfer."""
    first = befores[0]
    if type(first) is not np.ndarray or first.dtype.kind != "f":
        pairs: list[tuple[str, float | DeviceArray]] = []
        for before, after in zip(befores, afters):
            pairs += [("", squared_norm(after - before)), ("", squared_norm(before))]
        host = [v for _, v in to_host_floats(pairs)]
        updates, values = np.array(host[0::2]), np.array(host[1::2])
    else:
        k = len(befores)
        b = (np.stack(befores) if k > 1 else first[None]).reshape(k, -1)
        a = (np.stack(afters) if k > 1 else afters[0][None]).reshape(k, -1)
        if b.dtype.itemsize < 4:  # (a float16 squared overflows)
            a, b = a.astype(np.float32), b.astype(np.float32)
        with np.errstate(over="ignore", invalid="ignore"):
            d = a - b
            updates = (d * d).sum(axis=1).astype(np.float64)
            values = (b * b).sum(axis=1).astype(np.float64)
            wide = ~np.isfinite(values)  # a float32's squares past its range (or a NaN/Inf value)
            if wide.any():
                updates[wide] = np.einsum("ij,ij->i", d[wide], d[wide], dtype=np.float64)
                values[wide] = np.einsum("ij,ij->i", b[wide], b[wide], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        ratios = np.sqrt(updates / values)
    return np.where((values > 0) & (values < math.inf), ratios, math.nan)
