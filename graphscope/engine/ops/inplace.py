"""In-place ops (add_, sub_, x[i] = v, ...): written into the array when untracked, rebased when tracked."""

from __future__ import annotations

import numpy as np

from .. import dtypes, grad_mode
from ..backend import namespace
from ..tensor import Tensor, wrap
from . import arithmetic, indexing, unary

_grad_state = grad_mode.state


def _tracked(target: Tensor, others) -> bool:
    """Whether this in-place op must appear in the graph (grad mode on and a grad is involved)."""
    if not _grad_state.enabled:
        return False
    return target.requires_grad or any(isinstance(o, Tensor) and o.requires_grad for o in others)


def _check_tracked_target(target: Tensor, op: str) -> None:
    if target.requires_grad and target.grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation. "
            f"({op}: wrap parameter updates in `with graphscope.no_grad():`)"
        )
    if target._base is not None:
        raise RuntimeError(
            f"{op}: in-place operations on a view of a tensor that is part of the graph are not "
            "supported by graphscope yet; use the out-of-place form (e.g. y = x + 1)"
        )


def _cast_error(op, result_dtype, target: Tensor) -> RuntimeError:
    return RuntimeError(
        f"{op}: result type {dtypes.from_numpy(result_dtype).name} can't be cast to the desired "
        f"output type {target.dtype.name}; convert the tensor first (e.g. x = x.float())"
    )


def rebase(target: Tensor, op: str, functional, *args) -> Tensor:
    """Tracked in-place: compute out of place from a snapshot of `target`, then make it the result.

    Nodes that saved `target` see its version change and refuse to run backward on stale values.
    """
    _check_tracked_target(target, op)
    snapshot = wrap(target.array, target.requires_grad, target.grad_fn)
    result = functional(snapshot, *args)
    if result.shape != target.shape:
        raise RuntimeError(
            f"{op}: output with shape {list(target.shape)} doesn't match the broadcast shape {list(result.shape)}"
        )
    if result.array.dtype != target.array.dtype:
        if target.array.dtype.kind != "f" and result.array.dtype.kind == "f":
            raise _cast_error(op, result.array.dtype, target)
        result = unary.cast(result, target.array.dtype)
    target.array = result.array
    target.grad_fn = result.grad_fn
    target.requires_grad = result.requires_grad
    target._vc[0] += 1
    return target


def _write(target: Tensor, op: str, values) -> Tensor:
    """Untracked in-place: write `values` into the target's array and bump its version."""
    array = target.array
    if values.shape != array.shape:
        try:
            values = namespace(array).broadcast_to(values, array.shape)
        except ValueError:
            raise RuntimeError(
                f"{op}: output with shape {list(array.shape)} doesn't match the broadcast shape "
                f"{list(values.shape)}"
            ) from None
    if values.dtype != array.dtype and array.dtype.kind != "f" and values.dtype.kind == "f":
        raise _cast_error(op, values.dtype, target)
    if not getattr(array.flags, "writeable", True):
        raise RuntimeError(f"{op}: this tensor is a read-only (expanded) view; clone() it first")
    array[...] = values
    target._vc[0] += 1
    return target


def _arith(op: str, functional, ufunc_name: str):
    numpy_ufunc = getattr(np, ufunc_name)

    def inplace(input: Tensor, other):
        if _tracked(input, (other,)):
            return rebase(input, op, functional, other)
        array = input.array
        operand = other.array if isinstance(other, Tensor) else other
        if type(operand) is float or type(operand) is int or type(operand) is type(array):
            # Fast path (optimizer updates): one ufunc writing into the array; anything it
            # refuses (casts, shapes, devices) takes the general path below for a clear error.
            try:
                ufunc = numpy_ufunc if type(array) is np.ndarray else getattr(namespace(array), ufunc_name)
                ufunc(array, operand, out=array)
            except (TypeError, ValueError):
                pass
            else:
                input._vc[0] += 1
                return input
        with grad_mode.no_grad():
            result = functional(input, other)
        return _write(input, op, result.array)

    inplace.__name__ = op
    inplace.__doc__ = f"In place: input = {functional.__name__}(input, other)."
    return inplace


add_ = _arith("add_", arithmetic.add, "add")
sub_ = _arith("sub_", arithmetic.sub, "subtract")
mul_ = _arith("mul_", arithmetic.mul, "multiply")
div_ = _arith("div_", arithmetic.div, "divide")


def clamp_(input: Tensor, min=None, max=None):
    if _tracked(input, (min, max)):
        return rebase(input, "clamp_", unary.clamp, min, max)
    with grad_mode.no_grad():
        return _write(input, "clamp_", unary.clamp(input, min, max).array)


def relu_(input: Tensor):
    if _tracked(input, ()):
        return rebase(input, "relu_", unary.relu)
    return _write(input, "relu_", namespace(input.array).maximum(input.array, 0))


def _filled(input: Tensor, value):
    return indexing.masked_fill(input, wrap(namespace(input.array).ones(input.shape, dtype=bool)), value)


def fill_(input: Tensor, value):
    if isinstance(value, Tensor):
        value = value.item()
    if _tracked(input, ()):
        return rebase(input, "fill_", _filled, value)
    if input.array.dtype.kind != "f" and isinstance(value, float) and not value.is_integer():
        raise _cast_error("fill_", dtypes.default_float_numpy(), input)
    return _write(input, "fill_", namespace(input.array).asarray(value, dtype=input.array.dtype))


def zero_(input: Tensor):
    return fill_(input, 0)


def masked_fill_(input: Tensor, mask, value):
    if _tracked(input, ()):
        return rebase(input, "masked_fill_", indexing.masked_fill, mask, value)
    with grad_mode.no_grad():
        return _write(input, "masked_fill_", indexing.masked_fill(input, mask, value).array)


def _copied(input: Tensor, src: Tensor):
    return arithmetic.add(arithmetic.mul(input, 0), src)


def copy_(input: Tensor, src):
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): src must be a Tensor, not {type(src).__name__}")
    if _tracked(input, (src,)):
        return rebase(input, "copy_", _copied, src)
    from .unary import to_device
    return _write(input, "copy_", to_device(src, input.device).array.astype(input.array.dtype))


def setitem(input: Tensor, index, value) -> None:
    xp = namespace(input.array)
    np_index = indexing.normalize_index(index, xp)
    if _tracked(input, (value,)):
        if not isinstance(value, Tensor):
            value = wrap(xp.asarray(value, dtype=input.array.dtype))
        rebase(input, "setitem", lambda snapshot, v: indexing.SetItem.apply(snapshot, unary.cast(v, input.array.dtype), np_index), value)
        return
    values = value.array if isinstance(value, Tensor) else value
    if isinstance(value, Tensor) and value.array.dtype.kind == "f" and input.array.dtype.kind != "f":
        raise _cast_error("setitem", value.array.dtype, input)
    try:
        input.array[np_index] = values
    except ValueError as error:
        raise ValueError(f"setitem on a tensor of shape {tuple(input.shape)}: {error}") from None
    input._vc[0] += 1


def uniform_(input: Tensor, a=0.0, b=1.0):
    from ..random import generator_for

    _check_untracked(input, "uniform_")
    return _write(input, "uniform_", generator_for(input.device).uniform(a, b, input.shape, input.array.dtype))


def normal_(input: Tensor, mean=0.0, std=1.0):
    from ..random import generator_for

    _check_untracked(input, "normal_")
    values = generator_for(input.device).normal(input.shape, input.array.dtype) * std + mean
    return _write(input, "normal_", values.astype(input.array.dtype))


def _check_untracked(input: Tensor, op: str) -> None:
    if _grad_state.enabled and input.requires_grad:
        _check_tracked_target(input, op)
