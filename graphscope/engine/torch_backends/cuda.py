"""torch.backends.cuda: the TF32 and reduced-precision flags, kept and ignored (CuPy's defaults hold)."""

import sys

from .. import backend
from . import NoOpFlags


def is_built() -> bool:
    """Whether GPU support is installed (CuPy importable), as torch's 'built with CUDA'."""
    return backend.cuda_available()


matmul = NoOpFlags(__name__ + ".matmul", "torch.backends.cuda.matmul: flags kept and ignored.")
matmul.__dict__.update(
    allow_tf32=False, allow_fp16_reduced_precision_reduction=True, allow_bf16_reduced_precision_reduction=True
)
sys.modules[__name__].__class__ = NoOpFlags
