"""F.pad: constant padding (or cropping), and reflect / replicate / circular as index gathers."""

from __future__ import annotations

from .. import backend
from ..function import Function
from ..tensor import Tensor
from .resampling import Resample, axis_taps


class ConstantPad(Function):
    """`value` around the input (negative pads crop it): one slice copy each way."""

    op = "constant_pad_nd"
    reads_inputs = ()

    def forward(self, x, pads=(), value=0):
        shape = list(x.shape)
        source, target = [slice(None)] * x.ndim, [slice(None)] * x.ndim
        for axis, (before, after) in zip(range(x.ndim - 1, -1, -1), pads):
            size = shape[axis]
            shape[axis] = size + before + after
            source[axis] = slice(max(-before, 0), size - max(-after, 0))
            target[axis] = slice(max(before, 0), max(before, 0) + max(size - max(-before, 0) - max(-after, 0), 0))
        out = backend.full(tuple(shape), value, x.dtype, like=x)
        out[tuple(target)] = x[tuple(source)]
        self.x_shape, self.source, self.target = x.shape, tuple(source), tuple(target)
        return out

    rule = "d pad(x, value)/dx = 1 inside (the padding's grad is dropped)"

    def backward(self, grad):
        g = backend.zeros(self.x_shape, grad.dtype, like=grad)
        g[self.source] = grad[self.target]
        return (g,)


class Pad(Resample):
    """reflect / replicate / circular padding: per padded axis, one gather by a source index."""

    op = "pad"
    rule = "d pad(x)/dx = 1 for each copy of x's element (reflect/replicate: the copies' grads add up)"


def _source(mode, size, before, after):
    """For each output position along one axis, the input position it copies."""
    positions = range(-before, size + after)
    if mode == "replicate":
        return [min(max(p, 0), size - 1) for p in positions]
    if mode == "circular":
        return [p % size for p in positions]
    reflected = [abs(p) for p in positions]
    return [2 * (size - 1) - p if p >= size else p for p in reflected]


_NON_CONSTANT_DIMS = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad) // 2 dims of `input`; pad = (last_before, last_after, 2nd_last_before, ...)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    for i, p in enumerate(pad):
        if not isinstance(p, int) or isinstance(p, bool):
            raise TypeError(
                f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of "
                f"type {type(p).__name__} at pos {i}"
            )
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    count = len(pad) // 2
    if count > input.ndim:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.ndim}"
        )
    pairs = tuple((pad[2 * i], pad[2 * i + 1]) for i in range(count))  # last axis first
    if mode == "constant":
        for axis, (before, after) in zip(range(input.ndim - 1, -1, -1), pairs):
            if input.shape[axis] + before + after < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
        return ConstantPad.apply(input, pads=pairs, value=0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if count not in (1, 2, 3) or input.ndim not in (count + 1, count + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n" + _NON_CONSTANT_DIMS
        )
    taps = []
    for i, (before, after) in enumerate(pairs):
        axis = -1 - i
        size = input.shape[axis]
        if mode == "reflect" and (before >= size or after >= size):
            raise RuntimeError(
                f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input dimension, "
                f"but got: padding ({before}, {after}) at dimension {input.ndim + axis} of input "
                f"{list(input.shape)}"
            )
        if mode == "circular" and (before > size or after > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "replicate" and size == 0:
            raise RuntimeError(
                f"replicate padding needs a non-empty dimension {input.ndim + axis}, got input of "
                f"size {list(input.shape)}"
            )
        taps.append(axis_taps(input.array, axis, [_source(mode, size, before, after)]))
    return Pad.apply(input, taps=tuple(reversed(taps)))
