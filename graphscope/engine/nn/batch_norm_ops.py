"""F.batch_norm: normalise each channel over the batch (and spatial axes), update running stats."""

from __future__ import annotations

from .. import backend
from ..backend import namespace
from ..function import Function
from ..tensor import Tensor


class BatchNorm(Function):
    """(x - mean) / sqrt(var + eps) * weight + bias per channel (axis 1): a primitive for the
    one-pass backward through the batch statistics, as LayerNorm's.

    `mean` and `var` are the statistics used: the batch's when `batch_stats` (and backward then
    flows through them too), the running ones otherwise.
    """

    op = "batch_norm"
    reads_inputs = None  # backward reads the weight (absent or not); torch also saves the input

    def forward(self, x, weight=None, bias=None, mean=None, var=None, eps=1e-5, batch_stats=True):
        xp = namespace(x)
        shape = (1, -1) + (1,) * (x.ndim - 2)
        self.rstd = rstd = backend.reshape(1.0 / xp.sqrt(var + eps), shape)
        self.xhat = xhat = (x - backend.reshape(mean, shape)) * rstd
        self.axes = (0,) + tuple(range(2, x.ndim))
        self.weight, self.batch_stats = weight, batch_stats
        out = xhat if weight is None else xhat * backend.reshape(weight, shape)
        return out if bias is None else out + backend.reshape(bias, shape)

    rule = (
        "fused batch norm: x̂ = (x − μ)/σ over the batch (and space), y = x̂·w + b;\n"
        "dx = (w/σ)·(dOut − mean(dOut) − x̂·mean(dOut·x̂))    dw = Σ dOut·x̂    db = Σ dOut"
    )

    def backward(self, grad):
        xp = namespace(grad)
        needs = self.needs_input_grad
        xhat, axes = self.xhat, self.axes
        gx = gw = gb = None
        if len(needs) > 1 and needs[1]:
            gw = backend.sum(grad * xhat, axis=axes)
        if len(needs) > 2 and needs[2]:
            gb = backend.sum(grad, axis=axes)
        if needs[0]:
            g = grad if self.weight is None else grad * backend.reshape(self.weight, self.rstd.shape)
            if self.batch_stats:
                g = g - xp.mean(g, axis=axes, keepdims=True) - xhat * xp.mean(g * xhat, axis=axes, keepdims=True)
            gx = g * self.rstd
        return gx, gw, gb


def _check_size(name, tensor, channels):
    if tensor is not None and tensor.numel() != channels:
        raise RuntimeError(f"{name} should contain {channels} elements not {tensor.numel()}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Batch normalisation over axis 1 of (N, C, ...); in training, running stats (when given) move
    toward the batch's: r = (1 - momentum) r + momentum * stat, with the unbiased variance."""
    if not isinstance(input, Tensor):
        raise TypeError(f"batch_norm(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected an input with a channel axis (N, C, ...), got size {list(input.shape)}")
    channels = input.shape[1]
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be defined in evaluation mode")
    for name, tensor in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        _check_size(name, tensor, channels)
    if training and input.numel() // channels <= 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size torch.Size({list(input.shape)})"
        )
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    x = input.array
    xp = namespace(x)
    if training:
        count = input.numel() // channels
        axes = (0,) + tuple(range(2, input.ndim))
        mean = xp.mean(x, axis=axes)
        var = xp.var(x, axis=axes)
        if running_mean is not None:
            _move(running_mean, mean, momentum)
        if running_var is not None:
            _move(running_var, var * (count / (count - 1)), momentum)
    else:
        mean, var = running_mean.array, running_var.array
    args = (input, weight, bias)
    while args[-1] is None:  # a node's inputs are what it got, as Linear's without a bias
        args = args[:-1]
    return BatchNorm.apply(*args, mean=mean, var=var, eps=eps, batch_stats=training)


def _move(running, stat, momentum):
    """running = (1 - momentum) * running + momentum * stat, in place (not recorded by autograd)."""
    running.array[...] = (1 - momentum) * running.array + momentum * backend.astype(stat, running.array.dtype)
    running._bump_version()
