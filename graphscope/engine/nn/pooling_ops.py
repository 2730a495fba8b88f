"""max_pool2d and avg_pool2d: one strided slice per kernel position, forward and backward."""

from __future__ import annotations

import math

from .. import backend, dtypes
from ..backend import namespace
from ..function import Function
from ..tensor import Tensor, wrap
from . import sliding_window as sw


class MaxPool2d(Function):
    """The max of each window over the last two axes: a primitive that keeps which kernel position
    won, so backward sends each gradient there with one strided add per kernel position."""

    op = "max_pool2d"
    reads_inputs = ()

    def forward(self, x, kernel, stride, padding, dilation, out):
        xpad = sw.pad(x, padding, _lowest(x))
        best, self.argmax = window_max(xpad, kernel, stride, dilation, out)
        self.geometry = kernel, stride, padding, dilation, out, xpad.shape, x.shape[-2:]
        return best

    rule = "d maxpool(x)/dx = 1 at each window's maximum, 0 elsewhere (windows that overlap add up)"

    def backward(self, grad):
        kernel, stride, padding, dilation, out, padded_shape, size = self.geometry
        argmax = self.argmax
        g = sw.unwindow(
            lambda k, i, j: backend.keep(grad, argmax == k), padded_shape, grad, kernel, stride, dilation, out
        )
        return (sw.crop(g, padding, size),)


class AvgPool2d(Function):
    """The mean of each window over the last two axes: one strided add per kernel position each way,
    divided by PyTorch's divisor (fixed, or per output position where windows are cut short)."""

    op = "avg_pool2d"
    reads_inputs = ()

    def forward(self, x, kernel, stride, padding, scale, out):
        xpad = sw.pad(x, padding)
        total = None
        for position in sw.positions(kernel):
            part = sw.window(xpad, position, stride, (1, 1), out)
            total = part * scale if total is None else total + part * scale
        self.geometry = kernel, stride, padding, scale, out, xpad.shape, x.shape[-2:]
        return total

    rule = "d avgpool(x)/dx = 1/window size for each element of each window (overlaps add up)"

    def backward(self, grad):
        kernel, stride, padding, scale, out, padded_shape, size = self.geometry
        scaled = grad * scale
        g = sw.unwindow(lambda k, i, j: scaled, padded_shape, grad, kernel, stride, (1, 1), out)
        return (sw.crop(g, padding, size),)


def _lowest(x):
    """The padding value no element loses a max to: -inf, or the integer dtype's minimum."""
    if backend.is_floating(x):
        return -math.inf
    return namespace(x).iinfo(x.dtype).min


def window_max(xpad, kernel, stride, dilation, out):
    """(max, kernel position of the max) over every window, as PyTorch's kernel: the first max
    wins, and so does a NaN. The fast pass ignores NaNs; its max shows whether a window held one
    (maximum propagates them), and only then the NaN-aware pass runs."""
    best, argmax = _window_max(xpad, kernel, stride, dilation, out, nan_aware=False)
    if backend.is_floating(best) and bool(namespace(best).any(namespace(best).isnan(best))):
        best, argmax = _window_max(xpad, kernel, stride, dilation, out, nan_aware=True)
    return best, argmax


def _window_max(xpad, kernel, stride, dilation, out, nan_aware):
    xp = namespace(xpad)
    count = kernel[0] * kernel[1]
    index_dtype = backend.native_dtype(dtypes.int8 if count < 128 else dtypes.int64, xpad)
    best = argmax = None
    for k, position in enumerate(sw.positions(kernel)):
        value = sw.window(xpad, position, stride, dilation, out)
        if best is None:
            best, argmax = value, backend.zeros(value.shape, index_dtype, like=value)
            continue
        better = value > best
        if nan_aware:
            better = better | xp.isnan(value)
            best = xp.where(better, value, best)
        else:
            best = xp.maximum(best, value)
        argmax = xp.where(better, k, argmax)
    return (backend.copy(best) if count == 1 else best), argmax


# --- argument checks, as torch.nn.functional.max_pool2d / avg_pool2d make them ----------------


def _pair(value, op, name, phrase):
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    if (
        isinstance(value, (tuple, list))
        and len(value) in (1, 2)
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return (value[0], value[-1])
    raise RuntimeError(f"{op}: {name} must {phrase}")


def pool_geometry(op, input, kernel_size, stride, padding, dilation, ceil_mode):
    """(kernel, stride, ((top, bottom), (left, right)), dilation, out) for a 2-D pooling, checked as
    torch checks it; the bottom and right padding include ceil_mode's partial last window."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    kernel = _pair(kernel_size, op, "kernel_size", "either be a single int, or a tuple of two ints")
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        stride = kernel
    stride = _pair(stride, op, "stride", "either be omitted, a single int, or a tuple of two ints")
    pads = _pair(padding, op, "padding", "either be a single int, or a tuple of two ints")
    dilation = _pair(dilation, op, "dilation", "be either a single int, or a tuple of two ints")
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    if min(stride) <= 0:
        raise RuntimeError(
            "stride should not be zero"
            if 0 in stride
            else f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}"
        )
    if min(dilation) <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {dilation[0]} dilationW: {dilation[1]}"
        )
    if min(pads) < 0:
        raise RuntimeError("pad must be non-negative")
    for p, k, d in zip(pads, kernel, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={d}"
            )
    if input.ndim not in (3, 4) or 0 in input.shape[-3:]:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    sizes = input.shape[-2:]
    out = tuple(
        sw.output_size(n, k, s, d, p, p, ceil_mode) for n, k, s, d, p in zip(sizes, kernel, stride, dilation, pads)
    )
    if min(out) < 1:
        channels = input.shape[-3]
        raise RuntimeError(
            f"Given input size: ({channels}x{sizes[0]}x{sizes[1]}). Calculated output size: "
            f"({channels}x{out[0]}x{out[1]}). Output size is too small"
        )
    padding = tuple(
        (p, max(p, (o - 1) * s + d * (k - 1) + 1 - n - p))
        for n, k, s, d, p, o in zip(sizes, kernel, stride, dilation, pads, out)
    )
    return kernel, stride, padding, dilation, out


def _max_indices(input, kernel, stride, padding, dilation, out):
    """Each max's flat index into its input plane (H * W), as max_pool2d's return_indices gives."""
    x = input.array
    int64 = backend.native_dtype(dtypes.int64, x)
    argmax = backend.astype(window_max(sw.pad(x, padding, _lowest(x)), kernel, stride, dilation, out)[1], int64)
    rows = backend.reshape(backend.arange(out[0], like=x), (-1, 1)) * stride[0] - padding[0][0]
    cols = backend.arange(out[1], like=x) * stride[1] - padding[1][0]
    h = rows + (argmax // kernel[1]) * dilation[0]
    w = cols + (argmax % kernel[1]) * dilation[1]
    return wrap(h * x.shape[-1] + w)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The max over each kernel_size window of (N, C, H, W) or (C, H, W), stepping by stride."""
    geometry = pool_geometry("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)
    kernel, stride, padding, dilation, out = geometry
    output = MaxPool2d.apply(input, kernel=kernel, stride=stride, padding=padding, dilation=dilation, out=out)
    if return_indices:
        return output, _max_indices(input, *geometry)
    return output


def avg_pool2d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    """The mean over each kernel_size window of (N, C, H, W) or (C, H, W), stepping by stride."""
    kernel, stride, padding, _, out = pool_geometry("avg_pool2d", input, kernel_size, stride, padding, 1, ceil_mode)
    if not input.is_floating_point():
        raise NotImplementedError(
            f"avg_pool2d: integer input ({input.dtype}) is not supported by graphscope; convert it with .float()"
        )
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        scale = 1.0 / divisor_override
    else:
        scale = _scale(input, kernel, stride, padding, out, count_include_pad)
    return AvgPool2d.apply(input, kernel=kernel, stride=stride, padding=padding, scale=scale, out=out)


def _scale(input, kernel, stride, padding, out, count_include_pad):
    """1 / PyTorch's divisor: a number, or an (oH, oW) array where windows are cut short."""
    counts = []
    for n, k, s, (p, _), o in zip(input.shape[-2:], kernel, stride, padding, out):
        axis = []
        for i in range(o):
            start = i * s - p
            end = min(start + k, n + p)
            axis.append(end - start if count_include_pad else min(end, n) - max(start, 0))
        counts.append(axis)
    rows, cols = counts
    if len(set(rows)) == 1 and len(set(cols)) == 1:
        return 1.0 / (rows[0] * cols[0])
    table = [[1.0 / (r * c) for c in cols] for r in rows]
    return backend.asarray(table, like=input.array, dtype=input.array.dtype)
