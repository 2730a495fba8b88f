"""How a loss primitive applies `reduction` ("none", "mean", "sum"), forward and backward: shared by every loss."""

from __future__ import annotations

import contextlib

from .. import backend

_REDUCTIONS = ("none", "mean", "sum")


def check_reduction(reduction: str, name: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{name}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")


def legacy_reduction(size_average, reduce, reduction):
    """The `reduction` a loss's deprecated `size_average=`/`reduce=` arguments mean, as torch reads them."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else ("mean" if size_average else "sum")


def quiet(xp):
    """Silence NumPy's divide/overflow warnings where infinities are expected and handled."""
    errstate = getattr(xp, "errstate", None)
    if errstate is None:
        return contextlib.nullcontext()
    return errstate(divide="ignore", over="ignore", invalid="ignore")


def reduce(loss, reduction):
    """Apply `reduction` to elementwise `loss`, returning an array (never a NumPy scalar)."""
    if reduction == "mean":
        return backend.mean(loss)
    if reduction == "sum":
        return backend.sum(loss)
    return loss


def reduction_scale(grad, reduction, size):
    """The factor each element's loss gradient is multiplied by under `reduction`."""
    if reduction == "mean":
        return grad / size if size else grad
    return grad
