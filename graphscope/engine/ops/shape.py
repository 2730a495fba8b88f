"""Shape ops (reshape, permute, expand, repeat, cat, stack, ...): they move values, grads move back."""

from __future__ import annotations

import functools

from .. import backend, dtypes
from ..backend import CPU_ARRAY, namespace
from ..dims import normalize_dim
from ..function import Function
from ..tensor import Tensor
from .operands import check_devices
from .tensor_methods import attribute, method, method_only
from .unary import cast


class Reshape(Function):
    op = "view"
    reads_inputs = ()

    def forward(self, x, shape):
        self.shape = x.shape
        return backend.reshape(x, shape)

    rule = "d reshape(x)/dx = 1 (the grad is reshaped back to x's shape)"

    def backward(self, grad):
        return backend.reshape(grad, self.shape), None


class Flatten(Reshape):
    op = "flatten"
    rule = "d flatten(x)/dx = 1 (the grad is reshaped back to x's shape)"


class Squeeze(Reshape):
    op = "squeeze"
    rule = "d squeeze(x)/dx = 1 (the grad gets the size-1 dims back)"


class Unsqueeze(Reshape):
    op = "unsqueeze"
    rule = "d unsqueeze(x)/dx = 1 (the new size-1 dim is dropped from the grad)"


class Permute(Function):
    reads_inputs = ()

    def forward(self, x, axes):
        self.axes = axes
        return backend.permute_dims(x, axes)

    rule = "d permute(x, p)/dx = 1 (the grad is permuted back by the inverse of p)"

    def backward(self, grad):
        inverse = [0] * len(self.axes)
        for i, a in enumerate(self.axes):
            inverse[a] = i
        return backend.permute_dims(grad, tuple(inverse)), None


class Transpose(Permute):
    rule = "d xᵀ/dx = 1 (the grad is transposed back)"


class Expand(Function):
    reads_inputs = ()

    def forward(self, x, shape):
        return namespace(x).broadcast_to(x, shape)

    rule = "d expand(x)/dx = 1 per copy (grad summed over the expanded dims)"

    def backward(self, grad):
        return grad, None  # the engine sums it back to the input's shape


class Repeat(Function):
    reads_inputs = ()

    def forward(self, x, repeats):
        # Tile by broadcasting: (r0, s0, r1, s1, ...) then merge each pair.
        xp = namespace(x)
        shape = (1,) * (len(repeats) - x.ndim) + x.shape
        self.shape, self.input_shape, self.repeats = shape, x.shape, repeats
        interleaved = [n for pair in zip((1,) * len(shape), shape) for n in pair]
        target = [n for pair in zip(repeats, shape) for n in pair]
        out = xp.broadcast_to(backend.reshape(x, tuple(interleaved)), tuple(target))
        return backend.reshape(out, tuple(r * s for r, s in zip(repeats, shape)))

    rule = "d repeat(x)/dx = 1 per copy (grad summed over the repeats)"

    def backward(self, grad):
        split = tuple(n for pair in zip(self.repeats, self.shape) for n in pair)
        summed = backend.sum(backend.reshape(grad, split), axis=tuple(range(0, len(split), 2)))
        return backend.reshape(summed, self.input_shape), None


class Cat(Function):
    reads_inputs = ()

    def forward(self, *arrays, axis):
        self.axis = axis
        self.sizes = [a.shape[axis] for a in arrays]
        return namespace(arrays[0]).concat(arrays, axis=axis)

    rule = "d cat(x₁, x₂, …)/dxₖ = 1 on xₖ's slice (the grad is split back along dim)"

    def backward(self, grad):
        grads, start = [], 0
        for size in self.sizes:
            index = [slice(None)] * grad.ndim
            index[self.axis] = slice(start, start + size)
            grads.append(grad[tuple(index)])
            start += size
        return tuple(grads)


class Stack(Function):
    reads_inputs = ()

    def forward(self, *arrays, axis):
        self.axis = axis
        return namespace(arrays[0]).stack(arrays, axis=axis)

    rule = "d stack(x₁, x₂, …)/dxₖ = 1 on slice k (the grad is unstacked along dim)"

    def backward(self, grad):
        before = (slice(None),) * self.axis
        return tuple(grad[before + (i, ...)] for i in range(grad.shape[self.axis]))


def view_of(out: Tensor, x: Tensor) -> Tensor:
    """`out` made a view of `x`: views share the version counter of their base, so in-place changes
    through them are seen."""
    out._vc = x._vc
    out._base = x if x._base is None else x._base
    return out


def _sizes(args):
    """Accept both f(2, 3) and f((2, 3))."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def _shape_of(shape) -> tuple:
    return tuple(int(n) for n in shape)


@method("reshape")
def reshape(input, *shape):
    return _reshaped(input, _shape_of(_sizes(shape)))


@method("view")
def view(input, *shape):
    """reshape that never copies: strides that cannot give the new shape are refused, as torch."""
    sizes = _shape_of(_sizes(shape))
    array = input.array
    if not (type(array) is CPU_ARRAY and array.flags.c_contiguous) and not backend.viewable(array, sizes):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            f"across two contiguous subspaces). A tensor of shape {tuple(input.shape)}, transposed, permuted "
            f"or sliced, cannot be viewed as {sizes} without a copy: use .reshape(...) or .contiguous().view(...)"
        )
    return _reshaped(input, sizes)


def _reshaped(input, sizes: tuple) -> Tensor:
    """`input` as `sizes` (a view of it), or torch's RuntimeError naming both shapes."""
    try:
        out = Reshape.apply(input, sizes)
    except ValueError:
        raise RuntimeError(
            f"reshape: shape {tuple(input.shape)} ({input.numel()} elements) cannot become {sizes}"
        ) from None
    return view_of(out, input)


@method_only("view_as")
def view_as(self, other):
    """x.view_as(y) is x.view(y.shape)."""
    return reshape(self, other.shape)


@method_only("reshape_as")
def reshape_as(self, other):
    """x.reshape_as(y) is x.reshape(y.shape)."""
    return reshape(self, other.shape)


@method("flatten")
def flatten(input, start_dim=0, end_dim=-1):
    if input.ndim == 0:
        return view_of(Flatten.apply(input, (1,)), input)
    start = normalize_dim(start_dim, input.ndim)
    end = normalize_dim(end_dim, input.ndim)
    if start > end:
        raise RuntimeError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim}")
    shape = input.shape[:start] + (-1,) + input.shape[end + 1 :]
    if input.numel() == 0:
        n = 1
        for s in input.shape[start : end + 1]:
            n *= s
        shape = input.shape[:start] + (n,) + input.shape[end + 1 :]
    return view_of(Flatten.apply(input, shape), input)


@method("squeeze")
def squeeze(input, dim=None):
    if dim is None:
        shape = tuple(n for n in input.shape if n != 1)
    else:
        axes = {normalize_dim(d, input.ndim) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))}
        shape = tuple(n for i, n in enumerate(input.shape) if not (i in axes and n == 1))
    return view_of(Squeeze.apply(input, shape), input)


@method("unsqueeze")
def unsqueeze(input, dim):
    axis = normalize_dim(dim, input.ndim, extra=1)
    shape = input.shape[:axis] + (1,) + input.shape[axis:]
    return view_of(Unsqueeze.apply(input, shape), input)


@method("permute")
def permute(input, *dims):
    axes = tuple(normalize_dim(d, input.ndim) for d in _sizes(dims))
    if sorted(axes) != list(range(input.ndim)):
        raise RuntimeError(f"permute: dims {tuple(_sizes(dims))} are not a permutation of {input.ndim} dims")
    return view_of(Permute.apply(input, axes), input)


@method("transpose")
def transpose(input, dim0, dim1):
    axes = list(range(input.ndim))
    a, b = normalize_dim(dim0, input.ndim), normalize_dim(dim1, input.ndim)
    axes[a], axes[b] = axes[b], axes[a]
    return view_of(Transpose.apply(input, tuple(axes)), input)


swapaxes = transpose


@attribute("T")
def reversed_dims(input):
    """x.T: x with its dims in reverse order."""
    return permute(input, tuple(range(input.ndim - 1, -1, -1)))


@attribute("mT")
def matrix_transposed(input):
    """x.mT: x with its last two dims swapped (a batch of matrices, each transposed)."""
    return transpose(input, -2, -1)


@method("t")
def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but it has {input.ndim}; use transpose()")
    return transpose(input, 0, 1) if input.ndim == 2 else input


@method("expand")
def expand(input, *sizes):
    sizes = _sizes(sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError(
            f"expand: the number of sizes ({len(sizes)}) must be at least the tensor's dims ({input.ndim})"
        )
    lead = len(sizes) - input.ndim
    shape = tuple(input.shape[i - lead] if n == -1 and i >= lead else int(n) for i, n in enumerate(sizes))
    try:
        out = Expand.apply(input, shape)
    except ValueError:
        raise RuntimeError(f"expand: shape {tuple(input.shape)} cannot be expanded to {tuple(sizes)}") from None
    return view_of(out, input)


@method_only("expand_as")
def expand_as(self, other):
    """x.expand_as(y) is x.expand(y.shape)."""
    return expand(self, other.shape)


@method("repeat")
def repeat(input, *sizes):
    repeats = _shape_of(_sizes(sizes))
    if len(repeats) < input.ndim:
        raise RuntimeError(
            f"repeat: the number of repeats ({len(repeats)}) must be at least the tensor's dims ({input.ndim})"
        )
    return Repeat.apply(input, repeats)


def _same_kind(op, tensors):
    """The tensors on one device, promoted to one dtype (as torch.cat / torch.stack)."""
    tensors = list(tensors)
    if not tensors:
        raise (ValueError if op == "cat" else RuntimeError)(f"{op}() expects a non-empty list of tensors")  # as torch
    for x in tensors:
        if not isinstance(x, Tensor):
            raise TypeError(f"{op}() expects a list of Tensors, got an element of type {type(x).__name__}")
        check_devices(op, tensors[0], x)
    target = functools.reduce(dtypes.promote_types, [backend.dtype_of(x.array) for x in tensors])
    return [cast(x, target) for x in tensors]


def cat(tensors, dim=0):
    tensors = _same_kind("cat", tensors)
    for i, x in enumerate(tensors):
        if x.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated; use stack")
    axis = normalize_dim(dim, tensors[0].ndim)
    for i, x in enumerate(tensors):
        if (
            x.ndim != tensors[0].ndim
            or x.shape[:axis] + x.shape[axis + 1 :] != tensors[0].shape[:axis] + tensors[0].shape[axis + 1 :]
        ):
            raise RuntimeError(
                f"cat: sizes of tensors must match except in dimension {axis}: tensor 0 has shape "
                f"{tuple(tensors[0].shape)} but tensor {i} has shape {tuple(x.shape)}"
            )
    return Cat.apply(*tensors, axis=axis)


concat = concatenate = cat


def stack(tensors, dim=0):
    tensors = _same_kind("stack", tensors)
    axis = normalize_dim(dim, tensors[0].ndim, extra=1)
    for i, x in enumerate(tensors):
        if x.shape != tensors[0].shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {tuple(tensors[0].shape)} at "
                f"entry 0 and {tuple(x.shape)} at entry {i}"
            )
    return Stack.apply(*tensors, axis=axis)


@method("split")
def split(input, split_size_or_sections, dim=0):
    from .indexing import narrow

    axis = normalize_dim(dim, input.ndim)
    length = input.shape[axis]
    if isinstance(split_size_or_sections, int):
        if split_size_or_sections <= 0:
            raise RuntimeError(f"split: split_size must be positive, got {split_size_or_sections}")
        sizes = [min(split_size_or_sections, length - s) for s in range(0, length, split_size_or_sections)]
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != length:
            raise RuntimeError(f"split: sections {sizes} sum to {sum(sizes)} but dimension {axis} has size {length}")
    parts, start = [], 0
    for size in sizes:
        parts.append(narrow(input, axis, start, size))
        start += size
    return tuple(parts)


@method("chunk")
def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError(f"chunk: chunks must be positive, got {chunks}")
    length = input.shape[normalize_dim(dim, input.ndim)]
    size = -(-length // chunks) if length else 1
    return split(input, size, dim)
