"""What the create_graph rules share: a node's saved output as the Tensor it was, grads made only
where an input needs one, a grad masked or expanded back to an input's shape."""

from __future__ import annotations

from collections.abc import Callable

from ..function import Function
from ..ops.indexing import MaskedFill
from ..ops.shape import Expand, Reshape
from ..tensor import Tensor, wrap

# A rule: (node, the grad of its output) -> a grad for each input (None where none flows), or None
# when the rule does not cover the node's arguments.
Rule = Callable[[Function, Tensor], tuple[Tensor | None, ...] | None]


def output_tensor(node: Function, array=None) -> Tensor:
    """The node's saved output (or `array`, its output saved in another shape) as the Tensor it
    was, made by `node`: differentiating through it reaches the node's inputs (exp's second
    derivative is exp again)."""
    out = wrap(node.out if array is None else array, requires_grad=True, grad_fn=node)  # type: ignore[attr-defined]
    if node.output_version is not None:
        out._vc = node.output_version[0]
    return out


def needed(node: Function, *grads: Callable[[], Tensor] | None) -> tuple[Tensor | None, ...]:
    """Each input's grad made by its function of `grads` where that input needs one, else None
    (a grad nobody needs is never made: it would be a node of its own in the record)."""
    return tuple(None if make is None or not need else make() for make, need in zip(grads, node.needs_input_grad))


def masked(grad: Tensor, where) -> Tensor:
    """`grad` with 0 where the array `where` is true."""
    return MaskedFill.apply(grad, where, 0)


def axes_of(axis) -> tuple | None:
    """The axes tuple of one axis (None: all of them)."""
    return None if axis is None else (axis,)


def expand_back_to(g: Tensor, shape, axes, keepdim) -> Tensor:
    """A reduced grad reshaped to broadcast against the input's `shape`, then expanded to it."""
    if axes is None:
        g = Reshape.apply(g, (1,) * len(shape))
    elif not keepdim:
        g = Reshape.apply(g, tuple(1 if i in axes else n for i, n in enumerate(shape)))
    return Expand.apply(g, shape)
