"""Rounding and floor division (floor, ceil, round, //, %) with PyTorch's semantics for negatives."""

from __future__ import annotations

from .. import backend, dtypes
from ..backend import namespace
from ..function import Function
from ..tensor import Tensor
from .arithmetic import binary
from .operands import binary_operands, tensor_input
from .tensor_methods import method, method_only
from .unary import clone


class Floor(Function):
    reads_inputs = ()

    def forward(self, x):
        return namespace(x).floor(x)

    rule = "d floor(x)/dx = 0 (almost everywhere)"
    elementwise = True
    local = ("0",)

    def backward(self, grad):
        return (grad * 0,)


class Ceil(Function):
    reads_inputs = ()

    def forward(self, x):
        return namespace(x).ceil(x)

    rule = "d ceil(x)/dx = 0 (almost everywhere)"
    elementwise = True
    local = ("0",)

    def backward(self, grad):
        return (grad * 0,)


class Round(Function):
    """Half to even; with `decimals`, round(x * 10^d) / 10^d (d < 0: round(x / 10^-d) * 10^-d), as torch."""

    reads_inputs = ()

    def forward(self, x, decimals):
        xp = namespace(x)
        if decimals == 0:
            return xp.round(x)
        scale = 10.0 ** abs(decimals)
        return xp.round(x * scale) / scale if decimals > 0 else xp.round(x / scale) * scale

    rule = "d round(x)/dx = 0 (almost everywhere)"
    elementwise = True
    local = ("0", "")

    def backward(self, grad):
        return grad * 0, None


class FloorDivide(Function):
    """floor(a / b); PyTorch defines no derivative for it, so its backward says so."""

    reads_inputs = ()

    def forward(self, a, b):
        return a // b

    rule = "floor_divide has no derivative (as torch)"

    def backward(self, grad):
        raise RuntimeError(
            "derivative for floor_divide is not implemented (it is 0 almost everywhere); "
            "detach() the result or use torch.div(a, b, rounding_mode=...) on detached values"
        )


class Remainder(Function):
    """a - b * floor(a / b): the sign of the divisor, as Python's % and torch.remainder."""

    def forward(self, a, b):
        self.a, self.b = a, b
        return a % b

    rule = "d (a mod b)/da = 1    d (a mod b)/db = −floor(a/b)"
    elementwise = True
    local = ("1", "−floor({a}/{b})")

    def backward(self, grad):
        need_a, need_b = self.needs_input_grad
        return (grad if need_a else None), (-grad * (self.a // self.b) if need_b else None)


class Fmod(Function):
    """a - b * trunc(a / b): the sign of the dividend, as C's fmod and torch.fmod."""

    def forward(self, a, b):
        self.a, self.b = a, b
        return namespace(a).fmod(a, b)

    rule = "d fmod(a, b)/da = 1    d fmod(a, b)/db = −trunc(a/b)"
    elementwise = True
    local = ("1", "−trunc({a}/{b})")

    def backward(self, grad):
        need_a, need_b = self.needs_input_grad
        return (grad if need_a else None), (-grad * namespace(grad).trunc(self.a / self.b) if need_b else None)


def _rounding(cls, name):
    def op(input):
        tensor_input(input, name)
        if not backend.is_floating(input.array):
            return clone(input)  # integers are already whole, as torch
        return cls.apply(input)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} (as torch.{name}); integer tensors come back unchanged."
    return method(name)(op)


floor = _rounding(Floor, "floor")
ceil = _rounding(Ceil, "ceil")


@method("round")
def round(input, *, decimals=0):
    """Round half to even, to `decimals` places (negative: to tens, hundreds...), as torch.round."""
    tensor_input(input, "round")
    if not backend.is_floating(input.array):
        if decimals:
            raise NotImplementedError(
                "round_with_decimals is not implemented for integer tensors; convert with .float()"
            )
        return clone(input)
    return Round.apply(input, int(decimals))


def _checked(op, input, other):
    """The promoted operands; bool ones are refused and an integer division by zero raises, as torch."""
    a, b = binary_operands(op, input, other)
    kind = backend.dtype_of((a if isinstance(a, Tensor) else b).array)
    if kind is dtypes.bool_:
        raise NotImplementedError(f"{op} is not implemented for bool tensors; convert them with .int() first")
    if not kind.is_floating_point:
        divisor = b.array if isinstance(b, Tensor) else b
        if bool(namespace(divisor).any(divisor == 0)) if isinstance(b, Tensor) else b == 0:
            raise RuntimeError(f"ZeroDivisionError: integer {op} by zero")
    return a, b


@method("floor_divide", "__floordiv__")
def floor_divide(input, other):
    """floor(input / other) elementwise (Python's //); integer inputs give integers."""
    a, b = _checked("floor_divide", input, other)
    return binary(FloorDivide, "floor_divide", a, b)


@method("remainder", "__mod__")
def remainder(input, other):
    """input - other * floor(input / other): the result takes the divisor's sign (Python's %)."""
    a, b = _checked("remainder", input, other)
    return binary(Remainder, "remainder", a, b)


@method("fmod")
def fmod(input, other):
    """input - other * trunc(input / other): the result takes the dividend's sign (C's fmod)."""
    a, b = _checked("fmod", input, other)
    return binary(Fmod, "fmod", a, b)


@method_only("__rfloordiv__")
def rfloordiv(input, other):
    """number // tensor."""
    return floor_divide(other, input)


@method_only("__rmod__")
def rmod(input, other):
    """number % tensor."""
    return remainder(other, input)
