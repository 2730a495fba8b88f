"""graphscope's eager autograd engine: PyTorch's names and semantics on NumPy (cpu) and CuPy (cuda)."""

import warnings as _warnings

from .tensor import Tensor  # first: tensor.py loads the ops, which build on Tensor  # isort: skip
from . import autograd, hooks, nn, optim
from . import utils
from .backend import Device as device
from .backend import get_default_device, set_default_device
from .creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                       linspace, ones, ones_like, rand, rand_like, randint, randn, randn_like,
                       randperm, tensor, zeros, zeros_like)
from .dtypes import bool_ as bool
from .dtypes import dtype, float16, float32, float64, get_default_dtype, int8, int16, int32, int64
from .dtypes import set_default_dtype, uint8
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .ops import *  # noqa: F403  (the op functions: add, matmul, softmax, ...)
from .random import initial_seed, manual_seed, seed
from .random import Generator, default_generator, get_rng_state, set_rng_state

float = float32
double = float64
half = float16
long = int64
int = int32

# NumPy warns on log(0), 0/0, overflow...; PyTorch does not, and the debugger shows NaN/Inf itself.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"graphscope\.engine(\.|$)")


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


class cuda:
    """torch.cuda's questions: is a GPU usable, and how many."""

    @staticmethod
    def is_available() -> bool:
        from .backend import cuda_available

        return cuda_available()

    @staticmethod
    def device_count() -> int:
        from .backend import cuda_device_count

        return cuda_device_count()
