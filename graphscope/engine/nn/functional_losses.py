"""smooth_l1_loss, huber_loss, kl_div and cosine_embedding_loss with PyTorch's arguments and errors."""

from __future__ import annotations

import warnings

from .. import ops
from ..ops.operands import tensor_input
from . import loss_ops as L
from .functional import check_same_shape
from .loss_reduction import check_reduction, legacy_reduction


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 (x - y)^2 / beta where |x - y| < beta, else |x - y| - 0.5 beta."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    check_reduction(reduction, "smooth_l1_loss")
    check_same_shape(
        tensor_input(input, "smooth_l1_loss"), tensor_input(target, "smooth_l1_loss", "target"), "smooth_l1_loss"
    )
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return L.SmoothL1.apply(input, target, float(beta), 1.0, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 (x - y)^2 where |x - y| <= delta, else delta (|x - y| - 0.5 delta); `weight` scales each element."""
    check_reduction(reduction, "huber_loss")
    check_same_shape(tensor_input(input, "huber_loss"), tensor_input(target, "huber_loss", "target"), "huber_loss")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is None:
        return L.Huber.apply(input, target, float(delta), float(delta), reduction)
    loss = L.Huber.apply(input, target, float(delta), float(delta), "none") * weight
    return loss if reduction == "none" else (loss.mean() if reduction == "mean" else loss.sum())


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL(target || exp(input)) pointwise: `input` holds log-probabilities, `target` probabilities
    (or log-probabilities with log_target=True); reduction 'batchmean' is the mathematical KL."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    check_same_shape(tensor_input(input, "kl_div"), tensor_input(target, "kl_div", "target"), "kl_div")
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning,
            stacklevel=2,
        )
    return L.KLDiv.apply(input, target, bool(log_target), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1 (cos over the last dim)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    check_reduction(reduction, "cosine_embedding_loss")
    for i, t in enumerate((input1, input2)):
        tensor_input(t, "cosine_embedding_loss", f"input{i + 1}")
    tensor_input(target, "cosine_embedding_loss", "target")
    expected = target.ndim + 1
    if target.ndim > 1 or input1.ndim != expected or input2.ndim != expected:
        raise RuntimeError(
            f"{target.ndim}D target tensor expects {expected}D input tensors, but found inputs with "
            f"sizes {list(input1.shape)} and {list(input2.shape)}."
        )
    dim = input1.ndim - 1
    epsilon = 1e-12
    dot = (input1 * input2).sum(dim)
    cos = dot / ((input1 * input1).sum(dim) + epsilon).mul((input2 * input2).sum(dim) + epsilon).sqrt()
    loss = ops.where(target == 1, 1 - cos, 0.0) + ops.where(target == -1, (cos - margin).clamp(min=0), 0.0)
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


__all__ = ["smooth_l1_loss", "huber_loss", "kl_div", "cosine_embedding_loss"]
