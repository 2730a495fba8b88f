"""Sliding windows over the last two axes as strided slices: what convolution and pooling share.

A kernel position (i, j) sees, at every output position, one strided slice of the padded input;
im2col writes those slices side by side and `unwindow` (col2im) adds them back. Slicing is in the
array API standard, and NumPy copies a strided slice as fast as an `as_strided` window view, so one
code path serves every device.
"""

from __future__ import annotations

import itertools

from .. import backend


def output_size(size, kernel, stride, dilation, before, after, ceil_mode=False) -> int:
    """Output length along one axis padded by `before` and `after`, as PyTorch computes it.

    With ceil_mode (pooling) a last, partial window counts if it starts inside the input or its
    left padding.
    """
    span = size + before + after - dilation * (kernel - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + before:
        out -= 1
    return out


def positions(kernel):
    """Every kernel position (i, j), row by row: the order of im2col's columns."""
    return itertools.product(range(kernel[0]), range(kernel[1]))


def window(x, position, stride, dilation, out):
    """The slice of `x` that kernel `position` sees at every output position (out[0] x out[1])."""
    return x[_index(position, stride, dilation, out)]


def _index(position, stride, dilation, out):
    return (...,) + tuple(
        slice(k * d, k * d + s * (o - 1) + 1, s) for k, s, d, o in zip(position, stride, dilation, out)
    )


def pad(x, padding, value=0):
    """`x` with its last two axes padded by padding = ((top, bottom), (left, right)) of `value`."""
    (top, bottom), (left, right) = padding
    if not (top or bottom or left or right):
        return x
    height, width = x.shape[-2:]
    out = backend.full(tuple(x.shape[:-2]) + (height + top + bottom, width + left + right), value, x.dtype, like=x)
    out[..., top : top + height, left : left + width] = x
    return out


def crop(g, padding, size):
    """Undo `pad` on a gradient: the part of `g` over the original (height, width) = `size`."""
    (top, _), (left, _) = padding
    if g.shape[-2:] == tuple(size):
        return g
    return g[..., top : top + size[0], left : left + size[1]]


def im2col(x, kernel, stride, dilation, out):
    """Columns (*lead, kH, kW, *trail, oH, oW) of x (*lead, *trail, H, W) with lead = x.shape[:1].

    The kernel axes come right after the first axis, so that for x laid out (C, N, H, W) the
    result reshapes to the (C * kH * kW, N * oH * oW) matrix of im2col without another copy.
    """
    shape = x.shape[:1] + tuple(kernel) + x.shape[1:-2] + tuple(out)
    cols = backend.create(backend.device_of(x), "empty", shape, dtype=x.dtype)  # every element is written
    for i, j in positions(kernel):
        cols[:, i, j, ...] = window(x, (i, j), stride, dilation, out)
    return cols


def unwindow(part, shape, like, kernel, stride, dilation, out):
    """The adjoint of reading every window: zeros of `shape` plus, for each kernel position k at
    (i, j), part(k, i, j) added where that position's window came from (assigned when windows
    do not overlap, which saves a read)."""
    x = backend.zeros(shape, like.dtype, like=like)
    disjoint = all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation))
    for k, (i, j) in enumerate(positions(kernel)):
        index = _index((i, j), stride, dilation, out)
        if disjoint:
            x[index] = part(k, i, j)
        else:
            x[index] += part(k, i, j)
    return x
