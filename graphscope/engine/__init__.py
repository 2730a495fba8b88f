"""graphscope's eager autograd engine: PyTorch's names and semantics on NumPy (cpu) and CuPy (cuda)."""

import builtins as _builtins
import warnings as _warnings

from .tensor import Tensor  # first: the ops build on Tensor  # isort: skip
from . import ops  # the ops set Tensor's methods and operators  # isort: skip
from . import accelerator, autograd, hooks, linalg, nn, optim, utils
from . import torch_backends as backends  # torch.backends
from .backend import Device as device
from .backend import get_default_device, set_default_device
from .creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from .dtypes import bool_ as bool
from .dtypes import (
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .legacy import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from .ops import *  # noqa: F403  (the op functions: add, matmul, softmax, ...)
from .printing import set_printoptions
from .random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from .serialization import load, save
from .size import Size

float = float32
double = float64
half = float16
long = int64
int = int32

# NumPy warns on log(0), 0/0, overflow...; PyTorch does not, and the debugger shows NaN/Inf itself.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"graphscope\.engine(\.|$)")


def is_tensor(obj) -> _builtins.bool:  # (`bool` here is the dtype)
    return isinstance(obj, Tensor)


class cuda:
    """torch.cuda's questions: is a GPU usable, and how many."""

    @staticmethod
    def is_available() -> _builtins.bool:
        from .backend import cuda_available

        return cuda_available()

    @staticmethod
    def device_count() -> _builtins.int:
        from .backend import cuda_device_count

        return cuda_device_count()

    @staticmethod
    def manual_seed(seed: _builtins.int) -> None:  # noqa: F811 (torch.cuda.manual_seed's parameter is `seed`; it shadows gs.seed only here)
        """Seed the CUDA generators (graphscope keeps one seed for every GPU, so this is manual_seed_all)."""
        from .random import manual_seed_device_type

        manual_seed_device_type("cuda", seed)

    manual_seed_all = manual_seed


# keepdims= and out= as torch takes them (issue 14): the public functions are wrapped; the engine's
# own calls (nn, the ops) go to the ops directly and pay nothing for them.
def _wrap_public_functions():
    from .keyword_arguments import accepts_keepdims, accepts_out

    names = globals()
    for name in (
        "sum",
        "mean",
        "var",
        "std",
        "prod",
        "max",
        "min",
        "amax",
        "amin",
        "argmax",
        "argmin",
        "all",
        "any",
        "logsumexp",
        "norm",
    ):
        names[name] = accepts_keepdims(names[name])
    for name in ("zeros", "ones", "empty", "full", "eye", "arange", "linspace", "rand", "randn", "randint", "randperm"):
        names[name] = accepts_out(names[name], creation=True)
    for name in (
        "add",
        "sub",
        "subtract",
        "mul",
        "multiply",
        "div",
        "divide",
        "true_divide",
        "pow",
        "maximum",
        "minimum",
        "where",
        "neg",
        "negative",
        "abs",
        "exp",
        "log",
        "log1p",
        "log10",
        "sqrt",
        "rsqrt",
        "sin",
        "cos",
        "tanh",
        "sigmoid",
        "sign",
        "clamp",
        "clip",
        "floor",
        "ceil",
        "round",
        "floor_divide",
        "remainder",
        "matmul",
        "mm",
        "bmm",
        "dot",
        "mv",
        "cumsum",
        "cat",
        "concat",
        "concatenate",
        "stack",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "logical_and",
        "logical_or",
        "logical_not",
        "isnan",
        "isfinite",
    ):
        names[name] = accepts_out(names[name])


_wrap_public_functions()
