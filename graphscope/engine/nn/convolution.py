"""conv1d and conv2d: im2col and one matmul forward; backward one matmul for the weight and
col2im for the input."""

from __future__ import annotations

from .. import backend
from ..function import Function
from ..ops.operands import device_error
from ..tensor import Tensor
from . import sliding_window as sw


class Convolution(Function):
    """Cross-correlation of (N, C, [H,] W) with (O, C / groups, [kH,] kW): a primitive so that the
    im2col columns are built once and serve both the output and the weight's grad, one matmul each.

    Arrays are lifted to two spatial axes and a batch axis (conv1d has H = 1); the columns are
    laid out (C kH kW, N oH oW) so the output comes out of the matmul channels first. The input's
    grad is col2im of W.T @ grad, one kernel position at a time.
    """

    op = "convolution"
    reads_inputs = (1,)  # backward reads the weight; the input lives on in the saved columns

    def forward(self, x, weight, bias=None, stride=(1, 1), padding=((0, 0), (0, 0)), dilation=(1, 1), groups=1):
        self.x_shape, self.w_shape = x.shape, weight.shape
        x4 = backend.reshape(x, _lifted(x.shape, weight.ndim - 2, batched=x.ndim == weight.ndim))
        w4 = backend.reshape(weight, _lifted(weight.shape, weight.ndim - 2, batched=True))
        n, c, height, width = x4.shape
        o, cg, kh, kw = w4.shape
        out = tuple(
            sw.output_size(size, k, s, d, *p)
            for size, k, s, d, p in zip((height, width), (kh, kw), stride, dilation, padding)
        )
        xt = sw.pad(backend.permute_dims(x4, (1, 0, 2, 3)), padding)  # (C, N, Hp, Wp)
        cols = sw.im2col(xt, (kh, kw), stride, dilation, out)  # (C, kH, kW, N, oH, oW)
        self.cols = cols = backend.reshape(cols, (groups, cg * kh * kw, n * out[0] * out[1]))
        self.w = wm = backend.reshape(w4, (groups, o // groups, cg * kh * kw))
        self.geometry = (n, c, height, width), (kh, kw), stride, padding, dilation, out, xt.shape
        y = backend.reshape(wm @ cols, (o, n) + out)
        if bias is not None:
            y += backend.reshape(bias, (o, 1, 1, 1))  # y is the matmul's own new array
        y = backend.permute_dims(y, (1, 0, 2, 3))  # (N, O, oH, oW), channels-first in memory
        return y if x4.shape == x.shape else backend.reshape(y, _natural(x.shape, y.shape, weight.ndim))

    rule = "y = x ⋆ W + b:  dx = dOut ⋆ᵀ W (transposed convolution)    dW = x ⋆ dOut    db = Σ dOut"

    def backward(self, grad):
        (n, c, height, width), kernel, stride, padding, dilation, out, padded_shape = self.geometry
        groups, per_group, _ = self.w.shape
        o = groups * per_group
        g = backend.reshape(grad, (n, o) + out)
        gt = backend.reshape(backend.permute_dims(g, (1, 0, 2, 3)), (groups, per_group, n * out[0] * out[1]))
        needs = self.needs_input_grad
        gx = gw = gb = None
        if needs[0]:
            # One kernel position at a time: no (C kH kW, N oH oW) temporary to allocate and fault in.
            w5 = backend.reshape(self.w, (groups, per_group, c // groups) + kernel)

            def columns(k, i, j):
                return backend.reshape(backend.matrix_transpose(w5[..., i, j]) @ gt, (c, n) + out)

            gxt = sw.unwindow(columns, padded_shape, grad, kernel, stride, dilation, out)
            gx = backend.reshape(
                backend.permute_dims(sw.crop(gxt, padding, (height, width)), (1, 0, 2, 3)), self.x_shape
            )
        if needs[1]:
            gw = backend.reshape(gt @ backend.matrix_transpose(self.cols), self.w_shape)
        if len(needs) > 2 and needs[2]:
            gb = backend.sum(g, axis=(0, 2, 3))
        return gx, gw, gb


def _lifted(shape, spatial, batched):
    """`shape` with a batch axis (1 when unbatched) and two spatial axes (H = 1 when one)."""
    shape = tuple(shape) if batched else (1,) + tuple(shape)
    return shape[:2] + (1,) * (2 - spatial) + shape[2:]


def _natural(x_shape, y_shape, weight_ndim):
    """The lifted output shape y_shape brought back to the input's batch and spatial axes."""
    batch = x_shape[:1] if len(x_shape) == weight_ndim else ()
    return batch + y_shape[1:2] + y_shape[4 - (weight_ndim - 2) :]


# --- argument checks, as torch.nn.functional.conv1d / conv2d make them -------------------------


def expand(value, n, name, op="convolution"):
    """An int or an n-sequence of ints as an n-tuple (torch's error for other lengths)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    if isinstance(value, (tuple, list)) and len(value) == n and all(isinstance(v, int) for v in value):
        return tuple(value)
    if isinstance(value, (tuple, list)):
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {n} values to match the "
            f"convolution dimensions, but got {name}={list(value)}"
        )
    raise TypeError(f"{op}(): argument '{name}' must be an int or a tuple of {n} ints, not {type(value).__name__}")


def _size(shape) -> str:
    return str(list(shape))


def _padding(padding, weight, stride, dilation, spatial, op):
    """((before, after), ...) per spatial axis for an int, a tuple, 'valid' or 'same'."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * spatial
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads = []
        for d, k in zip(dilation, weight.shape[2:]):
            total = d * (k - 1)
            pads.append((total // 2, total - total // 2))  # the extra one goes after, as torch
        return tuple(pads)
    pads = expand(padding, spatial, "padding", op)
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in pads)


def convolution(op, input, weight, bias, stride, padding, dilation, groups):
    """Check the arguments of conv1d / conv2d as torch does, then run the primitive."""
    spatial = int(op[-2])
    for name, value in (("input", input), ("weight", weight)):
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(value).__name__}")
    if bias is not None and not isinstance(bias, Tensor):
        raise TypeError(f"{op}(): argument 'bias' must be Tensor, not {type(bias).__name__}")
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {op}, but got "
            f"input of size: {_size(input.shape)}"
        )
    if weight.ndim != spatial + 2:
        raise RuntimeError(
            f"Expected {spatial + 2}D weight (out_channels, in_channels / groups, "
            f"{', '.join(['kH', 'kW'][2 - spatial :])}) for {op}, but got weight of size: {_size(weight.shape)}"
        )
    stride = expand(stride, spatial, "stride", op)
    dilation = expand(dilation, spatial, "dilation", op)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if not isinstance(groups, int) or groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    pads = _padding(padding, weight, stride, dilation, spatial, op)
    for other in (weight, bias):
        if other is not None and not backend.same_device(input.array, other.array):
            raise device_error(op, input.device, other.device)
    if input.dtype is not weight.dtype or (bias is not None and bias.dtype is not weight.dtype):
        raise RuntimeError(
            f"Input type ({input.dtype}) and weight type ({weight.dtype}) should be the same"
            + ("" if bias is None else f" as bias type ({bias.dtype})")
            + "; convert one with .to()"
        )
    out_channels = weight.shape[0]
    if out_channels % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
            f"weight of size [{_size(weight.shape)}] instead"
        )
    channels = input.shape[-spatial - 1]
    if channels != weight.shape[1] * groups:
        batched = input.shape if input.ndim == spatial + 2 else (1,) + tuple(input.shape)
        raise RuntimeError(
            f"Given groups={groups}, weight of size {_size(weight.shape)}, expected input{_size(batched)} to "
            f"have {weight.shape[1] * groups} channels, but got {channels} channels instead"
        )
    if bias is not None and tuple(bias.shape) != (out_channels,):
        raise RuntimeError(
            f"Given weight of size {_size(weight.shape)}, expected bias to be 1-dimensional with "
            f"{out_channels} elements, but got bias of size {_size(bias.shape)} instead"
        )
    padded = [size + b + a for size, (b, a) in zip(input.shape[-spatial:], pads)]
    kernel = [d * (k - 1) + 1 for d, k in zip(dilation, weight.shape[2:])]
    if any(p < k for p, k in zip(padded, kernel)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
            f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual input size"
        )
    if spatial == 1:  # lifted to two spatial axes: the first has size 1, no stride or padding
        stride, dilation, pads = (1,) + stride, (1,) + dilation, ((0, 0),) + pads
    args = (input, weight) if bias is None else (input, weight, bias)
    return Convolution.apply(*args, stride=stride, padding=pads, dilation=dilation, groups=groups)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D cross-correlation of (N, C, L) or (C, L) with weight (out_channels, C / groups, k)."""
    return convolution("conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D cross-correlation of (N, C, H, W) or (C, H, W) with weight (out_channels, C / groups, kH, kW)."""
    return convolution("conv2d", input, weight, bias, stride, padding, dilation, groups)
