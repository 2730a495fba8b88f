"""In-place ops (add_, sub_, x[i] = v, ...): written into the array when untracked, rebased when tracked."""

from __future__ import annotations

import threading
from functools import partial

from .. import backend, dtypes, grad_mode, hooks
from ..backend import namespace
from ..tensor import Tensor, wrap
from . import arithmetic, indexing, unary
from .operands import device_error
from .tensor_methods import method, method_only

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
    base = target._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation. "
            f"({op}: wrap parameter updates in `with graphscope.no_grad():`)"
        )
    if base is not None:
        raise RuntimeError(
            f"{op}: in-place operations on a view of a tensor that is part of the graph are not "
            "supported by graphscope yet; use the out-of-place form (e.g. y = x + 1)"
        )


def _cast_error(op, result_dtype, target: Tensor) -> RuntimeError:
    return RuntimeError(
        f"{op}: result type {result_dtype.name} can't be cast to the desired "
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
    result_dtype, target_dtype = result.dtype, target.dtype
    if result_dtype is not target_dtype:
        if not target_dtype.is_floating_point and result_dtype.is_floating_point:
            raise _cast_error(op, result_dtype, target)
        result = unary.cast(result, target_dtype)
    if result.grad_fn is not None:
        result.grad_fn.replaces = target.grad_fn
    target.array = result.array
    target.grad_fn = result.grad_fn
    target.requires_grad = result.requires_grad
    target._vc[0] += 1
    return target


class _Updating(threading.local):
    """The tensor whose in-place change is being announced on this thread (the op runs inside)."""

    tensor: Tensor | None = None


_updating = _Updating()


def _announced(inplace, target: Tensor, *args):
    """`inplace(target, *args)` announced to observers as a change of `target`, which requires grad
    outside grad mode: a hand-written update. (Callers check `hooks.observers` first: with none
    installed, that check is all an in-place op pays; then whether one handles these events.)"""
    _updating.tensor = target
    try:
        hooks.announce("leaf_updating", target)
        result = inplace(target, *args)
    finally:
        _updating.tensor = None
    hooks.announce("leaf_updated", target)
    return result


def _fitted(values, array, op: str):
    """`values` broadcast to `array`'s shape, or a clear error."""
    if values.shape == array.shape:
        return values
    try:
        return namespace(array).broadcast_to(values, array.shape)
    except ValueError:
        raise RuntimeError(
            f"{op}: output with shape {list(array.shape)} doesn't match the broadcast shape {list(values.shape)}"
        ) from None


def _write(target: Tensor, op: str, values) -> Tensor:
    """Untracked in-place: write `values` (an array or a Python number) into the target's array."""
    if hooks.observers and target.requires_grad and hooks.leaf_updates[0] and _updating.tensor is not target:
        return _announced(_write, target, op, values)
    array = target.array
    if not backend.writeable(array):
        raise RuntimeError(f"{op}: this tensor is a read-only (expanded) view; clone() it first")
    if not backend.is_array(values):
        array[...] = indexing.fill_value(values, target)
        target._vc[0] += 1
        return target
    values = _fitted(values, array, op)
    if values.dtype != array.dtype:
        values_dtype = backend.dtype_of(values)
        if values_dtype.is_floating_point and not target.dtype.is_floating_point:
            raise _cast_error(op, values_dtype, target)
        values = backend.astype(values, array.dtype)
    array[...] = values
    target._vc[0] += 1
    return target


def _arith(op: str, functional, name: str):
    update = backend.updater(name)

    def inplace(input: Tensor, other):
        if _grad_state.enabled and _tracked(input, (other,)):  # grad mode first: updates run in no_grad
            return rebase(input, op, functional, other)
        if hooks.observers and input.requires_grad and hooks.leaf_updates[0] and _updating.tensor is not input:
            return _announced(inplace, input, other)
        array = input.array
        operand = other.array if isinstance(other, Tensor) else other
        # Fast path (optimizer updates): one in-place array op; anything the library refuses
        # (casts, shapes, devices) takes the general path below for a clear error.
        kind = type(operand)
        if (kind is float or kind is int or kind is type(array)) and update(array, operand):
            input._vc[0] += 1
            return input
        with grad_mode.no_grad():
            result = functional(input, other)
        return _write(input, op, result.array)

    inplace.__name__ = op
    inplace.__doc__ = f"In place: input = {functional.__name__}(input, other)."
    return inplace


# x += y and the other in-place operators are these functions themselves: the hottest path of a
# hand-written update. add_ and sub_ take torch's alpha= around them.
_iadd = method_only("__iadd__")(_arith("add_", arithmetic.add, "add"))
_isub = method_only("__isub__")(_arith("sub_", arithmetic.sub, "subtract"))
mul_ = method("mul_", "__imul__")(_arith("mul_", arithmetic.mul, "multiply"))
div_ = method("div_", "__itruediv__")(_arith("div_", arithmetic.div, "divide"))


@method("add_")
def add_(input: Tensor, other, *, alpha=1):
    """In place: input = add(input, other, alpha=alpha)."""
    return _iadd(input, other if alpha == 1 else arithmetic.mul(other, alpha))


@method("sub_")
def sub_(input: Tensor, other, *, alpha=1):
    """In place: input = sub(input, other, alpha=alpha)."""
    return _isub(input, other if alpha == 1 else arithmetic.mul(other, alpha))


@method("clamp_")
def clamp_(input: Tensor, min=None, max=None):
    if _tracked(input, (min, max)):
        return rebase(input, "clamp_", unary.clamp, min, max)
    with grad_mode.no_grad():
        return _write(input, "clamp_", unary.clamp(input, min, max).array)


@method("relu_")
def relu_(input: Tensor):
    if _tracked(input, ()):
        return rebase(input, "relu_", unary.relu)
    return _write(input, "relu_", namespace(input.array).maximum(input.array, 0))


@method("sin_")
def sin_(input: Tensor):
    if _tracked(input, ()):
        return rebase(input, "sin_", unary.sin)
    with grad_mode.no_grad():
        return _write(input, "sin_", unary.sin(input).array)


@method("index_add_")
def index_add_(input: Tensor, dim, index, source, *, alpha=1):
    if _tracked(input, (source,)):
        return rebase(input, "index_add_", partial(indexing.index_add, alpha=alpha), dim, index, source)
    with grad_mode.no_grad():
        return _write(input, "index_add_", indexing.index_add(input, dim, index, source, alpha=alpha).array)


def _filled(input: Tensor, value):
    array = input.array
    everywhere = backend.full(array.shape, True, backend.native_dtype(dtypes.bool_, array), like=array)
    return indexing.masked_fill(input, wrap(everywhere), value)


@method("fill_")
def fill_(input: Tensor, value):
    if isinstance(value, Tensor):
        value = value.item()
    if _tracked(input, ()):
        return rebase(input, "fill_", _filled, value)
    if not input.dtype.is_floating_point and isinstance(value, float) and not value.is_integer():
        raise _cast_error("fill_", dtypes.get_default_dtype(), input)
    return _write(input, "fill_", value)


@method("zero_")
def zero_(input: Tensor):
    if hooks.observers:
        hooks.announce("tensor_zeroing", input)  # a leaf's `.grad.zero_()` is a grad reset
    return fill_(input, 0)


@method("masked_fill_")
def masked_fill_(input: Tensor, mask, value):
    if _tracked(input, ()):
        return rebase(input, "masked_fill_", indexing.masked_fill, mask, value)
    with grad_mode.no_grad():
        return _write(input, "masked_fill_", indexing.masked_fill(input, mask, value).array)


def _copied(input: Tensor, src: Tensor):
    return arithmetic.add(arithmetic.mul(input, 0), src)


@method("copy_")
def copy_(input: Tensor, src):
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): src must be a Tensor, not {type(src).__name__}")
    if _tracked(input, (src,)):
        return rebase(input, "copy_", _copied, src)
    from .unary import to_device

    return _write(input, "copy_", backend.astype(to_device(src, input.device).array, input.array.dtype))


@method("__setitem__")
def setitem(input: Tensor, index, value) -> None:
    if index is False:
        return  # as torch: a lone False writes nothing and checks nothing ((False,) goes the usual way)
    if (
        hooks.observers
        and input.requires_grad
        and not _grad_state.enabled
        and hooks.leaf_updates[0]
        and _updating.tensor is not input
    ):
        return _announced(setitem, input, index, value)
    array = input.array
    plain = indexing.plain_index(index)  # ints and forward slices (N[i, j] += 1 in a counting loop)
    index, shape = indexing.normalize_index(index, array) if plain is None else (plain, None)
    if isinstance(value, Tensor) and not backend.same_device(value.array, array):
        if value.ndim != 0:
            raise device_error("setitem", input.device, value.device)
        value = value.item()  # a 0-d tensor from another device is a number, as in PyTorch
    if _tracked(input, (value,)):
        if not isinstance(value, Tensor):
            value = wrap(backend.asarray(value, like=array, dtype=array.dtype))
        rebase(
            input, "setitem", lambda snapshot, v: _written(snapshot, unary.cast(v, input.dtype), index, shape), value
        )
        return
    if isinstance(value, Tensor):
        values = value.array
        if values.dtype != array.dtype:
            if value.dtype.is_floating_point and not input.dtype.is_floating_point:
                raise _cast_error("setitem", value.dtype, input)
            values = backend.astype(values, array.dtype)
    elif isinstance(value, (int, float, bool)):
        values = indexing.fill_value(value, input)
    else:
        values = backend.asarray(value, like=array, dtype=array.dtype)
    if shape is not None:
        array = backend.reshape(array, shape)  # a view: inserting axes of size 1 never copies
    try:
        if indexing.is_basic(index):
            array[index] = values
        else:
            indexing.put(array, index, values)
    except ValueError as error:
        raise RuntimeError(f"setitem on a tensor of shape {tuple(input.shape)}: {error}") from None
    input._vc[0] += 1


def _written(x: Tensor, value: Tensor, index, shape) -> Tensor:
    """x with value written at index, out of place; through x viewed as `shape` when not None."""
    if shape is None:
        return indexing.SetItem.apply(x, value, index)
    from .shape import reshape

    return reshape(indexing.SetItem.apply(reshape(x, shape), value, index), x.shape)


@method("uniform_")
def uniform_(input: Tensor, a=0.0, b=1.0, *, generator=None):
    from ..random import drawing

    _check_untracked(input, "uniform_")
    values = drawing(generator, input.device, "uniform_").uniform(a, b, input.shape, input.dtype)
    return _write(input, "uniform_", values)


@method("normal_")
def normal_(input: Tensor, mean=0.0, std=1.0, *, generator=None):
    from ..random import drawing

    _check_untracked(input, "normal_")
    values = drawing(generator, input.device, "normal_").normal(input.shape, input.dtype) * std + mean
    return _write(input, "normal_", values)


@method("bernoulli_")
def bernoulli_(input: Tensor, p=0.5, *, generator=None):
    """Fill with 1 where a draw falls under p (a float, or a tensor broadcast to the input), else 0."""
    from ..random import drawing
    from .sampling import checked_probabilities, uniform_like

    _check_untracked(input, "bernoulli_")
    p = checked_probabilities(p, "bernoulli_")
    if isinstance(p, Tensor):
        if not backend.same_device(p.array, input.array):
            raise device_error("bernoulli_", input.device, p.device)
        p = _fitted(p.array, input.array, "bernoulli_")
    return _write(input, "bernoulli_", uniform_like(drawing(generator, input.device, "bernoulli_"), input.array) < p)


def _check_untracked(input: Tensor, op: str) -> None:
    if _grad_state.enabled and input.requires_grad:
        _check_tracked_target(input, op)
