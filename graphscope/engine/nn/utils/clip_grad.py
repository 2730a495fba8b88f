"""Gradient clipping (clip_grad_norm_, clip_grad_value_), in place on the parameters' grads, as torch."""

from __future__ import annotations

import math

from ... import backend
from ...grad_mode import no_grad
from ...ops.norms import vector_norm
from ...ops.shape import stack
from ...tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale all grads together so that their total norm is at most `max_norm`; returns that total
    norm (taken before clipping) as a tensor."""
    grads = _grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        from ...creation import tensor

        return tensor(0.0)
    first = grads[0].device
    norms = [vector_norm(g, norm_type).to(first) for g in grads]
    total = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    coefficient = (max_norm / (total + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coefficient.to(g.device) if not backend.same_device(g.array, coefficient.array) else coefficient)
    return total


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every grad elementwise into [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        g.clamp_(-clip_value, clip_value)
