"""torch.Tensor(...) and the legacy typed constructors (FloatTensor, LongTensor, ...), as PyTorch."""

from __future__ import annotations

import operator

import numpy as np

from . import backend, dtypes, library_name
from .size import Size


def new_array(args, dtype, device, name: str):
    """The array and version counter of `name(*args, device=device)`, as torch.Tensor's forms:
    no arguments: an empty 1-D tensor; ints or a Size: a tensor of that shape (zero-filled);
    a sequence or NumPy array: its values; a tensor: its storage. `dtype` None: the default float."""
    from .creation import tensor, zeros
    from .tensor import Tensor

    target = dtypes.get_default_dtype() if dtype is None else dtype
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if dtype is not None and other.dtype is not dtype:
            raise TypeError(
                f"{name}(): expected a {dtype.name} tensor, got {other.dtype.name}; "
                f"convert it with .to({library_name.library()}.{dtype.name}) first"
            )
        return other.array, other._vc
    if len(args) == 1 and backend.is_array(args[0]) and not isinstance(args[0], np.ndarray):
        return args[0], [0]  # a device array (CuPy): wrapped as it is
    if not args or isinstance(args[0], Size) or _is_int(args[0]):
        sizes = args[0] if len(args) == 1 and isinstance(args[0], Size) else (args or (0,))
        for i, n in enumerate(sizes):
            if not _is_int(n):
                raise TypeError(f"{name}(): sizes must be ints, got {type(n).__name__} at position {i}")
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(sizes)}")
        return zeros(*sizes, dtype=target, device=device).array, [0]
    if len(args) > 1:
        raise TypeError(
            f"{name}(): takes sizes (ints) or one sequence of data, got {len(args)} arguments "
            f"starting with a {type(args[0]).__name__}"
        )
    data = args[0]
    if not isinstance(data, (list, tuple, np.ndarray)):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return tensor(data, dtype=target, device=device).array, [0]


def _is_int(value) -> bool:
    if isinstance(value, bool):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return not hasattr(value, "shape") or value.shape == ()


class _TensorType(type):
    """The type of FloatTensor and friends: calling one builds a tensor; isinstance checks the dtype."""

    dtype: dtypes.dtype  # each legacy type's, set by _tensor_type

    def __call__(cls, *args, device=None):
        from .tensor import wrap

        array, vc = new_array(args, cls.dtype, device, cls.__name__)
        out = wrap(array)
        out._vc = vc
        return out

    def __instancecheck__(cls, instance):
        from .tensor import Tensor

        return isinstance(instance, Tensor) and instance.dtype is cls.dtype and instance.device.type != "cuda"

    def __repr__(cls):
        return f"<class '{library_name.library()}.{cls.__name__}'>"


def _tensor_type(name: str, dtype: dtypes.dtype) -> _TensorType:
    return _TensorType(name, (), {"dtype": dtype, "__doc__": f"A legacy constructor of {dtype.name} tensors."})


FloatTensor = _tensor_type("FloatTensor", dtypes.float32)
DoubleTensor = _tensor_type("DoubleTensor", dtypes.float64)
HalfTensor = _tensor_type("HalfTensor", dtypes.float16)
LongTensor = _tensor_type("LongTensor", dtypes.int64)
IntTensor = _tensor_type("IntTensor", dtypes.int32)
ShortTensor = _tensor_type("ShortTensor", dtypes.int16)
CharTensor = _tensor_type("CharTensor", dtypes.int8)
ByteTensor = _tensor_type("ByteTensor", dtypes.uint8)
BoolTensor = _tensor_type("BoolTensor", dtypes.bool_)

TENSOR_TYPES = (
    FloatTensor,
    DoubleTensor,
    HalfTensor,
    LongTensor,
    IntTensor,
    ShortTensor,
    CharTensor,
    ByteTensor,
    BoolTensor,
)
_BY_DTYPE = {t.dtype: t for t in TENSOR_TYPES}
_BY_NAME = {t.__name__: t for t in TENSOR_TYPES}


def type_name(dtype: dtypes.dtype, device) -> str:
    """'torch.FloatTensor' (or 'graphscope.cuda.FloatTensor'): what Tensor.type() returns."""
    where = ".cuda" if device.type == "cuda" else ""
    return f"{library_name.library()}{where}.{_BY_DTYPE[dtype].__name__}"


def dtype_of_type(spec) -> dtypes.dtype:
    """The dtype meant by Tensor.type(spec): a dtype, a legacy type, or its name as a string."""
    if isinstance(spec, _TensorType):
        return spec.dtype
    if isinstance(spec, str):
        legacy = _BY_NAME.get(spec.rpartition(".")[2])
        if legacy is None:
            raise ValueError(f"invalid type: '{spec}'")
        return legacy.dtype
    return dtypes.from_any(spec)
