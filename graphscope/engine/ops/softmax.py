"""softmax, log_softmax and logsumexp as primitives: shifted by the max so logits of 1000 stay finite."""

from __future__ import annotations

from .. import backend
from ..backend import namespace
from ..dims import normalize_dim
from ..function import Function
from .operands import tensor_input
from .tensor_methods import method
from .unary import as_floating


def _shift(x, axis):
    """x minus its max along `axis`: an inf logit makes its row NaN (inf - inf), as in torch; an
    empty x has no max and needs no shift."""
    return x - namespace(x).max(x, axis=axis, keepdims=True) if x.size else x


def _finite_shift(x, axes):
    """x minus its max, with an infinite max taken as 0 (torch's logsumexp: the sum of [inf, 1] is inf)."""
    xp = namespace(x)
    if not x.size:  # no max to take: a shift of 0, so that the empty sum gives log 0 = -inf (as torch)
        return x, backend.sum(x, axis=axes, keepdims=True)
    m = xp.max(x, axis=axes, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0)
    return x - m, m


class Softmax(Function):
    reads_inputs = ()
    saves_output = True

    def forward(self, x, axis):
        xp = namespace(x)
        e = xp.exp(_shift(x, axis))
        self.axis = axis
        self.out = out = e / backend.sum(e, axis=axis, keepdims=True)
        return out

    rule = "fused softmax: s = eˣ/Σeˣ;  dx = s·(dOut − Σ dOut·s) along dim"

    def backward(self, grad):
        out = self.out
        return out * (grad - backend.sum(grad * out, axis=self.axis, keepdims=True)), None


class LogSoftmax(Function):
    reads_inputs = ()
    saves_output = True

    def forward(self, x, axis):
        xp = namespace(x)
        shifted = _shift(x, axis)
        self.axis = axis
        self.out = out = shifted - xp.log(backend.sum(xp.exp(shifted), axis=axis, keepdims=True))
        return out

    rule = "fused log_softmax: y = x − log Σeˣ;  dx = dOut − softmax(x)·Σ dOut along dim"

    def backward(self, grad):
        xp = namespace(grad)
        return grad - xp.exp(self.out) * backend.sum(grad, axis=self.axis, keepdims=True), None


class LogSumExp(Function):
    saves_output = True

    def forward(self, x, axes, keepdim):
        xp = namespace(x)
        shifted, m = _finite_shift(x, axes)
        out = xp.log(backend.sum(xp.exp(shifted), axis=axes, keepdims=True)) + m
        self.x, self.axes, self.keepdim, self.out = x, axes, keepdim, out
        return out if keepdim else xp.squeeze(out, axis=axes)

    rule = "fused logsumexp: d log Σeˣ/dx = softmax(x) (grad spread with those weights)"

    def backward(self, grad):
        xp = namespace(grad)
        g = grad if self.keepdim else backend.reshape(grad, self.out.shape)
        return g * xp.exp(self.x - self.out), None, None


def _axis(input, dim, op):
    tensor_input(input, op)
    if dim is None:
        raise TypeError(f"{op}() needs dim=: the dimension to normalise over (e.g. dim=-1)")
    axis = normalize_dim(dim, input.ndim)
    return None if input.ndim == 0 else axis


@method("softmax")
def softmax(input, dim=None, dtype=None):
    axis = _axis(input, dim, "softmax")
    input = as_floating(input if dtype is None else input.to(dtype))
    return Softmax.apply(input, axis)


@method("log_softmax")
def log_softmax(input, dim=None, dtype=None):
    axis = _axis(input, dim, "log_softmax")
    input = as_floating(input if dtype is None else input.to(dtype))
    return LogSoftmax.apply(input, axis)


@method("logsumexp", keepdims=True)
def logsumexp(input, dim, keepdim=False):
    tensor_input(input, "logsumexp")
    from ..dims import dims

    axes = dims(dim, input.ndim)
    if axes is None:
        axes = tuple(range(input.ndim))
    return LogSumExp.apply(as_floating(input), axes, keepdim)
