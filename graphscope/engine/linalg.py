"""gs.linalg: the torch.linalg functions the engine has (norms and products)."""

from .ops.linalg import matmul
from .ops.norms import linalg_norm as norm
from .ops.norms import matrix_norm, vector_norm

__all__ = ["norm", "vector_norm", "matrix_norm", "matmul"]
