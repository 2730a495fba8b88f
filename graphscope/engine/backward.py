"""The backward pass: plan the node order once, then run it iteratively, announcing every step."""

from __future__ import annotations

import heapq
import itertools
import operator
import weakref

from . import backend
from .backend import same_device
from .function import producer_for
from .hooks import announce, backward_tape, handled, observers
from .outer_grad import OuterGrad
from .tensor import Tensor, wrap

_ndarray = backend.CPU_ARRAY  # NumPy arrays skip the device checks
_NO_GRADS = itertools.repeat(None)  # the input grads of a node that received no grad
SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


def plan(root):
    """Nodes reachable from `root`, consumers before producers, and how many edges feed each leaf.

    Newest first: a node is always created after the nodes that made its inputs, so reverse
    creation order is a topological order (PyTorch's engine orders by it too). The walk uses
    an explicit stack, never recursion, so a 100,000-node chain plans fine.
    """
    seen = {root}
    leaf_uses = {}
    stack = [root]
    pop, push, visit = stack.pop, stack.append, seen.add
    while stack:
        node = pop()
        seq = node.seq
        for tensor, needed in zip(node.inputs, node.needs_input_grad):
            if needed:
                child = tensor.grad_fn
                if child is not None and child.seq > seq:
                    child = producer_for(tensor, node)  # the tensor was changed in place since
                if child is None:
                    entry = leaf_uses.get(id(tensor))
                    if entry is None:
                        leaf_uses[id(tensor)] = [tensor, 1, None, False]  # (.., the grad so far, made here)
                    else:
                        entry[1] += 1
                elif child not in seen:
                    visit(child)
                    push(child)
    return sorted(seen, key=_creation_order, reverse=True), leaf_uses


_creation_order = operator.attrgetter("seq")


def newest_first(heap: list):
    """The nodes of `heap` (entries (-seq, node)) newest first, while the walk pushes more: PyTorch's
    ready queue. A node's consumers are all newer, so each is reached before it is taken."""
    pop = heapq.heappop
    while heap:
        yield pop(heap)[1]


def seed_grad(root: Tensor, gradient):
    """The array backward starts from: ones for a scalar root, else `gradient` checked against the root."""
    if gradient is None:
        if root.array.size != 1:
            raise RuntimeError(
                "grad can be implicitly created only for scalar outputs "
                f"(this tensor has shape {tuple(root.shape)}); pass gradient= with that shape"
            )
        return backend.ones_like(root.array)
    array = gradient.array if isinstance(gradient, Tensor) else backend.asarray(gradient, like=root.array)
    if not same_device(array, root.array):
        raise RuntimeError(
            f"invalid gradient: it is on {backend.device_of(array)} but the tensor is on "
            f"{backend.device_of(root.array)}; move it with .to('{backend.device_of(root.array)}')"
        )
    if array.shape != root.array.shape:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[0] has a shape of {tuple(array.shape)} and "
            f"output[0] has a shape of {tuple(root.array.shape)}"
        )
    return backend.astype(array, root.array.dtype)


def sum_to_shape(grad, shape):
    """Sum a broadcast grad back down to an input's shape."""
    if grad.ndim == len(shape) + 1 and grad.shape[1:] == shape:
        return backend.sum(grad, axis=0)  # the common case: a bias broadcast over the batch
    extra = grad.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(i + extra for i, n in enumerate(shape) if n == 1 and grad.shape[i + extra] != 1)
    if axes:
        grad = backend.sum(grad, axis=axes, keepdims=True)
    if extra:
        grad = backend.reshape(grad, shape)
    return grad


class RetainGrad:
    """The pre-hook that retain_grad() puts on a non-leaf's node: keep its grad in `.grad`."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = weakref.ref(tensor)


def _run_tensor_hooks(hooks, grad, store=None):
    """User hooks in order (each may replace the grad), then retain_grad's, as PyTorch."""
    for hook in tuple(hooks):
        if isinstance(hook, RetainGrad):
            continue
        result = hook(wrap(grad))
        if result is not None:
            if not isinstance(result, Tensor) or result.shape != grad.shape:
                raise RuntimeError(
                    f"a tensor hook must return None or a tensor of shape {tuple(grad.shape)}, got {result!r}"
                )
            grad = result.array
    for hook in hooks:
        if isinstance(hook, RetainGrad) and store is not None:
            tensor = hook.tensor()
            if tensor is not None:
                store.accumulate(tensor, grad)
    return grad


class _GradStore:
    """Puts finished grads into `.grad`, copying only arrays another owner may still hold."""

    def __init__(self):
        self.handed_out = set()

    def accumulate(self, tensor: Tensor, grad):
        current = tensor._grad
        if current is None:
            if type(grad) is not _ndarray and not backend.is_array(grad):  # a NumPy scalar from a 0-d op
                grad = backend.copy(wrap(grad).array)
            elif id(grad) in self.handed_out or not backend.is_private(grad):
                grad = backend.copy(grad)
            self.handed_out.add(id(grad))
            tensor._grad = wrap(grad)
        elif current.array.shape == grad.shape and backend.writeable(current.array):
            current.array += grad
            current._vc[0] += 1
        else:
            tensor._grad = wrap(current.array + grad)


def run_backward(root: Tensor, gradient=None, retain_graph=False, create_graph=False, inputs=None, capture=None):
    """Backpropagate from `root`; with `capture` (a dict id(tensor) -> None), fill it instead of `.grad`."""
    if not root.requires_grad:
        raise RuntimeError(
            "element 0 of tensors does not require grad and does not have a grad_fn: "
            "set requires_grad=True on the inputs you want gradients for"
        )
    if inputs is not None:
        inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
        capture_only = {id(t) for t in inputs}
    else:
        capture_only = None
    if create_graph:  # the grads as graph nodes: a walk of its own, on Tensors (autograd imports this module)
        from .autograd.graph_backward import run_graph_backward

        run_graph_backward(root, gradient, retain_graph, capture_only, capture)
        return
    seed = seed_grad(root, gradient)
    store = _GradStore()
    if root.grad_fn is None:
        _finish_leaf(root, seed, store, capture, capture_only)
        return
    watching = bool(observers)
    # Nobody hears of leaves: no plan walk first, nodes are taken newest first from a heap as the walk
    # finds them, and each leaf's grad goes into `.grad` once the walk has ended (its uses are not counted).
    unplanned = not watching and capture is None and capture_only is None
    if unplanned:
        heap = [(-root.grad_fn.seq, root.grad_fn)]
        queued = {root.grad_fn}
        order, leaf_uses, push, enqueue = newest_first(heap), {}, heapq.heappush, queued.add
    else:
        order, leaf_uses = plan(root.grad_fn)
    tape = None
    if watching:
        announce("backward_begun", root, order)
        tape = backward_tape()
    grads = {root.grad_fn: seed}
    pop, get = grads.pop, grads.get
    # The nodes whose pending grad is a sum made by this walk: only those are added into in place (a
    # grad a backward returned may be its input, a saved array or another input's grad too).
    summed: set = set()
    # The events around each node go out only when an observer handles them; else the plain loop
    # (which writes each step on the recorder's tape, when it keeps one, instead of calling it).
    stepping = watching and handled("before_node", "after_node")
    leaves_watched = watching and handled("leaf_grad_accumulating", "leaf_grad_accumulated")
    plain = not stepping and capture is None
    handed_out = store.handed_out
    try:
        for node in order:
            grad = pop(node, None)
            if summed:
                summed.discard(node)
            if grad is None:
                grad_inputs = _NO_GRADS
            elif plain and node.pre_hooks is None and not node.released:
                if tape is not None:
                    step = [node, grad, None, node.__dict__.copy()]
                    tape.append(step)
                for position, version in node.versions:
                    if node.inputs[position]._vc[0] != version:
                        check_versions(node)
                saved_output = node.output_version
                if saved_output is not None and saved_output[0][0] != saved_output[1]:
                    check_versions(node)
                grad_inputs = node.backward(grad)
                if tape is not None:
                    step[2] = grad_inputs
            else:
                grad_inputs = _node_backward(node, grad, stepping, store, capture, tape)
            seq = node.seq
            for tensor, needed, g in zip(node.inputs, node.needs_input_grad, grad_inputs):
                if not needed:
                    continue
                if g is not None:
                    array = tensor.array
                    if g.shape != array.shape:
                        g = sum_to_shape(g, array.shape)
                    if g.dtype is not array.dtype and g.dtype != array.dtype:
                        g = backend.astype(g, array.dtype)
                child = tensor.grad_fn
                if child is not None and child.seq > seq:
                    child = producer_for(tensor, node)  # the tensor was changed in place since
                if child is not None:
                    if unplanned and child not in queued:
                        enqueue(child)
                        push(heap, (-child.seq, child))
                    if g is not None:
                        if type(g) is OuterGrad:  # only a leaf sums its grads as factors
                            g = g.value()
                        pending = get(child)
                        if pending is None:
                            grads[child] = g
                        elif child in summed:
                            pending += g
                            grads[child] = pending  # the same array (a NumPy scalar, from 0-d sums, is new)
                        else:
                            grads[child] = pending + g
                            summed.add(child)
                    continue
                entry = leaf_uses.get(id(tensor))
                if entry is None:
                    entry = leaf_uses[id(tensor)] = [tensor, 0, None, False]  # unplanned: its count only falls
                if g is not None:
                    held = entry[2]
                    if held is None:
                        entry[2] = g
                    elif type(held) is OuterGrad and type(g) is OuterGrad:
                        entry[2] = held.plus(g)  # a recurrent weight's grads: one product at the end
                    else:
                        if type(held) is OuterGrad:
                            held, entry[3] = held.value(), True
                        if type(g) is OuterGrad:
                            g = g.value()
                        if entry[3]:
                            held += g  # a weight used at every time step sums its grads in one buffer
                            entry[2] = held
                        else:
                            entry[2] = held + g
                            entry[3] = True
                entry[1] -= 1
                if entry[1] == 0 and entry[2] is not None:
                    _finish_leaf(tensor, _multiplied(entry[2]), store, capture, capture_only, leaves_watched)
            if not retain_graph:  # (Function.release, inlined)
                node.__dict__.clear()
                node.versions = ()
                node.output_version = None
                node.released = True
        if unplanned:
            for tensor, _, g, _ in leaf_uses.values():
                if g is None:
                    continue
                g = _multiplied(g)
                if (
                    tensor._grad is None
                    and tensor._hooks is None
                    and type(g) is _ndarray
                    and type(tensor.array) is _ndarray
                ):
                    # A plain leaf's first grad on NumPy: _finish_leaf and _GradStore.accumulate's
                    # first case, unrolled (the grad is copied unless this pass alone owns it).
                    if id(g) in handed_out or not backend.is_private(g):
                        g = backend.copy(g)
                    handed_out.add(id(g))
                    tensor._grad = wrap(g)
                else:
                    _finish_leaf(tensor, g, store, capture, capture_only)
    finally:
        if watching:
            announce("backward_ended", root)


def check_versions(node) -> None:
    """Refuse to run a node whose saved inputs (or saved output) were modified in place since its forward."""
    for position, version in node.versions:
        tensor = node.inputs[position]
        if tensor._vc[0] != version:
            raise _modified(f"input {position}", node, tensor.shape, tensor.dtype.name, tensor._vc[0], version)
    if node.output_version is not None:
        counter, version = node.output_version
        if counter[0] != version:
            out = node.out  # every op that saves its output keeps it as `out`
            raise _modified("output 0", node, out.shape, backend.dtype_name(out), counter[0], version)


def _modified(which: str, node, shape, dtype: str, now: int, expected: int) -> RuntimeError:
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {which} of {node.name()} (a tensor of shape {tuple(shape)} and dtype "
        f"{dtype}) is at version {now}; expected version {expected} instead. Hint: replace the in-place "
        "operation (x += ..., x.add_(...), x[...] = ...) with an out-of-place one (x = x + ...)."
    )


def _node_backward(node, grad, watching, store, capture, tape=None):
    """One node's backward with everything around it: tensor hooks, capture, observers (or the
    tape), checks."""
    if node.pre_hooks:
        grad = _run_tensor_hooks(node.pre_hooks, grad, store if capture is None else None)
    if capture is not None and id(node) in capture:
        capture[id(node)] = grad
    if watching:
        announce("before_node", node, grad)
    elif tape is not None:
        step = [node, grad, None, node.__dict__.copy()]
        tape.append(step)
    if node.released:
        raise RuntimeError(SECOND_BACKWARD)
    check_versions(node)
    grad_inputs = node.backward(grad)
    if watching:
        announce("after_node", node, grad_inputs)
    elif tape is not None:
        step[2] = grad_inputs
    return grad_inputs


def _multiplied(grad):
    """A leaf's summed grad as an array (a recurrent weight's is held as factors until now)."""
    return grad.value() if type(grad) is OuterGrad else grad


def _finish_leaf(tensor, grad, store, capture, capture_only, watching=False):
    """A leaf's total grad for this pass is known: hooks, then `.grad` (or the capture)."""
    if tensor._hooks:
        grad = _run_tensor_hooks(tensor._hooks, grad)
    if capture is not None:
        if id(tensor) in capture:
            capture[id(tensor)] = grad
        return
    if capture_only is not None and id(tensor) not in capture_only:
        return
    if (type(grad) is not _ndarray or type(tensor.array) is not _ndarray) and not same_device(grad, tensor.array):
        raise RuntimeError(
            f"a gradient on {backend.device_of(grad)} does not match its tensor's device {tensor.device}"
        )
    if watching and tensor._grad is not None:
        announce("leaf_grad_accumulating", tensor)
    store.accumulate(tensor, grad)
    if watching:
        announce("leaf_grad_accumulated", tensor, grad)
