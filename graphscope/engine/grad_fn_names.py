"""torch 2.13's names for the grad_fn nodes a script sees (`MseLossBackward0`, `AddmmBackward0`,
`SelectBackward0`), and torch's edges where its graph has other nodes than the engine's: a linear
layer on a batch is torch's addmm of (bias, input, weight.t()), cross-entropy its nll_loss of a
log_softmax. The record keeps the engine's own names (`Function.own_name`); these are only what
`grad_fn.name()`, its repr, a tensor's repr and `next_functions` show. A name is worked out when
asked, from the node's class and its inputs (which outlive backward), so recording a node costs
nothing more. Where the engine's node cannot tell torch's apart (`squeeze()` from `squeeze(0)`,
`t()` from `transpose(0, 1)`, `bmm` from a batched `@`), it gives the engine's own or the commoner."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .backend import is_array
from .tensor import Tensor

# the engine's class name -> torch's node name, where only the spelling differs
SAME_NODE = {
    "Log1p": "Log1PBackward0",
    "VectorNorm": "LinalgVectorNormBackward0",
    "LogSumExp": "LogsumexpBackward0",
    "Reshape": "ViewBackward0",
    "Flatten": "ViewBackward0",
    "MaxDim": "MaxBackward0",
    "MinDim": "MinBackward0",
    "Max": "MaxBackward1",
    "Min": "MinBackward1",
    "MSELoss": "MseLossBackward0",
    "SmoothL1": "SmoothL1LossBackward0",
    "Huber": "HuberLossBackward0",
    "GELU": "GeluBackward0",
    "LeakyReLU": "LeakyReluBackward0",
    "Dropout": "MulBackward0",  # torch drops out by multiplying with a scaled mask
    "LayerNorm": "NativeLayerNormBackward0",
    "BatchNorm": "NativeBatchNormBackward0",
    "Cast": "ToCopyBackward0",
    "ToDevice": "ToCopyBackward0",
    "ConstantPad": "ConstantPadNdBackward0",
    "MaxPool2d": "MaxPool2DWithIndicesBackward0",
    "AvgPool2d": "AvgPool2DBackward0",
    "AdaptiveAvgPool2d": "AdaptiveAvgPool2DBackward0",
    "SingularValues": "LinalgSvdBackward0",
    "Narrow": "SplitBackward0",  # chunk and split narrow the input: torch's SplitBackward0
    "SetItem": "torch::autograd::CopySlices",
}


def _ndim(value: Any) -> int:
    return value.ndim if isinstance(value, Tensor) else 0


def _scalar_first(forms: tuple[str, str]) -> Callable[[Any], str]:
    """A binary op whose torch node differs when a number comes first (`1 - x`, `2 / x`)."""
    return lambda fn: forms[1] if not isinstance(fn.inputs[0], Tensor) else forms[0]


def _pow(fn: Any) -> str:
    base, exponent = fn.inputs[:2]
    if not isinstance(base, Tensor):
        return "PowBackward2"
    return "PowBackward1" if isinstance(exponent, Tensor) else "PowBackward0"


def _over_dims(name: str) -> Callable[[Any], str]:
    """A reduction: torch's `...Backward0` over every element, `...Backward1` over given dims."""
    return lambda fn: f"{name}Backward0" if fn.inputs[1] is None else f"{name}Backward1"


def _clamp(fn: Any) -> str:
    return "ClampBackward0" if any(isinstance(b, Tensor) for b in fn.inputs[1:]) else "ClampBackward1"


def _getitem(fn: Any) -> str:
    """The last view torch's indexing made: select for an int, slice, unsqueeze for None, index
    for tensors, lists and masks (the engine's index is normalised: one tuple, ending in `...`)."""
    index = fn.inputs[1]
    if any(is_array(part) for part in index):
        return "IndexBackward0"
    last = None
    for part in index:
        if part is None:
            last = "UnsqueezeBackward0"
        elif isinstance(part, int):
            last = "SelectBackward0"
        elif isinstance(part, slice) and (
            part.start not in (None, 0) or part.stop is not None or part.step not in (None, 1)
        ):
            last = "SliceBackward0"
    if last is None:  # x[:] is torch's slice; x[:, :] and x[...] its alias
        return "SliceBackward0" if index[:1] == (slice(None),) and len(index) == 2 else "AliasBackward0"
    return last


def _matmul(fn: Any) -> str:
    a, b = (_ndim(x) for x in fn.inputs[:2])
    if a > 2 or b > 2:
        return "UnsafeViewBackward0"
    return {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (1, 2): "SqueezeBackward4"}.get((a, b), "MmBackward0")


def _linear(fn: Any) -> str:
    inputs = fn.inputs
    biased = len(inputs) > 2 and inputs[2] is not None
    dims = _ndim(inputs[0])
    if dims == 2:
        return "AddmmBackward0" if biased else "MmBackward0"
    if biased:
        return "ViewBackward0"
    return "SqueezeBackward4" if dims == 1 else "UnsafeViewBackward0"


def _cross_entropy(fn: Any) -> str:
    target, smoothing, reduction = fn.inputs[1], fn.inputs[4], fn.inputs[5]
    if smoothing:
        return "AddBackward0"
    if isinstance(target, Tensor) and target.is_floating_point():
        return "DivBackward1" if reduction == "mean" else "NegBackward0"
    return _nll(fn)


def _nll(fn: Any) -> str:
    return "NllLoss2DBackward0" if _ndim(fn.inputs[0]) >= 3 else "NllLossBackward0"


def _kl_div(fn: Any) -> str:
    log_target, reduction = fn.inputs[2:4]
    if reduction == "none":
        return "MulBackward0" if log_target else "SubBackward0"
    return {"batchmean": "DivBackward0", "sum": "SumBackward0"}.get(reduction, "MeanBackward0")


# the engine's class name -> a function of the node giving torch's name
BY_ARGUMENTS: dict[str, Callable[[Any], str]] = {
    "Sub": _scalar_first(("SubBackward0", "RsubBackward1")),
    "Div": _scalar_first(("DivBackward0", "MulBackward0")),
    "Pow": _pow,
    "Sum": _over_dims("Sum"),
    "Mean": _over_dims("Mean"),
    "Prod": _over_dims("Prod"),
    "Clamp": _clamp,
    "GetItem": _getitem,
    "Matmul": _matmul,
    "Linear": _linear,
    "CrossEntropy": _cross_entropy,
    "NLLLoss": _nll,
    "KLDiv": _kl_div,
    "L1Loss": lambda fn: "MeanBackward0",  # torch's l1_loss is |x - y| then the (default) mean
}


def name_of(fn: Any) -> str:
    """torch's name for the engine node `fn` (the engine's own where torch has the same)."""
    kind = type(fn).__name__
    rule = BY_ARGUMENTS.get(kind)
    if rule is not None:
        return rule(fn)
    return SAME_NODE.get(kind) or fn.own_name()


class TorchNode:
    """A node torch's graph has and the engine's does not (the `t()` of a linear layer's weight):
    only its name and edges, for a script that walks `next_functions`. Each name is a subclass
    named so (`TBackward0`), as torch's node types are."""

    __slots__ = ("next_functions",)

    def __init__(self, next_functions: tuple[tuple[Any, int], ...]) -> None:
        self.next_functions = next_functions

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


@functools.cache
def torch_node(name: str) -> type[TorchNode]:
    """The TorchNode subclass called `name`."""
    return type(name, (TorchNode,), {"__slots__": ()})


Edge = tuple[Any, int]


def _through(name: str, *edges: Edge) -> Edge:
    """The edge to a torch node `name` over `edges`; None where no grad flows into any of them."""
    if all(node is None for node, _ in edges):
        return (None, 0)
    return (torch_node(name)(edges), 0)


def _linear_edges(fn: Any, edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    """addmm(bias, input, weight.t()) or mm(input, weight.t()); off a batch of rows, the input is
    viewed as one (unsqueezed, for a vector without a bias) and the product viewed back."""
    data, weight, *bias = edges
    transposed = _through("TBackward0", weight)
    dims = _ndim(fn.inputs[0])
    if dims != 2:
        data = _through("UnsqueezeBackward0" if dims == 1 and not bias else "ViewBackward0", data)
    product = (*bias, data, transposed)
    if dims == 2:
        return product
    return (_through("AddmmBackward0" if bias else "MmBackward0", *product),)


def _nll_edges(fn: Any, edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    """One edge, to the log-probabilities (viewed as rows past two dims); target and weight have none."""
    data = edges[0]
    if type(fn).__name__ == "CrossEntropy":
        data = _through("LogSoftmaxBackward0", data)
    return (_through("ViewBackward0", data),) if _ndim(fn.inputs[0]) >= 3 else (data,)


def _cross_entropy_edges(fn: Any, edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    return _nll_edges(fn, edges) if name_of(fn).startswith("NllLoss") else edges


def _with_number(fn: Any, edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    """torch makes a Python number operand a tensor with no grad: an edge of None, after the tensor's."""
    return edges + ((None, 0),) if len(edges) == 1 else edges


def _where_edges(fn: Any, edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    """where(c, a, b): an edge for a and for b in their places, None for a number."""
    tensors = iter(edges)
    return tuple([next(tensors) if isinstance(x, Tensor) else (None, 0) for x in fn.inputs][1:])


def _sub_edges(fn: Any, edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    return edges if name_of(fn) == "RsubBackward1" else _with_number(fn, edges)


def _div_edges(fn: Any, edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    """`2 / x` is torch's x.reciprocal() * 2."""
    if isinstance(fn.inputs[0], Tensor):
        return _with_number(fn, edges)
    return (_through("ReciprocalBackward0", *edges), (None, 0))


# the engine's class name -> torch's edges from the engine's, where torch's graph differs
EDGES: dict[str, Callable[[Any, tuple[Edge, ...]], tuple[Edge, ...]]] = {
    "Add": _with_number,
    "Mul": _with_number,
    "Where": _where_edges,
    "Sub": _sub_edges,
    "Div": _div_edges,
    "Linear": _linear_edges,
    "CrossEntropy": _cross_entropy_edges,
    "NLLLoss": _nll_edges,
    "L1Loss": lambda fn, edges: (_through("AbsBackward0", _through("SubBackward0", *edges[:2])),),
    "Embedding": lambda fn, edges: edges[:1],  # the indices have no edge
    "BinaryCrossEntropy": lambda fn, edges: edges[:2],  # nor a loss's weights
    "BinaryCrossEntropyWithLogits": lambda fn, edges: edges[:2],
}


def next_functions(fn: Any, edges: tuple[Edge, ...]) -> tuple[Edge, ...]:
    """torch's edges of `fn`, from the engine's (one per tensor input, in order)."""
    rule = EDGES.get(type(fn).__name__)
    return edges if rule is None else rule(fn, edges)
