"""Indexing (basic and advanced), gather and masked_fill; backward scatters, summing repeated indices."""

from __future__ import annotations

import numpy as np

from .. import backend
from ..backend import namespace
from ..function import Function
from ..tensor import Tensor
from .operands import normalize_dim

_BASIC = (int, slice, type(None), type(Ellipsis), np.integer)


def _index_array(part, xp):
    array = part.array if isinstance(part, Tensor) else xp.asarray(part)
    if array.dtype.kind == "b":
        return tuple(array.nonzero())
    if array.dtype.kind not in "iu":
        raise IndexError(
            f"tensors used as indices must be long, int or bool tensors, got {array.dtype}"
        )
    return (array,)


def normalize_index(index, xp):
    """A NumPy index for `index`: tensors and lists become arrays, bool masks their nonzero positions."""
    parts = index if isinstance(index, tuple) else (index,)
    out = []
    for part in parts:
        if isinstance(part, bool):
            raise IndexError("indexing with a Python bool is not supported; use a bool tensor mask")
        if isinstance(part, _BASIC):
            out.append(part)
        elif isinstance(part, (Tensor, list, np.ndarray)) or backend.is_array(part):
            out.extend(_index_array(part, xp))
        else:
            raise IndexError(
                f"only integers, slices, None, ..., integer/bool tensors and lists are valid indices "
                f"(got {type(part).__name__})"
            )
    return tuple(out)


def is_basic(index) -> bool:
    return all(isinstance(part, _BASIC) for part in index)


class GetItem(Function):
    op = "index"
    saved_inputs = ()

    def forward(self, x, index):
        self.shape, self.dtype, self.index = x.shape, x.dtype, index
        return x[index]

    def backward(self, grad):
        out = namespace(grad).zeros(self.shape, dtype=self.dtype)
        if is_basic(self.index):
            out[self.index] = grad
        else:
            backend.scatter_add(out, self.index, grad)
        return out, None


class Narrow(GetItem):
    op = "narrow"


class SetItem(Function):
    op = "setitem"
    saved_inputs = ()

    def forward(self, x, value, index):
        self.index = index
        out = x.copy()
        out[index] = value
        return out

    def backward(self, grad):
        need_x, need_value = self.needs_input_grad[:2]
        grad_x = grad_value = None
        if need_x:
            grad_x = grad.copy()
            grad_x[self.index] = 0
        if need_value:
            grad_value = grad[self.index]
        return grad_x, grad_value, None


class Gather(Function):
    op = "gather"
    saved_inputs = ()

    def forward(self, x, axis, index):
        xp = namespace(x)
        self.shape, self.dtype, self.axis, self.index = x.shape, x.dtype, axis, index
        window = tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(index.shape))
        return xp.take_along_axis(x[window], index, axis=axis)

    def backward(self, grad):
        xp = namespace(grad)
        out = xp.zeros(self.shape, dtype=self.dtype)
        positions = tuple(
            self.index if d == self.axis
            else xp.arange(n).reshape(tuple(-1 if k == d else 1 for k in range(grad.ndim)))
            for d, n in enumerate(self.index.shape)
        )
        backend.scatter_add(out, positions, grad)
        return out, None, None


class MaskedFill(Function):
    op = "masked_fill"
    saved_inputs = ()

    def forward(self, x, mask, value):
        self.mask = mask
        xp = namespace(x)
        return xp.where(mask, xp.asarray(value, dtype=x.dtype), x)

    def backward(self, grad):
        return namespace(grad).where(self.mask, 0, grad), None, None


def getitem(input: Tensor, index):
    from .shape import _view_of

    index = normalize_index(index, namespace(input.array))
    try:
        out = GetItem.apply(input, index)
    except IndexError as error:
        raise IndexError(f"{error} (indexing a tensor of shape {tuple(input.shape)})") from None
    return _view_of(out, input) if is_basic(index) else out


def narrow(input: Tensor, dim, start, length):
    from .shape import _view_of

    axis = normalize_dim(dim, input.ndim)
    index = (slice(None),) * axis + (slice(start, start + length),)
    return _view_of(Narrow.apply(input, index), input)


def gather(input: Tensor, dim, index: Tensor):
    axis = normalize_dim(dim, input.ndim)
    if not isinstance(index, Tensor) or index.array.dtype.kind not in "iu":
        raise TypeError("gather(): index must be an integer (long) tensor")
    if index.ndim != input.ndim:
        raise ValueError(
            f"gather: index has {index.ndim} dims but input has {input.ndim}; they must match"
        )
    for d, (n, m) in enumerate(zip(index.shape, input.shape)):
        if d != axis and n > m:
            raise ValueError(
                f"gather: index shape {tuple(index.shape)} exceeds input shape {tuple(input.shape)} in dim {d}"
            )
    if index.numel() and (int(index.array.min()) < 0 or int(index.array.max()) >= input.shape[axis]):
        raise IndexError(
            f"gather: index out of range: values must be in [0, {input.shape[axis]}) for dim {axis}"
        )
    return Gather.apply(input, axis, index.array)


def mask_array(mask, like: Tensor):
    if not isinstance(mask, Tensor) or mask.array.dtype.kind != "b":
        raise TypeError("masked_fill: mask must be a bool tensor (e.g. x > 0)")
    return mask.array


def masked_fill(input: Tensor, mask, value):
    if isinstance(value, Tensor):
        value = value.item()
    try:
        return MaskedFill.apply(input, mask_array(mask, input), value)
    except ValueError:
        raise ValueError(
            f"masked_fill: mask of shape {tuple(mask.shape)} cannot be broadcast to {tuple(input.shape)}"
        ) from None
