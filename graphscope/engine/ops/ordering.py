"""Sorting along a dim (sort, argsort, topk); the gradient goes back through the inverse permutation."""

from __future__ import annotations

from collections import namedtuple

from .. import backend, dtypes
from ..backend import namespace
from ..dims import normalize_dim
from ..function import Function
from ..tensor import wrap
from .operands import tensor_input
from .tensor_methods import method

SortResult = namedtuple("sort", ["values", "indices"])  # type: ignore[name-match]  # torch.return_types.sort's name
TopkResult = namedtuple("topk", ["values", "indices"])  # type: ignore[name-match]  # torch.return_types.topk's name


def order(x, axis: int, descending: bool):
    """The int64 indices that sort `x` along `axis`, stably (NaN counts as the largest, as torch)."""
    xp = namespace(x)
    if not descending:
        return xp.argsort(x, axis=axis, stable=True)
    # Stable descending from a stable ascending sort of the reversed array: equal values keep order.
    n = x.shape[axis]
    return (n - 1) - xp.flip(xp.argsort(xp.flip(x, axis=axis), axis=axis, stable=True), axis=axis)


class Sort(Function):
    """The first `k` values of `x` along `axis` in the given order (all of them for sort)."""

    reads_inputs = ()

    def forward(self, x, axis, k, indices):
        xp = namespace(x)
        self.axis, self.length, self.indices = axis, x.shape[axis], indices
        values = xp.take_along_axis(x, indices, axis=axis)
        return values if k == x.shape[axis] else _first(values, axis, k)

    rule = "d sort(x)/dx = 1 from each sorted place back to where it came from (grad scattered by the indices)"

    def backward(self, grad):
        # Pad the grad of the dropped values with zeros, then undo the permutation.
        xp = namespace(grad)
        axis, missing = self.axis, self.length - grad.shape[self.axis]
        if missing:
            shape = grad.shape[:axis] + (missing,) + grad.shape[axis + 1 :]
            grad = xp.concat([grad, backend.zeros(shape, grad.dtype, like=grad)], axis=axis)
        inverse = xp.argsort(self.indices, axis=axis)
        return xp.take_along_axis(grad, inverse, axis=axis), None, None, None


class Topk(Sort):
    rule = "d topk(x)/dx = 1 at the k chosen places (grad scattered by the indices), 0 elsewhere"


def _first(x, axis, k):
    return x[(slice(None),) * axis + (slice(0, k), ...)]


def _prepare(input, dim, op):
    tensor_input(input, op)
    if input.ndim == 0:
        normalize_dim(dim, 0)
        return None
    return normalize_dim(dim, input.ndim)


def _int64(indices, like):
    return backend.astype(indices, backend.native_dtype(dtypes.int64, like), copy=False)


@method("sort")
def sort(input, dim=-1, descending=False, stable=False):
    """(values, indices) sorted along `dim`; equal values keep their order (stable, always)."""
    axis = _prepare(input, dim, "sort")
    if axis is None:
        return SortResult(
            input.clone(), wrap(backend.zeros((), backend.native_dtype(dtypes.int64, input.array), like=input.array))
        )
    indices = _int64(order(input.array, axis, descending), input.array)
    return SortResult(Sort.apply(input, axis, input.shape[axis], indices), wrap(indices))


@method("argsort")
def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort `input` along `dim` (as sort(...).indices)."""
    return sort(input, dim, descending, stable).indices


@method("topk")
def topk(input, k, dim=-1, largest=True, sorted=True):
    """(values, indices) of the `k` largest (or smallest) elements along `dim`, in sorted order."""
    axis = _prepare(input, dim, "topk")
    length = 1 if axis is None else input.shape[axis]
    if not 0 <= k <= length:
        raise RuntimeError(f"selected index k out of range: k={k} but dimension {dim} has {length} elements")
    if axis is None:
        return TopkResult(*sort(input))
    indices = _int64(order(input.array, axis, largest), input.array)
    return TopkResult(Topk.apply(input, axis, k, indices), wrap(_first(indices, axis, k)))


class Unique(Function):
    """The distinct values, found before it is applied; torch defines no derivative for it, so its backward says so."""

    reads_inputs = ()

    def forward(self, x, values):
        return values

    rule = "unique has no derivative (as torch)"

    def backward(self, grad):
        raise NotImplementedError("the derivative for 'unique' is not implemented; detach() its input first")


@method("unique")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values in ascending order (each NaN distinct, as torch), or the distinct slices along
    `dim`; with the index of each element's (or slice's) value and each value's count when asked."""
    tensor_input(input, "unique")
    array = input.array
    axis = None if dim is None else normalize_dim(dim, array.ndim)
    values, inverse, counts = namespace(array).unique(
        array, return_inverse=True, return_counts=True, axis=axis, equal_nan=False
    )
    inverse = inverse.reshape(array.shape if axis is None else (array.shape[axis],))
    out = Unique.apply(input, values)
    extras = [wrap(_int64(x, array)) for x, wanted in ((inverse, return_inverse), (counts, return_counts)) if wanted]
    return (out, *extras) if extras else out
