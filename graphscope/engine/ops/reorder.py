"""Ops that move or mask elements in place of shape (flip, roll, tril, triu) and cumsum."""

from __future__ import annotations

from .. import backend, dtypes
from ..backend import namespace
from ..dims import dims as _dims
from ..dims import normalize_dim
from ..function import Function
from .operands import tensor_input
from .tensor_methods import method, method_only
from .unary import cast


class Flip(Function):
    reads_inputs = ()

    def forward(self, x, axes):
        self.axes = axes
        return namespace(x).flip(x, axis=axes)

    rule = "d flip(x)/dx = 1 (the grad is flipped back)"

    def backward(self, grad):
        return namespace(grad).flip(grad, axis=self.axes), None


class Roll(Function):
    reads_inputs = ()

    def forward(self, x, shifts, axes):
        self.shifts, self.axes = shifts, axes
        return namespace(x).roll(x, shifts, axis=axes)

    rule = "d roll(x, s)/dx = 1 (the grad is rolled back by −s)"

    def backward(self, grad):
        back = tuple(-s for s in self.shifts) if isinstance(self.shifts, tuple) else -self.shifts
        return namespace(grad).roll(grad, back, axis=self.axes), None, None


class Triangle(Function):
    """x where the bool `mask` (the kept triangle of the last two dims) holds, else 0."""

    reads_inputs = ()

    def forward(self, x, mask):
        self.mask = mask
        return namespace(x).where(mask, x, backend.zeros((), x.dtype, like=x))

    rule = "d tri(x)/dx = 1 inside the kept triangle, 0 elsewhere"

    def backward(self, grad):
        return backend.keep(grad, self.mask), None


class Tril(Triangle):
    rule = "d tril(x)/dx = 1 on and below the diagonal, 0 above"


class Triu(Triangle):
    rule = "d triu(x)/dx = 1 on and above the diagonal, 0 below"


class Cumsum(Function):
    reads_inputs = ()

    def forward(self, x, axis):
        self.axis = axis
        return namespace(x).cumulative_sum(x, axis=axis)

    rule = "d cumsum(x)ᵢ/dxⱼ = 1 for i ≥ j: dx = reversed cumsum of dOut along dim"

    def backward(self, grad):
        # Each input adds to every later output: the grad is the reversed cumulative sum.
        xp, axis = namespace(grad), self.axis
        return xp.flip(xp.cumulative_sum(xp.flip(grad, axis=axis), axis=axis), axis=axis), None


def flip(input, dims):
    """The elements in reverse order along each of `dims`."""
    tensor_input(input, "flip")
    axes = _dims(dims, input.ndim)
    if axes is None:
        return input.clone()
    return Flip.apply(input, axes)


@method("roll")
def roll(input, shifts, dims=None):
    """Elements shifted along `dims`, those past the end coming back at the start (flattened if None)."""
    tensor_input(input, "roll")
    many = isinstance(shifts, (tuple, list))
    if dims is None:
        if many and len(shifts) != 1:
            raise RuntimeError(f"roll: with dims=None, shifts must be one int, got {len(shifts)} shifts")
        flat = input.reshape(-1)
        return Roll.apply(flat, int(shifts[0] if many else shifts), None).reshape(input.shape)
    axes = tuple(normalize_dim(d, input.ndim) for d in (dims if isinstance(dims, (tuple, list)) else (dims,)))
    shifts = tuple(int(s) for s in shifts) if many else (int(shifts),)
    if len(shifts) != len(axes):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(axes)}")
    return Roll.apply(input, shifts, axes)


def _triangle(cls, input, diagonal, op, lower):
    tensor_input(input, op)
    if input.ndim < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions, got {input.ndim}")
    x = input.array
    rows, cols = x.shape[-2:]
    offset = backend.reshape(backend.arange(cols, like=x), (1, cols)) - backend.reshape(
        backend.arange(rows, like=x), (rows, 1)
    )
    mask = offset <= diagonal if lower else offset >= diagonal
    return cls.apply(input, mask)


@method("tril")
def tril(input, diagonal=0):
    """The lower triangle of the last two dims (at and below diagonal `diagonal`); the rest 0."""
    return _triangle(Tril, input, diagonal, "tril", True)


@method("triu")
def triu(input, diagonal=0):
    """The upper triangle of the last two dims (at and above diagonal `diagonal`); the rest 0."""
    return _triangle(Triu, input, diagonal, "triu", False)


@method("cumsum")
def cumsum(input, dim, *, dtype=None):
    """Running sums along `dim`; integer and bool inputs sum in int64, as torch."""
    tensor_input(input, "cumsum")
    if dtype is not None:
        input = cast(input, dtype)
    elif not backend.is_floating(input.array):
        input = cast(input, dtypes.int64)
    if input.ndim == 0:
        normalize_dim(dim, 0)
        return input.clone()
    return Cumsum.apply(input, normalize_dim(dim, input.ndim))


@method_only("flip")
def flipped(self, *dims):
    """x.flip(0, 1) and x.flip((0, 1)) are flip(x, (0, 1))."""
    return flip(self, dims[0] if len(dims) == 1 else dims)
