"""autograd.grad: gradients of outputs w.r.t. chosen inputs, returned instead of stored in `.grad`."""

from __future__ import annotations

from .. import backend
from ..backward import run_backward
from ..tensor import Tensor, wrap


def _as_tuple(value):
    return (value,) if isinstance(value, Tensor) else tuple(value)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=False,
    materialize_grads=False,
):
    """d(outputs)/d(inputs) as a tuple of tensors; leaves' `.grad` are left untouched."""
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    grad_outputs = (None,) * len(outputs) if grad_outputs is None else _as_tuple(grad_outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(
            f"grad requires one grad_output per output: got {len(grad_outputs)} for {len(outputs)} outputs"
        )
    for i, t in enumerate(inputs):
        if not t.requires_grad:
            raise RuntimeError(f"One of the differentiated Tensors (input {i}) does not require grad")
    keys = [id(t) if t.grad_fn is None else id(t.grad_fn) for t in inputs]
    totals = {}
    for n, (output, seed) in enumerate(zip(outputs, grad_outputs), 1):
        capture = dict.fromkeys(keys)
        # later outputs may share this graph; a graph of grads keeps it by default, as PyTorch
        keep = bool(create_graph if retain_graph is None else retain_graph) or n < len(outputs)
        run_backward(output, seed, retain_graph=keep, create_graph=create_graph, capture=capture)
        for key, value in capture.items():
            if value is not None:
                totals[key] = value if key not in totals else totals[key] + value
    result = []
    for i, (t, key) in enumerate(zip(inputs, keys)):
        value = totals.get(key)
        if value is None:
            if not materialize_grads and not allow_unused:
                raise RuntimeError(
                    f"One of the differentiated Tensors (input {i}) appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior."
                )
            result.append(wrap(backend.namespace(t.array).zeros_like(t.array)) if materialize_grads else None)
        else:  # under create_graph a Tensor already, the end of the grads' graph
            result.append(value if create_graph else wrap(backend.copy(value)))
    return tuple(result)
