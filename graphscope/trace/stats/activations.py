"""A module output's activation statistics for the training series: mean, std, saturated and dead fractions.

Made for every module output of every pass, whatever the detail window keeps, so a module's outputs
over several passes are reduced together (`figures_of_passes`): mean and std from the sum and the sum
of squares, the saturated fraction of a tanh or sigmoid output (within `SATURATION` of a bound), the
dead fraction of a ReLU's units (zero for every row of the batch, as the record's `dead` column counts
them). Arrays of other devices are reduced there and their figures come back in one transfer per call.
"""

from __future__ import annotations

import math

import numpy as np

from graphscope.engine import backend
from graphscope.engine.backend import namespace

from .device import DeviceArray
from .scratch import scratch
from .stacked import rows, runs

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
            row = figures_of_passes([a], kind)[0].tolist()
            out.append((row[0], row[1], row[2], row[3]))
        else:
            device.append((len(out), _on_device(a, kind)))
            out.append((_NAN, _NAN, _NAN, _NAN))
    if device:
        values = iter(backend.scalars([v for _, parts in device for v in parts]))
        for k, parts in device:
            got = [next(values) for _ in parts]
            a, kind = outputs[k]
            out[k] = _figures(got[0], got[1], a.size, kind, got[2] if len(got) > 2 else None, _units(a))
    return out


def figures_of_passes(arrays: list[DeviceArray], kind: str) -> np.ndarray:
    """The figures (rows of mean, std, saturated, dead) of one module's outputs over several passes,
    each of the same shape and dtype, reduced together: a few NumPy calls per run of them (host
    arrays, `stacked.runs`; another device's are summarised one by one)."""
    first = arrays[0]
    if type(first) is not np.ndarray:
        return np.array(activation_figures([(a, kind) for a in arrays]), dtype=np.float64).reshape(-1, 4)
    out = np.full((len(arrays), 4), _NAN)
    if first.size and first.dtype.kind in "fiub":
        for run in runs(arrays, same=True):
            _host_figures(arrays[run], kind, out[run])
    return out


def _host_figures(arrays: list[np.ndarray], kind: str, out: np.ndarray) -> None:
    """Rows `out` set to the figures of host arrays of one shape and a numeric dtype, stacked; the
    temporaries in scratch buffers."""
    first = arrays[0]
    k, size = len(arrays), first.size
    stack = flat = rows(arrays, "activation.stack")
    if flat.dtype.kind != "f" or flat.dtype.itemsize < 4:  # summed in float32 at least (a float16 squared overflows)
        flat = flat.astype(np.float32 if flat.dtype.kind == "f" else np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # (once per run of passes)
        total = flat.sum(axis=1).astype(np.float64)
        squares = np.multiply(flat, flat, out=_work("activation.squares", flat)).sum(axis=1).astype(np.float64)
        # a float32's squares past its range are summed again wide
        wide = ~np.isfinite(squares) & np.isfinite(total)
        if wide.any():
            squares[wide] = np.einsum("ij,ij->i", flat[wide], flat[wide], dtype=np.float64)
        mean = out[:, 0] = total / size
        std = np.sqrt(np.maximum(squares / size - mean * mean, 0.0))
        out[:, 1] = np.where(np.isfinite(squares), std, _NAN)  # a NaN or Inf output has no std
    bounds = _BOUNDS.get(kind)
    if bounds is not None:
        low, high = bounds
        near = np.less_equal(flat, low + SATURATION, out=_work("activation.low", flat, np.bool_))
        near |= np.greater_equal(flat, high - SATURATION, out=_work("activation.high", flat, np.bool_))
        out[:, 2] = np.count_nonzero(near, axis=1) / size
    elif kind == "relu" and first.ndim:
        units = _units(first)
        alive = np.count_nonzero(stack.reshape(k, first.shape[0], -1).any(axis=1), axis=1)
        out[:, 3] = (units - alive) / units


def _work(name: str, like: np.ndarray, dtype: type[np.generic] | None = None) -> np.ndarray:
    """Scratch buffer `name` shaped as `like`, of its dtype or `dtype`."""
    return scratch(name, dtype or like.dtype, like.size).reshape(like.shape)


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
