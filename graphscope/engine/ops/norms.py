"""Vector and matrix norms (torch.norm, Tensor.norm, torch.linalg.*_norm) with PyTorch's rules."""

from __future__ import annotations

import math

from .. import backend, dtypes
from ..backend import namespace
from ..dims import dims as _dims
from ..dims import normalize_dim
from ..function import Function
from ..tensor import Tensor
from .arithmetic import sub
from .operands import tensor_input
from .reduction import amax, amin, expand_back
from .reduction import sum as _sum
from .tensor_methods import method
from .unary import abs as _abs
from .unary import cast


class VectorNorm(Function):
    """(sum |x|^p)^(1/p) over `axes` for a finite p != 0; where the norm is 0 its grad is 0 (as torch)."""

    def forward(self, x, p, axes, keepdim):
        xp = namespace(x)
        self.x, self.p, self.axes, self.keepdim = x, p, axes, keepdim
        if p == 2:
            out = xp.sqrt(backend.sum(x * x, axis=axes, keepdims=keepdim))
        elif p == 1:
            out = backend.sum(xp.abs(x), axis=axes, keepdims=keepdim)
        else:
            out = backend.sum(xp.abs(x) ** p, axis=axes, keepdims=keepdim) ** (1.0 / p)
        self.out = out
        return out

    rule = "d ‖x‖ₚ/dx = sign(x)·|x|ᵖ⁻¹/‖x‖ₚᵖ⁻¹ (2-norm: x/‖x‖; ∞-norm: to the largest |x|)"

    def backward(self, grad):
        x, p, xp = self.x, self.p, namespace(grad)
        g = expand_back(grad, x.shape, self.axes, self.keepdim)
        norm = expand_back(self.out, x.shape, self.axes, self.keepdim)
        if p == 1:
            return xp.sign(x) * g, None, None, None
        if p == 2:
            return x * xp.where(norm == 0, 0, g / xp.where(norm == 0, 1, norm)), None, None, None
        magnitude = xp.abs(x)
        if p < 1:
            scaled = xp.where(x == 0, 0, xp.sign(x) * xp.where(x == 0, 1, magnitude) ** (p - 1))
            return scaled * g * norm ** (1 - p), None, None, None
        scale = xp.where(norm == 0, 0, g / xp.where(norm == 0, 1, norm) ** (p - 1))
        return xp.sign(x) * magnitude ** (p - 1) * scale, None, None, None


class CountNonzero(Function):
    """The 0-"norm": how many elements are nonzero (a float; no gradient flows, as torch)."""

    reads_inputs = ()

    def forward(self, x, axes, keepdim):
        return backend.sum(backend.astype(x != 0, x.dtype), axis=axes, keepdims=keepdim)

    rule = "count_nonzero has no grad (an integer count)"

    def backward(self, grad):
        return None, None, None


class SingularValues(Function):
    """The singular values of the last two dims, largest first; grad U diag(g) V^T."""

    op = "svdvals"

    def forward(self, x):
        u, s, vh = namespace(x).linalg.svd(x, full_matrices=False)
        self.u, self.vh = u, vh
        return s

    rule = "d σᵢ/dA = uᵢ·vᵢᵀ (from the SVD A = U·diag(σ)·Vᵀ)"

    def backward(self, grad):
        xp = namespace(grad)
        return ((self.u * xp.expand_dims(grad, axis=-2)) @ self.vh,)


def _float_input(input, op, dtype):
    tensor_input(input, op)
    if not backend.is_floating(input.array):
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {input.dtype.name}; "
            "convert it with .float() first"
        )
    if dtype is not None:
        dtype = dtypes.from_any(dtype)
        if dtype.itemsize < input.dtype.itemsize:
            raise RuntimeError(
                f"{op}: the dtype of the input ({input.dtype.name}) should be convertible without "
                f"narrowing to the specified dtype ({dtype.name})"
            )
        input = cast(input, dtype)
    return input


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The vector ord-norm over `dim` (all elements if None): ord 2, 1, inf, -inf, 0 or any float."""
    if isinstance(ord, (str, bool)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    x = _float_input(x, "linalg.vector_norm", dtype)
    axes = _dims(dim, x.ndim)
    if ord == math.inf:
        return amax(_abs(x), () if axes is None else axes, keepdim)
    if ord == -math.inf:
        return amin(_abs(x), () if axes is None else axes, keepdim)
    if ord == 0:
        return CountNonzero.apply(x, axes, keepdim)
    return VectorNorm.apply(x, float(ord), axes, keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm over the two dims `dim`: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf."""
    A = _float_input(A, "linalg.matrix_norm", dtype)
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        shown = " ".join(map(str, dim)) if isinstance(dim, (tuple, list)) else dim
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {shown}")
    rows, cols = (normalize_dim(d, A.ndim) for d in dim)
    if rows == cols:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return VectorNorm.apply(A, 2.0, tuple(sorted((rows, cols))), keepdim)
    if ord in (1, -1, math.inf, -math.inf) and not isinstance(ord, bool):
        summed, kept = (rows, cols) if abs(ord) == 1 else (cols, rows)
        sums = _sum(_abs(A), summed, keepdim=True)
        out = (amax if ord > 0 else amin)(sums, kept, keepdim=True)
        return out if keepdim else out.squeeze((rows, cols))
    if ord in ("nuc", 2, -2):
        moved = A.permute(*[d for d in range(A.ndim) if d not in (rows, cols)], rows, cols)
        values = SingularValues.apply(moved)
        out = _sum(values, -1) if ord == "nuc" else (amax if ord == 2 else amin)(values, -1)
        if keepdim:
            for d in sorted((rows, cols)):
                out = out.unsqueeze(d)
        return out
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.norm: a vector norm over one dim (or all), a matrix norm over two."""
    if dim is not None and not isinstance(dim, (tuple, list)):
        dim = (dim,)
    if dim is None and ord is not None:
        if not isinstance(A, Tensor) or A.ndim not in (1, 2):
            ndim = A.ndim if isinstance(A, Tensor) else 0
            raise RuntimeError(
                f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {ndim}D."
            )
        dim = tuple(range(A.ndim))
    if dim is not None and len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.norm: Order {ord} is a matrix norm; give two dims (dim=(-2, -1))")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


@method("norm", keepdims=True)
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm: p 'fro' (the 2-norm of the elements), 'nuc', or a number (a vector norm over `dim`)."""
    if isinstance(dim, int):
        dim = (dim,)
    if p == "nuc":
        return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if p == "fro":
        if dim is not None and len(dim) > 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
        p = 2
    if isinstance(p, str):
        raise RuntimeError(f"norm: p must be 'fro', 'nuc' or a number, got {p!r}")
    return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype)


@method("dist")
def dist(input, other, p=2):
    """torch.dist: the p-norm of `input - other` (broadcast), over every element."""
    return vector_norm(sub(input, other), p)
