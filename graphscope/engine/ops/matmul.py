"""matmul (1-D, 2-D, batched with broadcast batch dims) and its derivative rule."""

from __future__ import annotations

import numpy as np

from .. import backend
from ..backend import CPU_ARRAY, namespace
from ..function import Function
from ..tensor import Tensor
from .operands import check_devices
from .tensor_methods import method, method_only


class Matmul(Function):
    op = "matmul"

    def forward(self, a, b):
        self.a, self.b = a, b
        return backend.matmul(a, b)

    rule = "dA = dOut @ Bᵀ    dB = Aᵀ @ dOut    (dA[i,j] = Σₖ dOut[i,k]·B[j,k])"

    @classmethod
    def contraction(cls, position, index, arrays, grad):
        a, b = arrays
        if a.ndim != 2 or b.ndim != 2:
            return None
        i, j = index
        if position == 0:
            return f"dA[{i},{j}] = Σₖ dOut[{i},k]·B[{j},k]", [(grad[i, k], b[j, k]) for k in range(grad.shape[1])]
        return f"dB[{i},{j}] = Σₖ A[k,{i}]·dOut[k,{j}]", [(a[k, i], grad[k, j]) for k in range(a.shape[0])]

    def backward(self, grad):
        a, b = self.a, self.b
        need_a, need_b = self.needs_input_grad
        if a.ndim == 2 and b.ndim == 2:
            return (backend.matmul(grad, b.T) if need_a else None), (backend.matmul(a.T, grad) if need_b else None)
        if a.ndim == 1 and b.ndim == 1:
            return (grad * b if need_a else None), (grad * a if need_b else None)
        xp = namespace(grad)
        # Lift 1-D operands to matrices, as matmul itself does, then sum batch dims back down.
        a2 = xp.expand_dims(a, axis=0) if a.ndim == 1 else a
        b2 = xp.expand_dims(b, axis=-1) if b.ndim == 1 else b
        g = grad
        if a.ndim == 1:
            g = xp.expand_dims(g, axis=-2)
        if b.ndim == 1:
            g = xp.expand_dims(g, axis=-1)
        grad_a = grad_b = None
        if need_a:
            grad_a = g @ backend.matrix_transpose(b2)
            if a.ndim == 1:
                grad_a = backend.sum(backend.reshape(grad_a, (-1, a.shape[0])), axis=0)
        if need_b:
            grad_b = backend.matrix_transpose(a2) @ g
            if b.ndim == 1:
                grad_b = backend.sum(backend.reshape(grad_b, (-1, b.shape[0])), axis=0)
        return grad_a, grad_b


def same_dtype(op, a, b):
    """PyTorch's refusal to multiply tensors of two dtypes: matrix products do not promote."""
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"{op}: expected both tensors to have the same dtype, but found "
            f"{a.dtype.name} and {b.dtype.name}; convert one with .to(other.dtype)"
        )


def _check_shapes(a, b) -> None:
    """The RuntimeError (as torch) for shapes that matmul cannot multiply; nothing when they fit."""
    sa, sb = tuple(a.shape), tuple(b.shape)
    if len(sa) == 0 or len(sb) == 0:
        raise RuntimeError(f"matmul: both arguments need at least 1 dimension, got shapes {sa} and {sb}")
    inner_a = sa[-1]
    inner_b = sb[0] if len(sb) == 1 else sb[-2]
    if inner_a != inner_b:
        raise RuntimeError(f"matmul: {sa} @ {sb}: inner dimensions {inner_a} and {inner_b} differ")
    try:
        np.broadcast_shapes(sa[:-2], sb[:-2])
    except ValueError:
        raise RuntimeError(
            f"matmul: {sa} @ {sb}: batch dimensions {sa[:-2]} and {sb[:-2]} cannot be broadcast together"
        ) from None


@method("matmul", "__matmul__")
def matmul(input, other):
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError(
            f"matmul: both arguments must be Tensors, got {type(input).__name__} and {type(other).__name__}"
        )
    a, b = input.array, other.array
    if type(a) is not CPU_ARRAY or type(b) is not CPU_ARRAY:
        check_devices("matmul", input, other)
    if a.dtype is not b.dtype or a.ndim == 0 or b.ndim == 0:
        _check_shapes(input, other)  # first, as PyTorch: a shape error comes before a dtype error
        same_dtype("matmul", input, other)
    try:
        return Matmul.apply(input, other)
    except ValueError:
        _check_shapes(input, other)
        raise


@method_only("__rmatmul__")
def rmatmul(input, other):
    """array @ tensor."""
    return matmul(other, input)
