"""torch.linalg.eigvalsh: the eigenvalues of symmetric matrices (batched), and their derivative rule."""

from __future__ import annotations

from .. import backend
from ..backend import namespace
from ..function import Function
from ..tensor import Tensor


class Eigvalsh(Function):
    """The ascending eigenvalues λ of symmetric A, read from the triangle `uplo` names."""

    def forward(self, a, uplo):
        values, self.vectors = namespace(a).linalg.eigh(a, UPLO=uplo)
        return values

    rule = "dA = V diag(dλ) Vᵀ (V: the eigenvectors)"

    def backward(self, grad):
        v = self.vectors
        return (v * grad[..., None, :]) @ backend.matrix_transpose(v), None


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues of the symmetric matrices A (*, n, n), ascending; only the UPLO triangle is read."""
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg.eigvalsh(): argument 'input' must be Tensor, not {type(A).__name__}")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        shape = " by ".join(str(n) for n in A.shape[-2:])
        raise RuntimeError(f"linalg.eigh: A must be batches of square matrices, but they are {shape} matrices")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if not A.dtype.is_floating_point:
        raise NotImplementedError(
            f"linalg.eigvalsh is not implemented for {A.dtype.name} tensors; convert with .float()"
        )
    return Eigvalsh.apply(A, UPLO)
