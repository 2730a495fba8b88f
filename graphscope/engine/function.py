"""Function: a graph node (PyTorch's grad_fn), one small subclass per primitive op."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, ClassVar

from . import grad_fn_names, grad_mode
from .backend import CPU_ARRAY, is_array, namespace
from .hooks import announce_node_created, observers
from .tensor import Tensor, as_array

_ndarray = CPU_ARRAY

_grad_state = grad_mode.state
_new = object.__new__
next_seq = itertools.count().__next__


class Function:
    """A primitive op: `forward` on raw arrays, `backward` beside it; an instance is one graph node.

    Attributes set on `self` in `forward` are the node's saved state, freed after backward (the
    instance `__dict__`, which only the rarely set defaults below join); the slots below are the
    node's place in the graph and the versions its backward checks, kept out of the state so that
    a recorder's copy of it does not keep them alive.
    """

    # seq: creation order, which is a topological order (a node's inputs exist before it).
    # replaces: for an in-place node, the node it took over its tensor from (see `producer`).
    # versions: (input position, its version at forward) for the inputs backward reads.
    # output_version: (the output's version counter, its version at forward), when backward reads the output.
    __slots__ = (
        "inputs",
        "needs_input_grad",
        "seq",
        "replaces",
        "versions",
        "output_version",
        "__dict__",
        "__weakref__",
    )
    inputs: tuple[Any, ...]  # forward's arguments: Tensors, and the numbers and arrays between them
    needs_input_grad: list[bool] | tuple[bool, ...]
    seq: int
    replaces: Function | None
    versions: tuple[tuple[int, int], ...] | list[tuple[int, int]]
    output_version: tuple[list[int], int] | None

    op: ClassVar[str] = "function"
    # Rarely changed per-node state lives in the instance dict only when set; these are defaults.
    pre_hooks: list[Callable[..., Any]] | None = None  # tensor hooks on this node's output (register_hook, retain_grad)
    released = False  # saved state freed by a backward without retain_graph
    # Positions of the inputs whose arrays `backward` reads, so whose version counter is checked
    # (an in-place change between forward and backward is an error); None means all of them,
    # () none. It says nothing of what forward saves on `self` (an output, a mask, ...).
    reads_inputs: ClassVar[tuple[int, ...] | None] = None
    # Whether `backward` reads the node's own output (exp, tanh, softmax, ...): an in-place change
    # of the output tensor then makes backward refuse, as it does for a read input.
    saves_output = False
    # The derivative rule its backward applies, in plain Unicode for a learner ("d(a·b)/da = b");
    # a fused op says what it fuses. The recorder copies it into the record once per class.
    rule: ClassVar[str] = ""
    # Elementwise ops (each output element depends only on the inputs' elements at the same place,
    # after broadcasting) set it: `local_factors` then holds each input's local derivative.
    elementwise: ClassVar[bool] = False
    # A loss whose grad is elementwise in its inputs before the reduction sets it: its local factors are
    # d out/d input in each input's shape (mse_loss: 2·(x − y)/N), shown as an elementwise op's are.
    reduces: ClassVar[bool] = False
    # An elementwise (or reducing) op's local derivative for each forward argument, as text in the
    # arguments' names ("{b}", "1/{b}", "{out}" for the output, and the names of `local_values`), which an
    # explanation fills with numbers.
    local: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "op" not in cls.__dict__:
            cls.op = cls.__name__.lower()

    def forward(self, *arrays, **params):
        raise NotImplementedError

    def backward(self, grad):
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **params):
        """Run forward on the inputs' arrays; record a node when grad mode is on and a grad is needed."""
        # The engine's hottest path: one and two arguments are unrolled, and the output Tensor is
        # built here rather than by `wrap` (a call less per op); any other call takes the loop.
        fn = _new(cls)
        if len(args) == 2 and not params:
            a, b = args
            is_a, is_b = isinstance(a, Tensor), isinstance(b, Tensor)
            out = fn.forward(a.array if is_a else a, b.array if is_b else b)
            needs = (is_a and a.requires_grad, is_b and b.requires_grad)
        elif len(args) == 1 and not params and isinstance(args[0], Tensor):
            a = args[0]
            out = fn.forward(a.array)
            needs = (a.requires_grad,)
        else:
            arrays = []
            needs = []
            for a in args:
                if isinstance(a, Tensor):
                    arrays.append(a.array)
                    needs.append(a.requires_grad)
                else:
                    arrays.append(a)
                    needs.append(False)
            out = fn.forward(*arrays, **params)
        result = _new(Tensor)
        result.array = out if type(out) is _ndarray else as_array(out)
        result._vc = [0]
        if not (True in needs and _grad_state.enabled):
            result.requires_grad = False
            result.grad_fn = None
            return result
        # Record the node: its inputs, the versions of those backward reads, and its output.
        fn.inputs = args
        fn.needs_input_grad = needs
        fn.seq = next_seq()
        reads = fn.reads_inputs
        if reads is None and len(args) == 2 and isinstance(args[0], Tensor) and isinstance(args[1], Tensor):
            fn.versions = ((0, args[0]._vc[0]), (1, args[1]._vc[0]))  # the common case, unrolled
        elif reads != ():
            versions = []
            for i in range(len(args)) if reads is None else reads:
                a = args[i]
                if isinstance(a, Tensor):
                    versions.append((i, a._vc[0]))
            fn.versions = versions
        else:
            fn.versions = ()
        result.requires_grad = True
        result.grad_fn = fn
        fn.output_version = (result._vc, 0) if fn.saves_output else None
        if observers:
            announce_node_created(fn, args, result)
        return result

    @classmethod
    def rule_for(cls, args: dict) -> str:
        """The rule with this node's own non-tensor arguments substituted (pow's exponent)."""
        return cls.rule

    @classmethod
    def local_for(cls, args: dict) -> tuple[str, ...]:
        """`local` with this node's own non-tensor arguments substituted (pow's exponent)."""
        return cls.local

    @classmethod
    def local_values(cls, arrays, args: dict) -> dict:
        """The numbers `local_for`'s text names besides the arguments (a loss's N), from forward's arguments."""
        return {}

    @classmethod
    def local_factors(cls, arrays, params=None) -> list:
        """An elementwise op's d out/d input for each of `arrays` (forward's positional arguments),
        in the output's shape (a reducing op's: in the input's), None where no grad flows: its own
        backward run on a unit cotangent, so the numbers are the ones this op's backward computes."""
        fn = _new(cls)
        out = fn.forward(*arrays, **(params or {}))
        fn.inputs = tuple(arrays)
        fn.needs_input_grad = [is_array(a) for a in arrays]
        xp = namespace(out)
        grads = fn.backward(xp.ones_like(out))
        # a 0-d array's op gives a NumPy scalar, which is a factor too (the loss's steps have one)
        shaped = xp.asarray if cls.reduces else lambda g: xp.broadcast_to(xp.asarray(g), xp.shape(out))
        return [None if g is None or not need else shaped(g) for g, need in zip(grads, fn.needs_input_grad)]

    @classmethod
    def contraction(cls, position: int, index: tuple, arrays, grad):
        """For an op whose grad is a sum of products (matmul, linear): element `index` of input
        `position`'s grad as (the sum in symbols, the [(factor, factor), ...] it adds up), from
        forward's arguments `arrays` and the output's grad; None where it has no such form."""

    # --- what a PyTorch user can ask a grad_fn -------------------------------------------------

    @classmethod
    def own_name(cls) -> str:
        """The engine's name for this kind of node ("LinearBackward0"), one per class: the record's."""
        return f"{cls.__name__}Backward0"

    def name(self) -> str:
        """torch's name for this node ("AddmmBackward0" for a linear layer on a batch), as scripts see it."""
        return grad_fn_names.name_of(self)

    @property
    def next_functions(self):
        """((node, 0), ...) as torch's: for each tensor input, its grad_fn, an AccumulateGrad, or None."""
        edges = []
        for t in self.inputs:
            if not isinstance(t, Tensor):
                continue
            producer = producer_for(t, self)
            if producer is not None:
                edges.append((producer, 0))
            elif t.requires_grad:
                edges.append((t._grad_accumulator(), 0))
            else:
                edges.append((None, 0))
        return grad_fn_names.next_functions(self, tuple(edges))

    def release(self) -> None:
        """Free what backward needed (a backward without retain_graph ran): the saved state and the
        versions it checked; a second backward through the node then refuses."""
        self.__dict__.clear()
        self.versions, self.output_version = (), None
        self.released = True

    def saved_arrays(self) -> dict:
        """The arrays this node keeps for its backward, by name (empty once released)."""
        return {k: v for k, v in self.__dict__.items() if is_array(v)}

    def __repr__(self):
        return f"<{self.name()} object at {id(self):#x}>"


def producer_for(tensor: Tensor, consumer: Function):
    """The node that made the value of `tensor` that `consumer` used.

    An in-place op later gives the tensor a newer grad_fn; a consumer created before it must
    still send its grad to the node it saw, so walk back to the last one older than it.
    """
    producer = tensor.grad_fn
    while producer is not None and producer.seq > consumer.seq:
        producer = producer.replaces
    return producer


class AccumulateGrad:
    """The node PyTorch shows at a leaf that requires grad; `variable` is the leaf."""

    __slots__ = ("variable", "__weakref__")

    next_functions = ()

    def __init__(self, variable):
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return f"<AccumulateGrad object at {id(self):#x}>"
