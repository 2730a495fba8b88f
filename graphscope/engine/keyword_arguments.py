"""Keyword arguments many torch functions share: `keepdims=` (NumPy's spelling of keepdim) and `out=`."""

from __future__ import annotations

import functools
import warnings

from . import backend, dtypes, grad_mode


def accepts_keepdims(fn):
    """`fn` also taking `keepdims=` for its `keepdim=`, as torch does everywhere it has keepdim."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if "keepdims" in kwargs:
            if "keepdim" in kwargs:
                raise TypeError(f"{fn.__name__}() got both 'keepdim' and its alias 'keepdims'; give one")
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)

    return wrapper


def accepts_out(fn, creation=False):
    """`fn` also taking `out=`: the result is written into that tensor, which is returned.

    An op refuses `out=` while recording a graph for an input that requires grad (as torch); a
    creation function takes its dtype and device from `out` unless given; a result of another
    shape resizes `out` (with torch's warning when `out` had elements)."""
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        from .tensor import Tensor

        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be a Tensor, not {type(out).__name__}")
        if creation:
            dtype = kwargs.get("dtype")
            if dtype is not None and dtypes.from_any(dtype) is not out.dtype:
                raise RuntimeError(
                    f"dtype {dtypes.from_any(dtype).name} does not match dtype of out parameter ({out.dtype.name})"
                )
            kwargs["dtype"] = out.dtype
            kwargs.setdefault("device", out.device)
        elif grad_mode.state.enabled and (
            out.requires_grad or any(isinstance(a, Tensor) and a.requires_grad for a in (*args, *kwargs.values()))
        ):
            raise RuntimeError(
                f"{name}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )
        result = fn(*args, **kwargs)
        _store(name, result, out)
        return out

    return wrapper


def _store(name, result, out):
    """Write `result` into `out`: cast within or up a kind (never float into int), resize if needed."""
    source, target = result.dtype, out.dtype
    if source._kind > target._kind:
        raise RuntimeError(f"result type {source.name} can't be cast to the desired output type {target.name}")
    if not backend.same_device(result.array, out.array):
        raise RuntimeError(f"{name}(): Expected out tensor to be on {result.device}, but it is on {out.device}")
    array = backend.astype(result.array, out.array.dtype, copy=False)
    if tuple(out.shape) == tuple(result.shape):
        out.array[...] = array
    else:
        if out.numel():
            warnings.warn(
                f"An output with one or more elements was resized since it had shape {list(out.shape)}, "
                f"which does not match the required output shape {list(result.shape)}.",
                UserWarning,
                stacklevel=3,
            )
        out.array = backend.copy(array) if array is result.array else array
    out._bump_version()
