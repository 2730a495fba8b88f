"""backward(create_graph=True): the backward pass run on Tensors, each node's rule made of graph ops.

The same walk as `engine/backward.py`'s (one planned order, grads summed per node, leaves finished
when their last edge is in, the same events to observers, with each grad's array), but every grad
is a Tensor made by ops under grad mode, so the grads it leaves (in `.grad`, or returned by
autograd.grad) have a grad_fn and can be differentiated again. The plain walk stays on arrays:
it is the one every training step takes.
"""

from __future__ import annotations

from ..backend import device_of, same_device
from ..backward import SECOND_BACKWARD, RetainGrad, check_versions, plan, seed_grad
from ..function import producer_for
from ..grad_mode import set_grad_enabled
from ..hooks import announce, backward_tape, handled, observers
from ..ops.reduction import Sum
from ..ops.shape import Reshape
from ..ops.unary import cast, clone
from ..tensor import Tensor, wrap
from .differentiable import differentiable_backward


def run_graph_backward(root: Tensor, gradient, retain_graph: bool, capture_only, capture) -> None:
    """Backpropagate from `root` building the grads' graph; `capture` and `capture_only` as in
    `run_backward` (a capture's values are Tensors here)."""
    seed = seed_grad(root, gradient)
    if isinstance(gradient, Tensor):
        seed = gradient if gradient.array is seed else cast(gradient, root.dtype)  # it may require grad
    else:
        seed = wrap(seed)
    with set_grad_enabled(True):
        if root.grad_fn is None:
            _finish_leaf(root, seed, capture, capture_only, False)
            return
        order, leaf_uses = plan(root.grad_fn)
        watching = bool(observers)
        tape = None
        if watching:
            announce("backward_begun", root, order)
            tape = backward_tape()
        stepping = watching and handled("before_node", "after_node")
        leaves_watched = watching and handled("leaf_grad_accumulating", "leaf_grad_accumulated")
        grads: dict = {root.grad_fn: seed}
        try:
            for node in order:
                grad = grads.pop(node, None)
                grad_inputs = () if grad is None else _node_backward(node, grad, stepping, capture, tape)
                for position, (tensor, needed) in enumerate(zip(node.inputs, node.needs_input_grad)):
                    if not needed:
                        continue
                    g = grad_inputs[position] if grad_inputs else None
                    if g is not None:
                        g = _fitted(g, tensor)
                    child = tensor.grad_fn
                    if child is not None and child.seq > node.seq:
                        child = producer_for(tensor, node)  # the tensor was changed in place since
                    if child is not None:
                        if g is not None:
                            pending = grads.get(child)
                            grads[child] = g if pending is None else pending + g
                        continue
                    entry = leaf_uses[id(tensor)]
                    if g is not None:
                        entry[2] = g if entry[2] is None else entry[2] + g
                    entry[1] -= 1
                    if entry[1] == 0 and entry[2] is not None:
                        _finish_leaf(tensor, entry[2], capture, capture_only, leaves_watched)
                if not retain_graph:
                    node.release()
        finally:
            if watching:
                announce("backward_ended", root)


def _fitted(g: Tensor, tensor: Tensor) -> Tensor:
    """An input's grad summed down to the input's shape (where it was broadcast) in its dtype."""
    shape = tuple(tensor.shape)
    if tuple(g.shape) != shape:
        extra = g.ndim - len(shape)
        axes = tuple(range(extra)) + tuple(i + extra for i, n in enumerate(shape) if n == 1 and g.shape[i + extra] != 1)
        g = Reshape.apply(Sum.apply(g, axes, True), shape)
    return g if g.dtype is tensor.dtype else cast(g, tensor.dtype)


def _node_backward(node, grad: Tensor, stepping: bool, capture, tape) -> tuple:
    """One node's rule with everything around it: tensor hooks, capture, observers (or the tape), checks."""
    if node.pre_hooks:
        grad = _run_tensor_hooks(node.pre_hooks, grad, capture is None)
    if capture is not None and id(node) in capture:
        capture[id(node)] = grad
    step = None
    if stepping:
        announce("before_node", node, grad.array)
    elif tape is not None:
        step = [node, grad.array, None, node.__dict__.copy()]
        tape.append(step)
    if node.released:
        raise RuntimeError(SECOND_BACKWARD)
    check_versions(node)
    grad_inputs = differentiable_backward(node, grad)
    arrays = [None if g is None else g.array for g in grad_inputs]
    if stepping:
        announce("after_node", node, arrays)
    elif step is not None:
        step[2] = arrays
    return grad_inputs


def _run_tensor_hooks(hooks, grad: Tensor, retain: bool = True) -> Tensor:
    """User hooks in order (each may replace the grad), then retain_grad's, as PyTorch."""
    for hook in tuple(hooks):
        if isinstance(hook, RetainGrad):
            continue
        result = hook(grad)
        if result is not None:
            if not isinstance(result, Tensor) or result.shape != grad.shape:
                raise RuntimeError(
                    f"a tensor hook must return None or a tensor of shape {tuple(grad.shape)}, got {result!r}"
                )
            grad = result
    for hook in hooks:
        if isinstance(hook, RetainGrad) and retain:
            tensor = hook.tensor()
            if tensor is not None:
                _accumulate(tensor, grad)
    return grad


def _finish_leaf(tensor: Tensor, grad: Tensor, capture, capture_only, watching: bool) -> None:
    """A leaf's total grad for this pass is known: hooks, then `.grad` (or the capture)."""
    if tensor._hooks:
        grad = _run_tensor_hooks(tensor._hooks, grad)
    if capture is not None:
        if id(tensor) in capture:
            capture[id(tensor)] = grad
        return
    if capture_only is not None and id(tensor) not in capture_only:
        return
    if not same_device(grad.array, tensor.array):
        raise RuntimeError(f"a gradient on {device_of(grad.array)} does not match its tensor's device {tensor.device}")
    if watching and tensor._grad is not None:
        announce("leaf_grad_accumulating", tensor)
    _accumulate(tensor, grad)
    if watching:
        announce("leaf_grad_accumulated", tensor, grad.array)


def _accumulate(tensor: Tensor, grad: Tensor) -> None:
    """`.grad` as PyTorch leaves it under create_graph: a clone of the first grad, then out-of-place
    sums, each a graph node (a grad of its own to differentiate)."""
    current = tensor._grad
    tensor._grad = clone(grad) if current is None else current + grad
