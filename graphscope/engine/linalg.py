"""gs.linalg: the torch.linalg functions the engine has (norms, products, solve, eigvalsh)."""

from .keyword_arguments import accepts_keepdims
from .ops import norms
from .ops.eigen import eigvalsh
from .ops.matmul import matmul
from .ops.solve import LinAlgError, solve

norm = accepts_keepdims(norms.linalg_norm)
vector_norm = accepts_keepdims(norms.vector_norm)
matrix_norm = accepts_keepdims(norms.matrix_norm)

__all__ = ["norm", "vector_norm", "matrix_norm", "matmul", "solve", "LinAlgError", "eigvalsh"]
