"""Indexing (basic and advanced), gather and masked_fill; backward scatters, summing repeated indices."""

from __future__ import annotations

import numpy as np

from .. import backend, dtypes
from ..backend import namespace
from ..dims import normalize_dim
from ..function import Function
from ..tensor import Tensor
from .operands import device_error
from .shape import reshape, view_of
from .tensor_methods import method

_BASIC = (int, slice, type(None), type(Ellipsis))


def _index_array(part, like):
    """Index arrays on `like`'s device for one tensor / list / host array part of an index."""
    if isinstance(part, Tensor):
        array = part.array
    elif backend.is_array(part) and not isinstance(part, np.ndarray):
        array = part
    else:
        array = backend.from_data(part, backend.device_of(like))  # a list, range or NumPy array
        if isinstance(part, (list, range)) and not len(part):  # no positions: an empty index, as torch's
            array = backend.astype(array, backend.native_dtype(dtypes.int64, array))
    if not backend.same_device(array, like):
        array = backend.to_device(array, backend.device_of(like))  # as torch: CPU indices are fine
    dtype = backend.dtype_of(array)
    if dtype.is_floating_point:
        raise IndexError(f"tensors used as indices must be long, int or bool tensors, got {dtype.name}")
    return array


def normalize_index(index, like):
    """(index, shape): the index as one tuple for `like` (a device array) viewed as `shape` (None:
    its own). Tensors and lists become index arrays on its device, bool masks their nonzero
    positions, and a trailing `...` covers unnamed dims. A Python bool or 0-d mask is torch's new
    axis of size 1, kept by True and emptied by False: `shape` has that axis, and a mask of one
    element indexes it.
    """
    parts = index if isinstance(index, tuple) else (index,)
    out, new_axes = [], []
    for part in parts:
        if isinstance(part, bool):
            new_axes.append(len(out))
            out.append(backend.asarray([part], like=like))
        elif isinstance(part, _BASIC):
            if type(part) is slice and part.step is not None and part.step < 0:
                raise ValueError("step must be greater than zero")
            out.append(part)
        elif isinstance(part, np.integer):
            out.append(int(part))
        elif isinstance(part, (Tensor, list, range, np.ndarray)) or backend.is_array(part):
            if (
                isinstance(part, Tensor)
                and part.ndim == 0
                and not part.is_floating_point()
                and (part.dtype is not dtypes.bool_)
            ):
                out.append(int(part.item()))  # a 0-d integer tensor indexes like an int
                continue
            array = _index_array(part, like)
            if not array.ndim and _is_mask(array):
                new_axes.append(len(out))
                array = backend.reshape(array, (1,))
            out.append(array)
        else:
            raise IndexError(
                f"only integers, slices, None, ..., integer/bool tensors, lists and ranges are valid indices "
                f"(got {type(part).__name__})"
            )
    shape = _with_new_axes(out, new_axes, like.shape) if new_axes else None
    _check_masks(out, like.shape if shape is None else shape)
    out = [q for part in out for q in (namespace(part).nonzero(part) if _is_mask(part) else (part,))]
    for part in out:
        if part is Ellipsis:
            break
    else:
        out.append(Ellipsis)  # the standard wants every dimension indexed, or a `...`
    return tuple(out), shape


def _with_new_axes(parts, new_axes, shape) -> tuple:
    """`shape` with an axis of size 1 at each place that the parts at positions `new_axes` index."""
    widths = [0 if part is None or part is Ellipsis else part.ndim if _is_mask(part) else 1 for part in parts]
    rest = len(shape) + len(new_axes) - sum(widths)  # what an ellipsis covers
    shape, axis = list(shape), 0
    for i, part in enumerate(parts):
        if i in new_axes:
            shape.insert(axis, 1)
        axis += rest if part is Ellipsis else widths[i]
    return tuple(shape)


def _is_mask(part) -> bool:
    return backend.is_array(part) and backend.dtype_of(part) is dtypes.bool_


def _check_masks(parts, shape) -> None:
    """Each bool mask must have the shape of the dimensions it covers (as torch and NumPy require)."""

    def width(part):
        return 0 if part is None or part is Ellipsis else part.ndim if _is_mask(part) else 1

    view, dim = list(shape), 0  # the shape as the parts so far left it: None adds a 1, an int drops
    for i, part in enumerate(parts):
        if part is Ellipsis:
            dim = max(dim, len(view) - sum(width(p) for p in parts[i + 1 :]))
        elif part is None:
            view.insert(dim, 1)
            dim += 1
        elif type(part) is int:
            del view[dim : dim + 1]
        elif _is_mask(part):
            mask = tuple(part.shape)
            for j, n in enumerate(mask):
                if dim + j < len(view) and view[dim + j] != n:
                    raise IndexError(
                        f"The shape of the mask {list(mask)} at index {j} does not match the shape of the "
                        f"indexed tensor {view} at index {dim + j}"
                    )
            dim += len(mask)
        else:
            dim += 1


def is_basic(index) -> bool:
    for part in index:  # noqa: SIM110 (a plain loop: every x[...] asks, and all() over a generator is slower)
        if not isinstance(part, _BASIC):
            return False
    return True


class GetItem(Function):
    op = "index"
    reads_inputs = ()

    def forward(self, x, index):
        self.shape, self.dtype, self.index = x.shape, x.dtype, index
        self.basic = basic = is_basic(index)
        return x[index] if basic else take(x, index)

    rule = (
        "d x[i]/dx = 1 at the indexed places, 0 elsewhere (grad scattered back into x's shape; repeated indices add up)"
    )

    def backward(self, grad):
        out = backend.zeros(self.shape, self.dtype, like=grad)
        if self.basic:
            index = self.index
            if None in index:  # the standard writes through no new axes: drop them from both
                index, grad = _without_new_axes(index, grad, len(self.shape))
            out[index] = grad
        else:
            put(out, self.index, grad, backend.scatter_add)
        return out, None


def _without_new_axes(index, grad, ndim):
    """A basic index without its `None`s, and `grad` without the size-1 axes they made."""
    consumed = sum(1 for part in index if part is not None and part is not Ellipsis)
    axis, new_axes = 0, []
    for part in index:
        if part is None:
            new_axes.append(axis)
            axis += 1
        elif part is Ellipsis:
            axis += ndim - consumed
        elif isinstance(part, slice):
            axis += 1
    shape = tuple(n for a, n in enumerate(grad.shape) if a not in new_axes)
    return tuple(part for part in index if part is not None), backend.reshape(grad, shape)


class Narrow(GetItem):
    op = "narrow"
    rule = "d x.narrow(dim, start, n)/dx = 1 inside the slice, 0 elsewhere (grad placed back into x's shape)"


class SetItem(Function):
    op = "setitem"
    reads_inputs = ()

    def forward(self, x, value, index):
        self.index = index
        self.basic = is_basic(index)
        out = backend.copy(x)
        _put(out, index, value, self.basic)
        return out

    rule = "x[i] = v:  dx = grad with 0 at the overwritten places    dv = grad[i] (summed where v was broadcast)"

    def backward(self, grad):
        need_x, need_value = self.needs_input_grad[:2]
        grad_x = grad_value = None
        if need_x:
            grad_x = backend.copy(grad)
            _put(grad_x, self.index, 0, self.basic)
        if need_value:
            grad_value = grad[self.index] if self.basic else take(grad, self.index)
        return grad_x, grad_value, None


def _put(array, index, value, basic) -> None:
    if basic:
        array[index] = value
    else:
        put(array, index, value)


def _int_split(index):
    """(ints, rest) for an index of both Python ints and index arrays, as torch applies it: the ints
    select first and the arrays index what is left (NumPy broadcasts the ints with the arrays and,
    when they stand apart, moves the result's axes to the front: x[0, :, [0, 1]] is (3, 2) in torch,
    (2, 3) in NumPy); None for any other index."""
    if all(type(part) is not int for part in index) or is_basic(index):
        return None
    ints = tuple(part if type(part) is int or part is Ellipsis else slice(None) for part in index if part is not None)
    return ints, tuple(part for part in index if type(part) is not int)


def take(array, index):
    """array[index] for an index with arrays in it, in torch's order of axes (see _int_split)."""
    split = _int_split(index)
    if split is None:
        return backend.take(array, index)
    ints, rest = split
    return backend.take(array[ints], rest)


def put(array, index, values, write=backend.put) -> None:
    """write(array, index, values) (a put, or a scatter_add) for an index with arrays in it, in torch's
    order of axes (see _int_split)."""
    split = _int_split(index)
    if split is None:
        write(array, index, values)
        return
    ints, rest = split
    part = array[ints]
    write(part, rest, values)
    array[ints] = part  # NumPy's and CuPy's part is a view, written already; a device without views copies


class Gather(Function):
    op = "gather"
    reads_inputs = ()

    def forward(self, x, axis, index):
        xp = namespace(x)
        self.shape, self.dtype, self.axis, self.index = x.shape, x.dtype, axis, index
        window = tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(index.shape))
        return xp.take_along_axis(x[window], index, axis=axis)

    rule = "d gather(x, dim, idx)/dx = 1 at the gathered places (grad scattered back along dim; repeats add up)"

    def backward(self, grad):
        out = backend.zeros(self.shape, self.dtype, like=grad)
        positions = tuple(
            self.index
            if d == self.axis
            else backend.reshape(backend.arange(n, like=grad), tuple(-1 if k == d else 1 for k in range(grad.ndim)))
            for d, n in enumerate(self.index.shape)
        )
        backend.scatter_add(out, positions, grad)
        return out, None, None


class IndexAdd(Function):
    op = "index_add"
    reads_inputs = ()

    def forward(self, x, axis, index, source, alpha):
        self.axis, self.index, self.alpha = axis, index, alpha
        out = backend.copy(x)
        backend.scatter_add(out, (slice(None),) * axis + (index,), source if alpha == 1 else source * alpha)
        return out

    rule = "d index_add(x, dim, idx, s)/dx = 1    d/ds = alpha, at the slices idx picks along dim"

    def backward(self, grad):
        need_x, need_source = self.needs_input_grad[0], self.needs_input_grad[3]
        picked = namespace(grad).take(grad, self.index, axis=self.axis) if need_source else None
        if picked is not None and self.alpha != 1:
            picked = picked * self.alpha
        return (grad if need_x else None), None, None, picked, None


class MaskedFill(Function):
    op = "masked_fill"
    reads_inputs = ()

    def forward(self, x, mask, value):
        self.mask = mask
        return namespace(x).where(mask, value, x)

    rule = "d masked_fill(x, m, v)/dx = 0 where m else 1"
    elementwise = True
    local = ("(not {mask})", "", "")

    def backward(self, grad):
        return namespace(grad).where(self.mask, 0, grad), None, None


def plain_index(index) -> tuple | None:
    """`index` as normalize_index would make it when it is only ints and forward slices (x[i], x[a:b],
    x[:, -1]: most indexing in a training loop), without its checks; None for anything else."""
    kind = type(index)
    if kind is int or (kind is slice and index.step is None):
        return (index, Ellipsis)
    if kind is tuple:
        for part in index:
            kind = type(part)
            if not (kind is int or (kind is slice and part.step is None)):
                return None
        return (*index, Ellipsis)
    return None


@method("__getitem__")
def getitem(input: Tensor, index):
    plain = plain_index(index)
    if plain is None:
        index, shape = normalize_index(index, input.array)
    else:
        index, shape = plain, None
    try:
        out = GetItem.apply(input if shape is None else reshape(input, shape), index)
    except IndexError as error:
        raise IndexError(f"{error} (indexing a tensor of shape {tuple(input.shape)})") from None
    return view_of(out, input) if plain is not None or is_basic(index) else out


def narrow(input: Tensor, dim, start, length):
    axis = normalize_dim(dim, input.ndim)
    index = (slice(None),) * axis + (slice(start, start + length), Ellipsis)
    return view_of(Narrow.apply(input, index), input)


@method("gather")
def gather(input: Tensor, dim, index: Tensor):
    axis = normalize_dim(dim, input.ndim)
    if not isinstance(index, Tensor) or index.is_floating_point() or index.dtype is dtypes.bool_:
        raise TypeError("gather(): index must be an integer (long) tensor")
    if not backend.same_device(index.array, input.array):
        raise device_error("gather", input.device, index.device)
    if index.ndim != input.ndim:
        raise RuntimeError(f"gather: index has {index.ndim} dims but input has {input.ndim}; they must match")
    for d, (n, m) in enumerate(zip(index.shape, input.shape)):
        if d != axis and n > m:
            raise RuntimeError(
                f"gather: index shape {tuple(index.shape)} exceeds input shape {tuple(input.shape)} in dim {d}"
            )
    xp = namespace(index.array)
    if index.numel() and (int(xp.min(index.array)) < 0 or int(xp.max(index.array)) >= input.shape[axis]):
        raise RuntimeError(f"gather: index out of range: values must be in [0, {input.shape[axis]}) for dim {axis}")
    return Gather.apply(input, axis, index.array)


@method("index_add")
def index_add(input: Tensor, dim, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """`input` with `source`'s slices along `dim` added at the positions `index` names (repeats add up)."""
    axis = normalize_dim(dim, input.ndim)
    if not isinstance(index, Tensor) or index.dtype not in (dtypes.int64, dtypes.int32):
        kind = index.dtype.name if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {kind}")
    if index.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim}")
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"index_add_(): self ({input.dtype.name}) and source ({source.dtype.name}) must have the same scalar type"
        )
    expected = tuple(index.numel() if d == axis else n for d, n in enumerate(input.shape))
    if tuple(source.shape) != expected and not (input.ndim == 0 and source.numel() == 1):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. "
            f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}"
        )
    positions = backend.reshape(index.array, (-1,))
    size = input.shape[axis] if input.ndim else 1
    outside = positions[(positions < 0) | (positions >= size)]  # (no negative index here, unlike x[i])
    if outside.size:
        raise RuntimeError(f"index {int(outside[0])} is out of bounds for dimension {axis} with size {size}")
    return IndexAdd.apply(input, axis, positions, source, alpha)


def mask_array(mask, like: Tensor):
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_fill: mask must be a bool tensor (e.g. x > 0), not {type(mask).__name__}")
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(f"masked_fill: mask must be a bool tensor (e.g. x > 0), got {mask.dtype.name}")
    if not backend.same_device(mask.array, like.array):
        raise device_error("masked_fill", like.device, mask.device)
    return mask.array


def fill_value(value, like: Tensor):
    """A Python number of `like`'s kind (float, int or bool), as PyTorch converts fill values."""
    if isinstance(value, Tensor):
        value = value.item()
    dtype = like.dtype
    if dtype.is_floating_point:
        return float(value)
    return bool(value) if dtype is dtypes.bool_ else dtypes.checked(dtype, int(value))


@method("masked_fill")
def masked_fill(input: Tensor, mask, value):
    value = fill_value(value, input)
    try:
        return MaskedFill.apply(input, mask_array(mask, input), value)
    except ValueError:
        raise RuntimeError(
            f"masked_fill: mask of shape {tuple(mask.shape)} cannot be broadcast to {tuple(input.shape)}"
        ) from None
