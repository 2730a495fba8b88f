"""Loss primitives beyond functional_ops': Huber / smooth L1 and KL divergence, one node each, as
PyTorch's HuberLossBackward0, SmoothL1LossBackward0 and KlDivBackward0 (piecewise and log terms)."""

from __future__ import annotations

from ..backend import namespace
from ..function import Function
from .functional_ops import _quiet, _reduce, _reduction_scale


class Huber(Function):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = x - y), times `scale`:
    smooth_l1_loss is scale 1; huber_loss with delta is beta = delta, scale = delta."""

    op = "huber_loss"

    def forward(self, x, y, beta, scale, reduction):
        xp = namespace(x)
        self.diff = diff = x - y
        self.beta, self.scale, self.reduction = beta, scale, reduction
        size = xp.abs(diff)
        if beta == 0:
            loss = size
        else:
            loss = xp.where(size < beta, 0.5 * diff * diff / beta, size - 0.5 * beta)
        return _reduce(xp, loss * scale if scale != 1 else loss, reduction)

    def backward(self, grad):
        xp, diff, beta = namespace(grad), self.diff, self.beta
        slope = xp.sign(diff) if beta == 0 else xp.clip(diff / beta, -1.0, 1.0)
        g = _reduction_scale(grad, self.reduction, diff.size) * (self.scale * slope)
        needs = self.needs_input_grad
        return (g if needs[0] else None), (-g if needs[1] else None), None, None, None


class SmoothL1(Huber):
    op = "smooth_l1_loss"


class KLDiv(Function):
    """target * (log target - input) (0 where target is 0), or exp(t) * (t - input) for a log target."""

    op = "kl_div"

    def forward(self, x, t, log_target, reduction):
        xp = namespace(x)
        self.x, self.t, self.log_target, self.reduction = x, t, log_target, reduction
        if log_target:
            loss = xp.exp(t) * (t - x)
        else:
            with _quiet(xp):
                loss = xp.where(t == 0, 0, t * xp.log(xp.where(t == 0, 1, t))) - t * x
        if reduction == "batchmean":
            batch = x.shape[0] if x.ndim else 1
            return _reduce(xp, loss, "sum") / batch
        return _reduce(xp, loss, reduction)

    def backward(self, grad):
        xp, x, t = namespace(grad), self.x, self.t
        if self.reduction == "batchmean":
            g = grad / (x.shape[0] if x.ndim else 1)
        else:
            g = _reduction_scale(grad, self.reduction, x.size)
        needs = self.needs_input_grad
        if self.log_target:
            et = xp.exp(t)
            return (-et * g if needs[0] else None), (et * (t - x + 1) * g if needs[1] else None), None, None
        with _quiet(xp):
            # d/dt (t log t) is log t + t/t: NaN at t == 0, as torch's xlogy gives.
            grad_t = (xp.where(t == 0, 0, xp.log(xp.where(t == 0, 1, t))) + t / t - x) * g if needs[1] else None
        return (-t * g if needs[0] else None), grad_t, None, None
