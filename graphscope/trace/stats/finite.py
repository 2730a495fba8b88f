"""NaN/Inf detection and grad norms over host and device arrays, in few reductions and transfers."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable

import numpy as np

from graphscope.engine import backend
from graphscope.engine.backend import namespace

from .device import DeviceArray
from .summarize import Summarized

NUMBER = (int, float, bool)


def is_finite(x: float | None) -> bool:
    """Whether a float (or None: nothing known) is neither NaN nor Inf."""
    return x is None or x - x == 0.0


def squared_norm(grad: DeviceArray) -> float | DeviceArray:
    """The sum of squares of `grad`: a float on the CPU, a device scalar elsewhere (read later)."""
    if type(grad) is np.ndarray:
        squares = float(np.vdot(grad, grad))
        if squares == math.inf:  # a narrow dtype overflowed: redo it wide
            wide = grad.astype(np.float64)
            squares = float(np.vdot(wide, wide))
        return squares
    xp = namespace(grad)
    wide = backend.astype(grad, xp.float64)
    return xp.sum(wide * wide)


def grad_norm(grad: DeviceArray) -> float:
    """The L2 norm of `grad` in float64, on the host (one scalar crosses from a device)."""
    squares = squared_norm(grad)
    return math.sqrt(squares if isinstance(squares, float) else float(backend.scalar(squares)))


def to_host_floats(pairs: list[tuple[str, float | DeviceArray]]) -> list[tuple[str, float]]:
    """[(label, float or device scalar)] -> [(label, float)], one transfer per device."""
    device = [i for i, (_, v) in enumerate(pairs) if not isinstance(v, float)]
    if not device:
        return pairs
    out = list(pairs)
    for i, v in zip(device, backend.scalars([pairs[i][1] for i in device])):
        out[i] = (pairs[i][0], v)
    return out


def any_nonfinite(arrays: Iterable[DeviceArray], known_finite: Collection[int] = ()) -> bool:
    """Whether any value in the arrays (or Python numbers) is NaN or Inf, in few reductions:
    the small NumPy arrays are checked together, each large one with a sum of squares, those
    of other devices with a reduction each there and one transfer per device for the answers."""
    small: list[np.ndarray] = []
    flags: list[DeviceArray] = []
    for a in arrays:
        kind = type(a)
        if kind is np.ndarray:
            if id(a) in known_finite:
                continue
            if a.size <= 4096:
                small.append(a.reshape(-1))
            elif a.dtype.kind in "fc" and _nonfinite_in(a):
                return True
        elif kind is float:
            if a - a != 0.0:
                return True
        elif kind is Summarized:
            if a.summary.has_nonfinite:
                return True
        elif (
            a is not None
            and kind not in NUMBER
            and backend.is_array(a)
            and id(a) not in known_finite
            and backend.dtype_kind(a) in "fc"
        ):
            xp = namespace(a)
            flags.append(xp.any(xp.logical_not(xp.isfinite(a))))
    if small:
        flat = np.concatenate(small) if len(small) > 1 else small[0]
        if flat.dtype.kind in "fc" and _nonfinite_in(flat):
            return True
    return any(backend.scalars(flags)) if flags else False


def _nonfinite_in(a: np.ndarray) -> bool:
    flat = a.reshape(-1)
    if flat.dtype.kind == "f" and flat.dtype.itemsize >= 4:
        total = np.dot(flat, flat)  # BLAS: NaN and Inf propagate, and no warnings
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            total = (np.abs(flat) ** 2).sum()
    if math.isfinite(float(total)):
        return False
    return not bool(np.isfinite(flat).all())
