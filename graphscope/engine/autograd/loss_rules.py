"""The create_graph rules of softmax, log_softmax and the losses (mse_loss, cross_entropy, nll_loss):
each fused op's grad written again as Tensor ops."""

from __future__ import annotations

from .. import backend
from ..nn.loss_ops import CrossEntropy, MSELoss, NLLLoss
from ..ops.reduction import Sum
from ..ops.shape import Permute, Reshape
from ..ops.softmax import LogSoftmax, LogSumExp, Softmax
from ..tensor import Tensor, wrap
from .rule_parts import Rule, axes_of, needed, output_tensor


def _softmax(node, g):
    out = output_tensor(node)
    return out * (g - Sum.apply(g * out, axes_of(node.axis), True)), None


def _log_softmax(node, g):
    return g - output_tensor(node).exp() * Sum.apply(g, axes_of(node.axis), True), None


def _logsumexp(node, g):
    # d logsumexp(x)/dx = exp(x − logsumexp(x)), with the output kept over the reduced axes
    kept = node.out.shape
    out = output_tensor(node, None if node.keepdim else backend.reshape(node.out, _squeezed(kept, node.axes)))
    out, g = Reshape.apply(out, kept), Reshape.apply(g, kept)
    return g * (node.inputs[0] - out).exp(), None, None


def _squeezed(shape, axes) -> tuple:
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _mse_loss(node, g):
    x, y = node.inputs[:2]
    if node.reduction == "mean" and node.diff.size:
        g = g / node.diff.size
    grad = 2.0 * g * (x - y)
    return needed(node, lambda: grad, lambda: -grad) + (None,) * (len(node.inputs) - 2)


def _classes_last(x: Tensor) -> Tensor:
    """(M, C) view of an (N, C, d1, ...) / (N, C) / (C,) tensor, classes on the last axis."""
    if x.ndim == 2:
        return x
    if x.ndim == 1:
        return Reshape.apply(x, (1, -1))
    return Reshape.apply(Permute.apply(x, (0, *range(2, x.ndim), 1)), (-1, x.shape[1]))


def _classes_back(g2: Tensor, shape) -> Tensor:
    """Undo `_classes_last` on a grad of shape (M, C)."""
    if len(shape) == 2:
        return g2
    if len(shape) == 1:
        return Reshape.apply(g2, tuple(shape))
    moved = Reshape.apply(g2, (shape[0], *shape[2:], shape[1]))
    return Permute.apply(moved, (0, len(shape) - 1, *range(1, len(shape) - 1)))


def _cross_entropy(node, g):
    # The fused rule, dz = (softmax(z)·Σq − q)·scale, with q each row's target weights: a one-hot
    # row (times its class weight, smoothed) for class targets, the given probabilities for soft ones.
    logits = node.inputs[0]
    z = _classes_last(logits)
    if node.reduction == "none":
        scale = g.reshape(-1, 1)
    elif node.reduction == "mean":
        denominator = node.denominator
        scale = g / (denominator if isinstance(denominator, (int, float)) else wrap(denominator))
    else:
        scale = g
    if node.soft:  # the target's probabilities, smoothed and weighted as forward did (they may require grad)
        q = _classes_last(node.inputs[1])
        if node.eps:
            q = q * (1.0 - node.eps) + node.eps / q.shape[1]
        if node.weight is not None:
            q = q * wrap(node.weight)
    else:
        q = _class_weights(node)
        if node.ignored is not None:
            scale = scale * wrap(backend.reshape(backend.astype(~node.ignored, node.logp.dtype), (-1, 1)))
    needs = node.needs_input_grad
    grad_z = None
    if needs[0]:
        grad_z = _classes_back((Softmax.apply(z, 1) * q.sum(1, keepdim=True) - q) * scale, node.shape)
    grad_target = None
    if len(needs) > 1 and needs[1]:
        factor = 1.0 - node.eps if node.weight is None else wrap(node.weight) * (1.0 - node.eps)
        grad_target = _classes_back(-LogSoftmax.apply(z, 1) * factor * scale, node.shape)
    return (grad_z, grad_target) + (None,) * (len(needs) - 2)


def _nll_loss(node, g):
    # linear in its input: each row's grad is −w[t]·scale at the target class, whatever the input
    shape = node.shape
    rows, classes = node.t.shape[0], shape[1] if len(shape) >= 2 else shape[0]
    picked = backend.zeros((rows, classes), node.dtype, like=node.t)
    backend.put(picked, (backend.arange(rows, like=node.t), node.t), -node.w_t)
    if node.reduction == "none":
        scale = Reshape.apply(g, (-1, 1))
    elif node.reduction == "mean":
        scale = g / wrap(node.denominator)
    else:
        scale = g
    return (_classes_back(wrap(picked) * scale, shape),) + (None,) * (len(node.inputs) - 1)


def _class_weights(node) -> Tensor:
    """Each row's target weights for class targets: (1 − eps)·w[t] at the target, eps/C·w everywhere."""
    logp, t, eps, weight = node.logp, node.t, node.eps, node.weight
    rows, classes = logp.shape
    q = backend.zeros((rows, classes), logp.dtype, like=logp)
    backend.put(q, (node.rows, t), (1.0 - eps) * (1.0 if node.w_t is None else node.w_t))
    if eps:
        q = q + (eps / classes) * (1.0 if weight is None else weight)
    return wrap(q)


LOSS_RULES: dict[type, Rule] = {
    Softmax: _softmax,
    LogSoftmax: _log_softmax,
    LogSumExp: _logsumexp,
    MSELoss: _mse_loss,
    CrossEntropy: _cross_entropy,
    NLLLoss: _nll_loss,
}
