"""torch.linalg.solve: X with A X = B for square A (batched, broadcast), and its derivative rule."""

from __future__ import annotations

from .. import backend
from ..backend import namespace
from ..function import Function
from ..tensor import Tensor
from .operands import check_devices


class LinAlgError(RuntimeError):
    """A linear-algebra routine failed on its input (a singular matrix), as torch.linalg.LinAlgError."""


class Solve(Function):
    """X = A⁻¹B for B a batch of matrices (a vector B is made a one-column matrix before and after)."""

    def forward(self, a, b, vector):
        xp = namespace(a)
        b2 = b[..., None] if vector else b
        try:
            x = xp.linalg.solve(a, b2)
        except xp.linalg.LinAlgError:
            raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.") from None
        self.a, self.x, self.vector = a, x, vector
        return x[..., 0] if vector else x

    rule = "dB = A⁻ᵀ dX    dA = −dB Xᵀ"

    def backward(self, grad):
        need_a, need_b = self.needs_input_grad[:2]
        xp = namespace(grad)
        g = grad[..., None] if self.vector else grad
        grad_b = xp.linalg.solve(backend.matrix_transpose(self.a), g)
        grad_a = -(grad_b @ backend.matrix_transpose(self.x)) if need_a else None
        if self.vector:
            grad_b = grad_b[..., 0]
        return grad_a, (grad_b if need_b else None), None


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """X with A X = B: A of shape (*, n, n); B of shape (*, n, k), or (*, n) or (n,) for a batch of vectors."""
    for name, t in (("A", A), ("B", B)):
        if not isinstance(t, Tensor):
            raise TypeError(f"linalg.solve(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if not left:
        raise NotImplementedError("linalg.solve(left=False) is not supported by graphscope yet; solve Aᵀ Xᵀ = Bᵀ")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        shape = " by ".join(str(n) for n in A.shape[-2:])
        raise RuntimeError(f"linalg.solve: A must be batches of square matrices, but they are {shape} matrices")
    if A.dtype is not B.dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{A.dtype.name} and B of type {B.dtype.name} instead; convert one with .to(dtype)"
        )
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.solve: Expected a floating point tensor as input. Got {A.dtype.name}")
    check_devices("linalg.solve", A, B)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    rows = B.shape[-1] if vector else B.shape[-2]
    if rows != A.shape[-1]:
        columns = 1 if vector else B.shape[-1]
        raise RuntimeError(
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B "
            f"({A.shape[-2]}x{A.shape[-1]} and {rows}x{columns})"
        )
    return Solve.apply(A, B, vector)
