"""User-defined ops, as torch.autograd.Function: static forward(ctx, ...) and backward(ctx, grad)."""

from __future__ import annotations

import functools
import inspect
import linecache
import os
from typing import ClassVar

from .. import grad_mode
from ..function import Function as Node
from ..function import next_seq
from ..hooks import announce_node_created, observers
from ..tensor import Tensor, wrap


class FunctionCtx:
    """The `ctx` passed to a user's forward and backward: saved tensors and flags."""

    def __init__(self):
        self.saved = ()
        self.needs_input_grad = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save tensors (or None), got {type(t).__name__}; "
                    "store other values as attributes of ctx"
                )
        self.saved = tuple((t, t._vc[0]) if t is not None else (None, 0) for t in tensors)

    @property
    def saved_tensors(self):
        for position, (t, version) in enumerate(self.saved):
            if t is not None and t._vc[0] != version:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an "
                    f"inplace operation: saved tensor {position} is at version {t._vc[0]}; "
                    f"expected version {version} instead"
                )
        return tuple(t for t, _ in self.saved)

    def mark_non_differentiable(self, *tensors):
        """Accepted for compatibility: outputs of a custom Function carry one gradient."""

    def set_materialize_grads(self, value: bool):
        self.materialize_grads = value


class CustomNode(Node):
    """The graph node of one call to a user-defined Function (one subclass per Function class)."""

    reads_inputs = ()
    function_cls: ClassVar[type]  # the user's Function class: node_class() sets it on each subclass

    def __init__(self, ctx):
        self.ctx = ctx

    @classmethod
    def own_name(cls) -> str:
        return f"{cls.function_cls.__name__}Backward"

    rule = "custom backward: the user's Function.backward"

    def backward(self, grad):
        with grad_mode.no_grad():
            grads = self.tensor_grads(wrap(grad))
        return tuple(None if g is None else g.array for g in grads)

    def tensor_grads(self, grad):
        """The user's backward on `grad`, its grads checked and shaped as the inputs: a graph of its
        own when grad mode is on (create_graph), a Tensor or None for each input."""
        result = self.function_cls.backward(self.ctx, grad)
        result = result if isinstance(result, tuple) else (result,)
        if len(result) != len(self.inputs):
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {len(self.inputs)}, got {len(result)})"
            )
        grads = []
        for i, (g, t) in enumerate(zip(result, self.inputs)):
            if g is None or not self.needs_input_grad[i]:
                grads.append(None)
                continue
            if not isinstance(g, Tensor):
                raise TypeError(f"{self.name()} must return Tensors or None, got {type(g).__name__} for input {i}")
            if g.shape != t.shape and g.numel() != t.numel():
                raise RuntimeError(
                    f"function {self.name()} returned an invalid gradient at index {i} - got "
                    f"{list(g.shape)} but expected shape compatible with {list(t.shape)}"
                )
            grads.append(g.reshape(t.shape) if g.shape != t.shape else g)
        return tuple(grads)

    def saved_arrays(self) -> dict:
        ctx = self.__dict__.get("ctx")
        if ctx is None:
            return {}
        return {f"saved_tensors[{i}]": t.array for i, (t, _) in enumerate(ctx.saved) if t is not None}


@functools.cache
def node_class(function_cls) -> type:
    """The node class for a user Function: its op is the Function's name."""
    return type(
        f"{function_cls.__name__}Backward",
        (CustomNode,),
        {"function_cls": function_cls, "op": function_cls.__name__, "rule": _custom_rule(function_cls)},
    )


def _custom_rule(function_cls) -> str:
    """The rule text of a user's Function: "custom backward: MyReLU.backward (model.py:12)"."""
    backward = inspect.unwrap(function_cls.backward)
    code = getattr(backward, "__code__", None)
    if code is None:
        return f"custom backward: {function_cls.__qualname__}.backward"
    line = code.co_firstlineno  # a decorator's line (@staticmethod): the def is a few lines below
    for offset in range(8):
        if linecache.getline(code.co_filename, line + offset).lstrip().startswith(("def ", "async def ")):
            line += offset
            break
    return f"custom backward: {function_cls.__qualname__}.backward ({os.path.basename(code.co_filename)}:{line})"


class Function:
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`; call `.apply`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("a custom Function must define a static forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("a custom Function must define a static backward(ctx, grad)")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx.needs_input_grad = needs
        with grad_mode.no_grad():
            output = cls.forward(ctx, *args, **kwargs)
        if not isinstance(output, Tensor):
            raise TypeError(
                f"{cls.__name__}.forward must return a single Tensor (got {type(output).__name__}); "
                "graphscope's custom Functions have one output"
            )
        if not (grad_mode.state.enabled and True in needs):
            return output
        node = node_class(cls)(ctx)
        node.inputs = args
        node.needs_input_grad = needs
        node.seq = next_seq()
        node.versions, node.output_version = (), None  # (a custom backward's reads are its ctx's to check)
        if any(output is a for a in args):
            output = wrap(output.array)
        output.grad_fn = node
        output.requires_grad = True
        if observers:
            announce_node_created(node, args, output)
        return output
