"""Reductions over dims (sum, mean, var, std, prod, max, min, argmax, ...) with their derivative rules."""

from __future__ import annotations

import builtins
import math
from collections import namedtuple

from .. import backend, dtypes
from ..backend import namespace
from ..dims import dims, normalize_dim
from ..function import Function
from ..tensor import Tensor, wrap
from .operands import tensor_input
from .tensor_methods import method

MaxResult = namedtuple("max", ["values", "indices"])  # type: ignore[name-match]  # torch.return_types.max's name
MinResult = namedtuple("min", ["values", "indices"])  # type: ignore[name-match]  # torch.return_types.min's name


def expand_back(grad, shape, axes, keepdim):
    """Reshape a reduced grad so it broadcasts against the input's `shape`."""
    if axes is None:
        return backend.reshape(grad, (1,) * len(shape))
    if not keepdim:
        grad = backend.reshape(grad, tuple(1 if i in axes else n for i, n in enumerate(shape)))
    return grad


def _count(shape, axes) -> int:
    n = 1
    for axis in range(len(shape)) if axes is None else axes:
        n *= shape[axis]
    return n


class Sum(Function):
    reads_inputs = ()

    def forward(self, x, axes, keepdim, dtype=None):
        self.shape, self.axes, self.keepdim = x.shape, axes, keepdim
        return backend.sum(x, axis=axes, keepdims=keepdim, dtype=dtype)

    rule = "d sum(x)/dx = 1 (grad spread to every summed element)"

    def backward(self, grad):
        if self.axes is None:  # (keepdim: the grad of all ones's dims is one value too)
            return backend.fill(self.shape, backend.reshape(grad, ())), None, None, None
        g = expand_back(grad, self.shape, self.axes, self.keepdim)
        return namespace(grad).broadcast_to(g, self.shape), None, None, None


class Mean(Function):
    reads_inputs = ()

    def forward(self, x, axes, keepdim):
        self.shape, self.axes, self.keepdim = x.shape, axes, keepdim
        self.count = _count(x.shape, axes)
        return backend.sum(x, axis=axes, keepdims=keepdim) / self.count

    rule = "d mean(x)/dx = 1/N (grad spread evenly over the N averaged elements)"

    def backward(self, grad):
        if self.axes is None:
            return backend.fill(self.shape, backend.reshape(grad, ()) / self.count), None, None
        g = expand_back(grad, self.shape, self.axes, self.keepdim) / self.count
        return namespace(grad).broadcast_to(g, self.shape), None, None


def _variance(x, axes, keepdim, correction):
    """Sum of squared deviations over n - correction (what np.var does, in standard calls)."""
    xp = namespace(x)
    centered = x - xp.mean(x, axis=axes, keepdims=True)
    squares = backend.sum(centered * centered, axis=axes, keepdims=keepdim)
    return squares / builtins.max(_count(x.shape, axes) - correction, 0), centered


class Var(Function):
    def forward(self, x, axes, keepdim, correction):
        self.x, self.axes, self.keepdim, self.correction = x, axes, keepdim, correction
        return _variance(x, axes, keepdim, correction)[0]

    rule = "d var(x)/dx = 2·(x − mean)/(N − correction) (grad spread to every element)"

    def backward(self, grad):
        x, xp = self.x, namespace(grad)
        centered = x - xp.mean(x, axis=self.axes, keepdims=True)
        n = _count(x.shape, self.axes) - self.correction
        g = expand_back(grad, x.shape, self.axes, self.keepdim)
        return g * centered * (2 / n if n else math.inf), None, None, None  # n == 0: inf/nan, as torch


class Std(Function):
    saves_output = True

    def forward(self, x, axes, keepdim, correction):
        xp = namespace(x)
        self.x, self.axes, self.keepdim, self.correction = x, axes, keepdim, correction
        self.out = out = xp.sqrt(_variance(x, axes, keepdim, correction)[0])
        return out

    rule = "d std(x)/dx = (x − mean)/((N − correction)·std) (grad spread to every element)"

    def backward(self, grad):
        x, xp = self.x, namespace(grad)
        centered = x - xp.mean(x, axis=self.axes, keepdims=True)
        n = _count(x.shape, self.axes) - self.correction
        # Where the std is 0 the gradient is taken as 0 (as PyTorch), not 0/0.
        scaled = xp.where(self.out == 0, 0, grad / xp.where(self.out == 0, 1, self.out))
        g = expand_back(scaled, x.shape, self.axes, self.keepdim)
        return g * centered * (1 / n if n else math.inf), None, None, None


class Prod(Function):
    def forward(self, x, axes, keepdim):
        self.x, self.axes, self.keepdim = x, axes, keepdim
        return namespace(x).prod(x, axis=axes, keepdims=keepdim)

    rule = "d prod(x)/dxᵢ = product of the other elements (= prod/xᵢ when xᵢ ≠ 0)"

    def backward(self, grad):
        # Product of all the other elements: exclusive cumulative products from both sides,
        # which stays right when some elements are zero (prod / x would divide by zero).
        x, xp = self.x, namespace(grad)
        axes = tuple(range(x.ndim)) if self.axes is None else self.axes
        kept = [a for a in range(x.ndim) if a not in axes]
        moved = xp.permute_dims(x, tuple(kept + list(axes))) if x.ndim else x
        flat = backend.reshape(moved, moved.shape[: len(kept)] + (-1,))
        ones = xp.ones_like(flat[..., :1])
        left = backend.cumprod(xp.concat([ones, flat[..., :-1]], axis=-1), axis=-1)
        right = xp.flip(backend.cumprod(xp.concat([ones, xp.flip(flat, axis=-1)[..., :-1]], axis=-1), axis=-1), axis=-1)
        others = backend.reshape(left * right, moved.shape)
        if x.ndim:
            inverse = [0] * x.ndim
            for i, a in enumerate(kept + list(axes)):
                inverse[a] = i
            others = xp.permute_dims(others, tuple(inverse))
        g = expand_back(grad, x.shape, self.axes, self.keepdim)
        return g * others, None, None


class Amax(Function):
    """max/min over dims; ties share the gradient evenly (as torch.amax / amin)."""

    saves_output = True

    def forward(self, x, axes, keepdim, largest=True):
        xp = namespace(x)
        self.x, self.axes, self.keepdim = x, axes, keepdim
        self.out = out = (xp.max if largest else xp.min)(x, axis=axes, keepdims=keepdim)
        return out

    rule = "d amax(x)/dx = 1 at the maximum, split evenly between ties, 0 elsewhere"

    def backward(self, grad):
        x = self.x
        hit = backend.astype(self.hits(x, expand_back(self.out, x.shape, self.axes, self.keepdim)), x.dtype)
        count = backend.sum(hit, axis=self.axes, keepdims=True)
        g = expand_back(grad, x.shape, self.axes, self.keepdim)
        return g * hit / count, None, None, None

    @staticmethod
    def hits(x, out):
        """Where the grad goes: no element equals a NaN result, so its grad is 0/0 (NaN), as torch's."""
        return x == out


class Amin(Amax):
    rule = "d amin(x)/dx = 1 at the minimum, split evenly between ties, 0 elsewhere"


class Max(Amax):
    """max()/min() of all elements: as amax, but a NaN result sends its grad to the NaNs (as torch)."""

    rule = "d max(x)/dx = 1 at the maximum (at the NaNs if there are any), split evenly between ties, 0 elsewhere"

    @staticmethod
    def hits(x, out):
        xp = namespace(x)
        return (x == out) | (xp.isnan(x) & xp.isnan(out))


class Min(Max):
    rule = "d min(x)/dx = 1 at the minimum (at the NaNs if there are any), split evenly between ties, 0 elsewhere"


class MaxDim(Function):
    """Values of max/min along one dim; the gradient goes to the returned index only."""

    def forward(self, x, axis, keepdim, indices):
        self.shape, self.axis, self.keepdim, self.indices = x.shape, axis, keepdim, indices
        xp = namespace(x)
        idx = indices if keepdim else xp.expand_dims(indices, axis=axis)
        values = xp.take_along_axis(x, idx, axis=axis)
        return values if keepdim else xp.squeeze(values, axis=axis)

    rule = "d max(x, dim)/dx = 1 at the returned index of each row, 0 elsewhere"

    def backward(self, grad):
        xp = namespace(grad)
        idx = self.indices if self.keepdim else xp.expand_dims(self.indices, axis=self.axis)
        g = grad if self.keepdim else xp.expand_dims(grad, axis=self.axis)
        positions = backend.reshape(
            backend.arange(self.shape[self.axis], like=grad),
            tuple(-1 if a == self.axis else 1 for a in range(len(self.shape))),
        )
        return xp.where(positions == idx, g, 0), None, None, None


class MinDim(MaxDim):
    rule = "d min(x, dim)/dx = 1 at the returned index of each row, 0 elsewhere"


@method("sum", keepdims=True)
def sum(input, dim=None, keepdim=False, *, dtype=None):
    tensor_input(input, "sum")
    axes = dims(dim, input.ndim)
    if dtype is None:
        current = backend.dtype_of(input.array)
        if not current.is_floating_point and current is not dtypes.int64:
            dtype = dtypes.int64  # integer and bool sums are int64, as PyTorch
    native = None if dtype is None else backend.native_dtype(dtype, input.array)
    return Sum.apply(input, axes, keepdim, native)


def _float_only(input, op):
    if not backend.is_floating(input.array):
        raise RuntimeError(
            f"{op}(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {input.dtype.name}; convert with .float() first"
        )


@method("mean", keepdims=True)
def mean(input, dim=None, keepdim=False, *, dtype=None):
    tensor_input(input, "mean")
    if dtype is not None:
        input = input.to(dtype)
    _float_only(input, "mean")
    return Mean.apply(input, dims(dim, input.ndim), keepdim)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


@method("var", keepdims=True)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    tensor_input(input, "var")
    _float_only(input, "var")
    return Var.apply(input, dims(dim, input.ndim), keepdim, _correction(unbiased, correction))


@method("std", keepdims=True)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    tensor_input(input, "std")
    _float_only(input, "std")
    return Std.apply(input, dims(dim, input.ndim), keepdim, _correction(unbiased, correction))


@method("prod", keepdims=True)
def prod(input, dim=None, keepdim=False):
    tensor_input(input, "prod")
    return Prod.apply(input, dims(dim, input.ndim), keepdim)


def _nonempty(input, op, axes, whole_error=RuntimeError):
    """torch's refusals for an empty tensor: a reduction over all of it (`axes` None or ()) raises
    `whole_error`, one over a dim of size 0 IndexError; over other dims its result is empty."""
    if input.array.size:
        return
    if not axes and axes != 0:
        raise whole_error(
            f"{op}(): expected a non-empty tensor, got shape {tuple(input.shape)}; "
            "give the reduction dim with the 'dim' argument"
        )
    for axis in (axes,) if isinstance(axes, int) else axes:
        if input.shape[axis] == 0:
            raise IndexError(
                f"{op}(): expected reduction dim {axis} to have non-zero size, got shape {tuple(input.shape)}"
            )


@method("amax", keepdims=True)
def amax(input, dim=(), keepdim=False):
    tensor_input(input, "amax")
    axes = dims(dim, input.ndim)
    _nonempty(input, "amax", axes)
    return Amax.apply(input, axes, keepdim, True)


@method("amin", keepdims=True)
def amin(input, dim=(), keepdim=False):
    tensor_input(input, "amin")
    axes = dims(dim, input.ndim)
    _nonempty(input, "amin", axes)
    return Amin.apply(input, axes, keepdim, False)


def _max_min(input, dim, keepdim, largest):
    op = "max" if largest else "min"
    if isinstance(dim, Tensor):  # torch.max(a, b) is the elementwise maximum
        from .arithmetic import maximum, minimum

        return (maximum if largest else minimum)(input, dim)
    tensor_input(input, op)
    if dim is None:
        _nonempty(input, op, None)
        return (Max if largest else Min).apply(input, None, False, largest)
    axis = normalize_dim(dim, input.ndim)
    _nonempty(input, op, axis)
    xp = namespace(input.array)
    int64 = backend.native_dtype(dtypes.int64, input.array)
    if input.ndim == 0:
        return (MaxResult if largest else MinResult)(input, wrap(backend.zeros((), int64, like=input.array)))
    indices = backend.astype(
        (xp.argmax if largest else xp.argmin)(input.array, axis=axis, keepdims=keepdim), int64, copy=False
    )
    values = (MaxDim if largest else MinDim).apply(input, axis, keepdim, indices)
    return (MaxResult if largest else MinResult)(values, wrap(indices))


@method("max", keepdims=True)
def max(input, dim=None, keepdim=False):
    return _max_min(input, dim, keepdim, True)


@method("min", keepdims=True)
def min(input, dim=None, keepdim=False):
    return _max_min(input, dim, keepdim, False)


def _arg(input, dim, keepdim, largest):
    op = "argmax" if largest else "argmin"
    tensor_input(input, op)
    axis = None if dim is None else normalize_dim(dim, input.ndim)
    _nonempty(input, op, axis, IndexError)
    xp = namespace(input.array)
    fn = xp.argmax if largest else xp.argmin
    int64 = backend.native_dtype(dtypes.int64, input.array)
    if axis is None:
        out = xp.asarray(fn(backend.reshape(input.array, (-1,))))
        if keepdim:
            out = backend.reshape(out, (1,) * input.ndim)
        return wrap(backend.astype(out, int64, copy=False))
    return wrap(backend.astype(fn(input.array, axis=axis, keepdims=keepdim), int64, copy=False))


@method("argmax", keepdims=True)
def argmax(input, dim=None, keepdim=False):
    return _arg(input, dim, keepdim, True)


@method("argmin", keepdims=True)
def argmin(input, dim=None, keepdim=False):
    return _arg(input, dim, keepdim, False)


@method("all", keepdims=True)
def all(input, dim=None, keepdim=False):
    tensor_input(input, "all")
    return wrap(namespace(input.array).all(input.array, axis=dims(dim, input.ndim), keepdims=keepdim))


@method("any", keepdims=True)
def any(input, dim=None, keepdim=False):
    tensor_input(input, "any")
    return wrap(namespace(input.array).any(input.array, axis=dims(dim, input.ndim), keepdims=keepdim))
