"""gs.nn.functional: PyTorch's functional layers and losses on graphscope tensors."""

from __future__ import annotations

import numbers

from .. import backend, dtypes
from ..backend import namespace
from ..ops.operands import check_devices, tensor_input
from ..ops.unary import FUNCTIONAL as _ELEMENTWISE
from ..random import generator_for
from ..tensor import wrap
from . import functional_ops as P
from . import loss_ops as L
from .loss_reduction import check_reduction, legacy_reduction

__all__ = [
    "linear",
    "relu",
    "leaky_relu",
    "gelu",
    "softmax",
    "log_softmax",
    "dropout",
    "embedding",
    "layer_norm",
    "one_hot",
    "flatten",
    "mse_loss",
    "l1_loss",
    "cross_entropy",
    "nll_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
]
__all__ += [
    "conv1d",
    "conv2d",
    "max_pool2d",
    "avg_pool2d",
    "adaptive_avg_pool2d",
    "batch_norm",
    "dropout2d",
    "pad",
    "interpolate",
]
globals().update(_ELEMENTWISE)  # tanh, sigmoid: the elementwise ops torch also has here (ops/unary.py)
__all__ += list(_ELEMENTWISE)


# --- layers -----------------------------------------------------------------------------------


def linear(input, weight, bias=None):
    """input @ weight.T + bias (one fused node); a 1-d weight without a bias is input @ weight (as torch)."""
    tensor_input(input, "linear")
    if tensor_input(weight, "linear", "weight").ndim != 2:
        if weight.ndim != 1 or bias is not None:
            raise RuntimeError(
                f"linear: weight must be a matrix (out_features, in_features), got shape {tuple(weight.shape)}"
                + (" with a bias" if weight.ndim == 1 else "")
            )
        return input @ weight
    if bias is None:
        return P.Linear.apply(input, weight)
    return P.Linear.apply(input, weight, bias)


def relu(input, inplace=False):
    if inplace:
        return input.relu_()
    return tensor_input(input, "relu").relu()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return P.LeakyReLU.apply(tensor_input(input, "leaky_relu"), negative_slope)  # positional: recorded as args


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return P.GELU.apply(tensor_input(input, "gelu"), approximate)  # positional: recorded as args


def _softmax_dim(ndim):
    # PyTorch's implicit choice when dim is omitted (deprecated there, kept for compatibility).
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, dtype=None):
    tensor_input(input, "softmax")
    if dtype is not None:
        input = input.to(dtype)
    return input.softmax(_softmax_dim(input.ndim) if dim is None else dim)


def log_softmax(input, dim=None, dtype=None):
    tensor_input(input, "log_softmax")
    if dtype is not None:
        input = input.to(dtype)
    return input.log_softmax(_softmax_dim(input.ndim) if dim is None else dim)


def flatten(input, start_dim=0, end_dim=-1):
    return input.flatten(start_dim, end_dim)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1/(1-p); identity when not training."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    tensor_input(input, "dropout")
    if not training or p == 0.0:
        return input
    return P.Dropout.apply(input, wrap(dropout_mask(input, p, input.shape)))


def dropout_mask(input, p, shape):
    """1/(1-p) with probability 1-p, else 0, of `shape` (broadcast against input), seeded by gs.manual_seed."""
    x = input.array
    if p == 1.0:
        return backend.zeros(shape, x.dtype, like=x)
    keep = generator_for(input.device).uniform(0.0, 1.0, shape, input.dtype) >= p
    return backend.astype(keep, x.dtype) * (1.0 / (1.0 - p))


def embedding(input, weight, padding_idx=None, max_norm=None):
    """Rows of `weight` picked by the integer tensor `input` (shape input.shape + (dim,))."""
    if max_norm is not None:
        raise NotImplementedError("embedding: max_norm is not supported")
    tensor_input(input, "embedding")
    indices = input.array
    if input.is_floating_point() or input.dtype is dtypes.bool_:
        raise RuntimeError(f"embedding: indices must be an integer tensor (int64), got {input.dtype}")
    check_devices("embedding", weight, input)
    count = weight.shape[0]
    xp = namespace(indices)
    if indices.size and (int(xp.min(indices)) < 0 or int(xp.max(indices)) >= count):
        bad = indices[(indices < 0) | (indices >= count)]
        raise IndexError(
            f"embedding: index {int(bad[0])} is out of range for {count} embeddings (valid indices are 0..{count - 1})"
        )
    if padding_idx is not None and padding_idx < 0:
        padding_idx += count
    return P.Embedding.apply(weight, input, padding_idx=padding_idx)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (int(normalized_shape),)
    return P.LayerNorm.apply(
        tensor_input(input, "layer_norm"), weight, bias, normalized_shape=tuple(normalized_shape), eps=eps
    )


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding with a trailing class dimension (no gradient, as PyTorch)."""
    t = tensor_input(tensor, "one_hot").array
    if tensor.dtype is not dtypes.int64:
        raise RuntimeError(
            f"one_hot is only applicable to index tensor of type LongTensor (int64), got "
            f"{tensor.dtype.name}; convert it with .long()"
        )
    xp = namespace(t)
    if num_classes == -1:
        num_classes = int(xp.max(t)) + 1 if t.size else 0
    if t.size and int(xp.min(t)) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if t.size and int(xp.max(t)) >= num_classes:
        raise RuntimeError(f"Class values must be smaller than num_classes ({num_classes}).")
    out = xp.expand_dims(t, axis=-1) == backend.arange(num_classes, like=t)
    return wrap(backend.astype(out, backend.native_dtype(dtypes.int64, t)))


# --- losses -----------------------------------------------------------------------------------


def check_same_shape(input, target, name, error: type[Exception] = RuntimeError):
    """torch's error when a loss's input and target differ in device or shape (`error`: torch's
    type for this loss, RuntimeError from broadcasting, ValueError from the binary cross-entropies)."""
    check_devices(name, input, target)
    if input.array.shape != target.array.shape:  # the arrays' shapes: no Size objects per loss call
        raise error(
            f"{name}: input of shape {tuple(input.shape)} and target of shape {tuple(target.shape)} "
            "differ; they must have the same shape"
        )


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    check_reduction(reduction, "mse_loss")
    check_same_shape(tensor_input(input, "mse_loss"), tensor_input(target, "mse_loss", "target"), "mse_loss")
    return L.MSELoss.apply(input, target, reduction)  # positional: recorded as args (the Rule tab's N)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    check_reduction(reduction, "l1_loss")
    check_same_shape(tensor_input(input, "l1_loss"), tensor_input(target, "l1_loss", "target"), "l1_loss")
    return L.L1Loss.apply(input, target, reduction=reduction)


def cross_entropy(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean", label_smoothing=0.0
):
    """log_softmax over dim 1 then NLL, fused; integer class targets or class probabilities."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    check_reduction(reduction, "cross_entropy")
    tensor_input(input, "cross_entropy")
    tensor_input(target, "cross_entropy", "target")
    check_devices("cross_entropy", input, target, weight)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    if input.ndim == 0:
        raise ValueError("cross_entropy: input must have a class dimension, got a 0-d tensor")
    return L.CrossEntropy.apply(input, target, weight, ignore_index, label_smoothing, reduction)  # positional: recorded


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """-input[i, target_i] (input holds log-probabilities), averaged over the target weights."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    check_reduction(reduction, "nll_loss")
    tensor_input(input, "nll_loss")
    tensor_input(target, "nll_loss", "target")
    check_devices("nll_loss", input, target, weight)
    if input.ndim == 0:
        raise ValueError("nll_loss: input must have a class dimension, got a 0-d tensor")
    return L.NLLLoss.apply(input, target, weight, ignore_index=ignore_index, reduction=reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    check_reduction(reduction, "binary_cross_entropy")
    check_same_shape(
        tensor_input(input, "binary_cross_entropy"),
        tensor_input(target, "binary_cross_entropy", "target"),
        "binary_cross_entropy",
        ValueError,
    )
    return L.BinaryCrossEntropy.apply(input, target, weight, reduction=reduction)


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    reduction = legacy_reduction(size_average, reduce, reduction)
    check_reduction(reduction, "binary_cross_entropy_with_logits")
    check_same_shape(
        tensor_input(input, "binary_cross_entropy_with_logits"),
        tensor_input(target, "binary_cross_entropy_with_logits", "target"),
        "binary_cross_entropy_with_logits",
        ValueError,
    )
    return L.BinaryCrossEntropyWithLogits.apply(input, target, weight, pos_weight, reduction=reduction)


# Losses added for issue 14 (their own module: functional_losses).
from .functional_losses import cosine_embedding_loss, huber_loss, kl_div, smooth_l1_loss  # noqa: E402 (imports check_same_shape from here)

__all__ += ["smooth_l1_loss", "huber_loss", "kl_div", "cosine_embedding_loss"]
# --- convolutional nets (their primitives live beside them) -------------------------------------

from .batch_norm_ops import batch_norm  # noqa: E402 (in its section: the conv nets')
from .convolution import conv1d, conv2d  # noqa: E402 (in its section: the conv nets')
from .feature_dropout import dropout2d  # noqa: E402 (imports dropout_mask from here)
from .padding import pad  # noqa: E402 (in its section: the conv nets')
from .pooling_ops import avg_pool2d, max_pool2d  # noqa: E402 (in its section: the conv nets')
from .resampling import adaptive_avg_pool2d, interpolate  # noqa: E402 (in its section: the conv nets')

# --- attention (its own modules, which import dropout, linear and pad from here) -----------------

__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]

from .functional_attention import scaled_dot_product_attention  # noqa: E402 (imports dropout from here)
from .functional_multihead import multi_head_attention_forward  # noqa: E402 (imports linear and pad from here)
