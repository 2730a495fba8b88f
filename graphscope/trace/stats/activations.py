"""A module output's activation statistics for the training series: mean, std, saturated and dead fractions.

Made once per module output per pass, whatever the detail window keeps, so each is a few reductions:
mean and std from the sum and the sum of squares, the saturated fraction of a tanh or sigmoid output
(within `SATURATION` of a bound), the dead fraction of a ReLU's units (zero for every row of the batch,
as the record's `dead` column counts them). Arrays of other devices are reduced there and their
figures come back in one transfer per call.
"""

from __future__ import annotations

import math

import numpy as np

from graphscope.engine import backend
from graphscope.engine.backend import namespace

from .device import DeviceArray

SATURATION = 0.01  # a tanh or sigmoid output this close to a bound counts as saturated
# op -> the bounds its saturation is measured against
_BOUNDS = {"tanh": (-1.0, 1.0), "sigmoid": (0.0, 1.0)}
_NAN = math.nan

Figures = tuple[float, float, float, float]  # mean, std, saturated, dead


def activation_figures(outputs: list[tuple[DeviceArray, str]]) -> list[Figures]:
    """(mean, std (over every element), saturated, dead) of each (array, kind) in `outputs`; kind is
    "relu", "tanh", "sigmoid" or another op's (NaN for the fractions it has no meaning for)."""
    out: list[Figures] = []
    device: list[tuple[int, list[DeviceArray]]] = []  # (position, [sum, squares, count or None])
    for a, kind in outputs:
        if type(a) is np.ndarray:
            out.append(_host(a, kind))
        else:
            device.append((len(out), _on_device(a, kind)))
            out.append((_NAN, _NAN, _NAN, _NAN))
    if device:
        values = iter(backend.scalars([v for _, parts in device for v in parts]))
        for (k, parts), (a, kind) in zip(device, [outputs[k] for k, _ in device]):
            got = [next(values) for _ in parts]
            count = got[2] if len(got) > 2 else None
            out[k] = _figures(got[0], got[1], a.size, kind, count, _units(a))
    return out


def _host(a: np.ndarray, kind: str) -> Figures:
    if a.dtype.kind not in "fiub" or a.size == 0:
        return (_NAN, _NAN, _NAN, _NAN)
    wide = a if a.dtype.kind == "f" else a.astype(np.float64)
    total = float(wide.sum())
    squares = float(np.vdot(wide, wide))
    if not math.isfinite(squares) and math.isfinite(total):  # a narrow dtype overflowed: redo it wide
        wide = a.astype(np.float64)
        squares = float(np.vdot(wide, wide))
    count: float | None = None
    bounds = _BOUNDS.get(kind)
    if bounds is not None:
        low, high = bounds
        count = float(np.count_nonzero((a <= low + SATURATION) | (a >= high - SATURATION)))
    elif kind == "relu" and a.ndim:
        count = float(np.count_nonzero(a.reshape(a.shape[0], -1).any(axis=0)))
    return _figures(total, squares, a.size, kind, count, _units(a))


def _on_device(a: DeviceArray, kind: str) -> list[DeviceArray]:
    """The device scalars `_figures` needs for `a`: its sum, its sum of squares, and the saturated
    (tanh, sigmoid) or live-unit (ReLU) count."""
    xp = namespace(a)
    wide = backend.astype(a, xp.float64)
    parts = [xp.sum(wide), xp.sum(wide * wide)]
    bounds = _BOUNDS.get(kind)
    if bounds is not None:
        low, high = bounds
        parts.append(xp.sum(backend.astype((wide <= low + SATURATION) | (wide >= high - SATURATION), xp.int64)))
    elif kind == "relu" and a.ndim:
        flat = backend.reshape(a, (a.shape[0], -1))
        parts.append(xp.sum(backend.astype(xp.any(flat != 0, axis=0), xp.int64)))
    return parts


def _units(a: DeviceArray) -> int:
    """A ReLU output's units: everything after the batch dimension."""
    return math.prod(a.shape[1:]) if a.ndim else 0


def _figures(total: float, squares: float, size: int, kind: str, count: float | None, units: int) -> Figures:
    if not size:
        return (_NAN, _NAN, _NAN, _NAN)
    mean = total / size
    std = math.sqrt(max(squares / size - mean * mean, 0.0)) if math.isfinite(squares) else _NAN
    saturated = dead = _NAN
    if count is not None:
        if kind == "relu":
            dead = (units - count) / units if units else _NAN
        else:
            saturated = count / size
    return (mean, std, saturated, dead)
