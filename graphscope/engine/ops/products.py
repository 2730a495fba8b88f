"""Products with PyTorch's shape checks (dot, mv, mm, bmm) and einsum, all built on matmul; the cross product."""

from __future__ import annotations

import math
import warnings

from .. import backend
from ..tensor import Tensor, wrap
from .arithmetic import mul, sub
from .indexing import getitem
from .matmul import matmul, same_dtype
from .reduction import sum as _sum
from .shape import expand, permute, reshape, stack
from .tensor_methods import method


def _tensors(op, *tensors):
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument {i} must be a Tensor, not {type(t).__name__}")


@method("dot")
def dot(input, other):
    """The inner product of two 1-D tensors of one size and dtype."""
    _tensors("dot", input, other)
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] "
            f"to have the same number of elements, but got {input.shape[0]} and {other.shape[0]} "
            "elements respectively"
        )
    same_dtype("dot", input, other)
    return matmul(input, other)


@method("mv")
def mv(input, vec):
    """Matrix (n, m) times vector (m,): a vector (n,)."""
    _tensors("mv", input, vec)
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({input.shape[0]}), mat ({input.shape[0]}x{input.shape[1]}), "
            f"vec ({vec.shape[0]})"
        )
    same_dtype("mv", input, vec)
    return matmul(input, vec)


@method("mm")
def mm(input, mat2):
    """Matrix (n, m) times matrix (m, p), without broadcasting."""
    _tensors("mm", input, mat2)
    if input.ndim != 2:
        raise RuntimeError(f"self must be a matrix, got a {input.ndim}-D tensor")
    if mat2.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got a {mat2.ndim}-D tensor")
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({input.shape[0]}x{input.shape[1]} and "
            f"{mat2.shape[0]}x{mat2.shape[1]})"
        )
    same_dtype("mm", input, mat2)
    return matmul(input, mat2)


@method("bmm")
def bmm(input, mat2):
    """Batched matrix product (b, n, m) @ (b, m, p) -> (b, n, p), without broadcasting."""
    _tensors("bmm", input, mat2)
    if input.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor, got a {input.ndim}-D tensor")
    if mat2.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor, got a {mat2.ndim}-D tensor")
    expected = [input.shape[0], input.shape[2]]
    if list(mat2.shape[:2]) != expected:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: {expected} "
            f"but got: {list(mat2.shape[:2])}."
        )
    same_dtype("bmm", input, mat2)
    return matmul(input, mat2)


# --- einsum ---------------------------------------------------------------------------------------


@method("cross")
def cross(input, other, dim=None):
    """The cross product of the 3-vectors along `dim` (broadcast); without `dim`, torch's deprecated
    default: the first dimension of size 3."""
    _tensors("cross", input, other)
    if input.ndim != other.ndim:
        raise RuntimeError(
            f"linalg.cross: inputs must have the same number of dimensions. Got {input.ndim} and {other.ndim}"
        )
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated. Please either pass the dim "
            "explicitly or simply use torch.linalg.cross.",
            UserWarning,
            stacklevel=2,
        )
        dim = next((d for d, (m, n) in enumerate(zip(input.shape, other.shape)) if m == n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    dim = dim + input.ndim if dim < 0 else dim
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[dim]} and {other.shape[dim]}"
        )
    a = [getitem(input, (slice(None),) * dim + (i,)) for i in range(3)]
    b = [getitem(other, (slice(None),) * dim + (i,)) for i in range(3)]
    parts = [sub(mul(a[j], b[k]), mul(a[k], b[j])) for j, k in ((1, 2), (2, 0), (0, 1))]
    return stack(parts, dim)


def einsum(equation, *operands):
    """Einstein summation: 'ij,jk->ik', 'bij,bjk->bik', 'ij->ji', 'ii->i', 'i,j->ij', '...ij->...ji';
    without '->' the output holds the labels seen once, in alphabetical order (ellipsis dims first)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): the equation must be a string, got {type(equation).__name__}")
    _tensors("einsum", *operands)
    for t in operands[1:]:
        same_dtype("einsum", operands[0], t)
    inputs, output = _parse(equation.replace(" ", ""), operands)
    sizes = _label_sizes(inputs, operands)
    terms = [_distinct_labels(t, labels) for t, labels in zip(operands, inputs)]
    terms = [(_broadcast(t, labels, sizes), labels) for t, labels in terms]
    while len(terms) > 1:
        (a, la), (b, lb) = terms[0], terms[1]
        needed = set(output).union(*(labels for _, labels in terms[2:]))
        terms[:2] = [_contract(a, la, b, lb, needed, sizes)]
    result, labels = terms[0]
    return _to_output(result, labels, output)


def _parse(equation, operands):
    """The label lists of each operand and of the output (ellipsis dims become ('...', i) labels)."""
    left, arrow, right = equation.partition("->")
    specs = left.split(",")
    if len(specs) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(specs) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    ellipsis_rank = 0
    letters = []
    for i, (spec, t) in enumerate(zip(specs, operands)):
        named = spec.replace("...", "")
        if not all(c.isalpha() for c in named):
            raise RuntimeError(f"einsum(): invalid subscript given in the equation: '{spec}' (letters and ... only)")
        if "..." in spec:
            ellipsis_rank = max(ellipsis_rank, t.ndim - len(named))
        if len(named) != t.ndim and ("..." not in spec or len(named) > t.ndim):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(named)}) does not match "
                f"the number of dimensions ({t.ndim}) for operand {i}"
                + ("" if "..." in spec else " and no ellipsis was given")
            )
        letters.append(named)
    inputs = []
    for spec, t in zip(specs, operands):
        before, dots, after = spec.partition("...")
        rank = t.ndim - len(before) - len(after) if dots else 0
        inputs.append(list(before) + [("...", ellipsis_rank - rank + k) for k in range(rank)] + list(after))
    dims = [("...", k) for k in range(ellipsis_rank)]
    if not arrow:
        seen = "".join(letters)
        return inputs, dims + sorted(c for c in set(seen) if seen.count(c) == 1)
    before, dots, after = right.partition("...")
    output = list(before) + (dims if dots else []) + list(after)
    named = [c for c in output if isinstance(c, str)]
    for c in named:
        if not c.isalpha():
            raise RuntimeError(f"einsum(): invalid subscript given in the equation: '{right}' (letters and ... only)")
        if named.count(c) > 1:
            raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
        if not any(c in labels for labels in inputs):
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input operand")
    return inputs, output


def _label_sizes(inputs, operands):
    sizes = {}
    for i, (labels, t) in enumerate(zip(inputs, operands)):
        own = {}
        for label, n in zip(labels, t.shape):
            if own.setdefault(label, n) != n:
                raise RuntimeError(
                    f"einsum(): subscript {label} is repeated for operand {i} but the sizes don't "
                    f"match, {n} != {own[label]}"
                )
            seen = sizes.get(label, 1)
            if n != seen and n != 1 and seen != 1:
                name = "..." if isinstance(label, tuple) else label
                raise RuntimeError(
                    f"einsum(): subscript {name} has size {n} for operand {i} which does not "
                    f"broadcast with previously seen size {seen}"
                )
            sizes[label] = max(seen, n)
    return sizes


def _distinct_labels(t, labels):
    """Take the diagonal wherever a label repeats within one operand ('ii' -> 'i')."""
    labels = list(labels)
    for j in range(len(labels) - 1, -1, -1):
        i = labels.index(labels[j])
        if i == j:
            continue
        n = t.shape[i]  # the same as t.shape[j], checked by _label_sizes
        eye = backend.create(t.device, "eye", n, dtype=t.array.dtype)
        shape = [1] * t.ndim
        shape[i] = shape[j] = n
        t = _sum(t * wrap(backend.reshape(eye, tuple(shape))), j)
        del labels[j]
    return t, labels


def _broadcast(t, labels, sizes):
    target = tuple(sizes[label] for label in labels)
    return t if tuple(t.shape) == target else expand(t, target)


def _contract(a, la, b, lb, needed, sizes):
    """a and b (distinct labels each) multiplied and summed over the labels no longer needed."""
    a, la = _sum_out(a, la, set(lb) | needed)
    b, lb = _sum_out(b, lb, set(la) | needed)
    batch = [x for x in la if x in lb and x in needed]
    inner = [x for x in la if x in lb and x not in needed]
    left = [x for x in la if x not in lb]
    right = [x for x in lb if x not in la]

    def count(labels):
        return math.prod(sizes[x] for x in labels)

    a = reshape(_arrange(a, la, batch + left + inner), (count(batch), count(left), count(inner)))
    b = reshape(_arrange(b, lb, batch + inner + right), (count(batch), count(inner), count(right)))
    out = reshape(matmul(a, b), tuple(sizes[x] for x in batch + left + right))
    return out, batch + left + right


def _sum_out(t, labels, keep):
    gone = [i for i, x in enumerate(labels) if x not in keep]
    if not gone:
        return t, labels
    return _sum(t, tuple(gone)), [x for x in labels if x in keep]


def _arrange(t, labels, order):
    axes = tuple(labels.index(x) for x in order)
    return t if axes == tuple(range(len(axes))) else permute(t, axes)


def _to_output(t, labels, output):
    t, labels = _sum_out(t, labels, set(output))
    return _arrange(t, labels, output)
