"""The nodes a create_graph backward adds where an op's grad is not built from other ops: the grad of
a linear op (an index, a gather), of an op whose derivative is constant per element (relu, clamp),
and of an op graphscope cannot differentiate twice yet, whose backward says so."""

from __future__ import annotations

import functools
from typing import ClassVar

from .. import backend
from ..backward import SECOND_BACKWARD
from ..function import Function

_new = object.__new__


class Adjoint(Function):
    """The grad of an op linear in its one tensor input (an index, gather, roll, ...) as a node of its
    own: its forward is the op's backward on the grad, and its backward the op's forward (the adjoint
    of a linear map's adjoint is the map). One subclass per op, made by `adjoint_of`."""

    of: ClassVar[type[Function]]
    reads_inputs = ()
    rule = "the grad of a linear op put back into its input's shape;  its own grad: the op on the grad's grad"

    def forward(self, grad, shape, *args):
        self.args = args
        source = _new(self.of)
        source.needs_input_grad = (True,) + (False,) * len(args)
        source.forward(backend.zeros(shape, grad.dtype, like=grad), *args)  # the state its backward reads
        return source.backward(grad)[0]

    def backward(self, grad):
        return (_new(self.of).forward(grad, *self.args), None) + (None,) * len(self.args)


@functools.cache
def adjoint_of(cls: type[Function]) -> type[Adjoint]:
    """The Adjoint subclass of the op `cls` (its op "<op>_grad", so the record names it)."""
    rule = f"the grad of {cls.op} put back into its input's shape;  its own grad: {cls.op} of the grad's grad"
    return type(f"{cls.__name__}Grad", (Adjoint,), {"of": cls, "op": f"{cls.op}_grad", "rule": rule})


class ConstantFactor(Function):
    """The grad of an elementwise op whose derivative is constant where it is defined (relu, clamp,
    max, where, dropout) for one input, as a node: the op's backward run on the grad; its own
    backward runs the same rule again (a factor per element is its own transpose), and the
    derivative of the factor itself is 0. One subclass per op, made by `constant_factor_of`."""

    reads_inputs = ()
    rule = "the grad of an elementwise op: grad times the op's derivative, a constant factor per element"

    def forward(self, grad, *, of, position):
        self.of, self.position = of, position
        return of.backward(grad)[position]

    def backward(self, grad):
        if self.of.released:
            raise RuntimeError(SECOND_BACKWARD)
        return (self.of.backward(grad)[self.position],)


@functools.cache
def constant_factor_of(cls: type[Function]) -> type[ConstantFactor]:
    """The ConstantFactor subclass of the op `cls` (its op "<op>_grad", so the record names it)."""
    rule = f"the grad of {cls.op}: grad times {cls.op}'s derivative, a constant factor per element"
    return type(f"{cls.__name__}Grad", (ConstantFactor,), {"op": f"{cls.op}_grad", "rule": rule})


class NotDifferentiable(Function):
    """The grad an op without a rule here gave under create_graph (computed on arrays): a node
    linked to what it was computed from, whose backward refuses, naming the op."""

    op = "not_differentiable"
    reads_inputs = ()

    def forward(self, *arrays, result, of):
        self.of = of
        return result

    rule = "the grad of an op whose backward graphscope cannot differentiate yet"

    def backward(self, grad):
        raise RuntimeError(
            f"create_graph=True: the backward of {self.of} is not differentiable in graphscope yet "
            "(its grads were computed on plain arrays); take this gradient without create_graph, "
            "or build the op from differentiable ones (add, mul, exp, matmul, ...)"
        )
