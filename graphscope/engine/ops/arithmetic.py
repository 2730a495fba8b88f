"""Broadcasting binary ops (+ - * / ** maximum minimum where) with their derivative rules."""

from __future__ import annotations

import math

from .. import dtypes
from ..backend import dtype_of, from_data, is_array, namespace
from ..dtypes import bool_
from ..function import Function
from ..tensor import Tensor, wrap
from .operands import BOOLS_SUBTRACTION, binary_operands, broadcast_error, check_devices, is_bool
from .tensor_methods import method, method_only


class Add(Function):
    reads_inputs = ()

    def forward(self, a, b):
        return a + b

    rule = "d(a+b)/da = 1    d(a+b)/db = 1"
    elementwise = True
    local = ("1", "1")

    def backward(self, grad):
        return grad, grad


class Sub(Function):
    reads_inputs = ()

    def forward(self, a, b):
        try:
            return a - b
        except TypeError:  # two bool arrays (the promotion's fast path lets them through)
            raise RuntimeError(BOOLS_SUBTRACTION) from None

    rule = "d(a−b)/da = 1    d(a−b)/db = −1"
    elementwise = True
    local = ("1", "−1")

    def backward(self, grad):
        return grad, (-grad if self.needs_input_grad[1] else None)


class Mul(Function):
    def forward(self, a, b):
        self.a, self.b = a, b
        return a * b

    rule = "d(a·b)/da = b    d(a·b)/db = a"
    elementwise = True
    local = ("{b}", "{a}")

    def backward(self, grad):
        need_a, need_b = self.needs_input_grad
        return (grad * self.b if need_a else None), (grad * self.a if need_b else None)


class Div(Function):
    def forward(self, a, b):
        self.a, self.b = a, b
        return a / b

    rule = "d(a/b)/da = 1/b    d(a/b)/db = −a/b²"
    elementwise = True
    local = ("1/{b}", "−{a}/{b}²")

    def backward(self, grad):
        need_a, need_b = self.needs_input_grad
        grad_a = grad / self.b if need_a else None
        grad_b = -grad * self.a / (self.b * self.b) if need_b else None
        return grad_a, grad_b


class Pow(Function):
    arg_names = ("input", "exponent")  # what the debugger calls a number passed as `b`

    def forward(self, a, b):
        self.a, self.b = a, b
        try:
            if is_array(b):
                self.out = out = a**b  # kept for the exponent's grad
                self.saves_output = True
                return out
            return a * a if b == 2 else a**b
        except ValueError:  # NumPy refuses integers to negative integer powers
            if not is_array(b):
                raise RuntimeError("Integers to negative integer powers are not allowed.") from None
            self.out = out = _integer_power(a, b)
            self.saves_output = True
            return out

    rule = "d(xⁿ)/dx = n·xⁿ⁻¹    d(xⁿ)/dn = xⁿ·ln x"
    elementwise = True
    local = ("{exponent}·{input}^({exponent}−1)", "{out}·ln({input})")

    def backward(self, grad):
        need_a, need_b = self.needs_input_grad
        a, b = self.a, self.b
        grad_a = grad_b = None
        if need_a:
            if is_array(b):
                grad_a = namespace(b).where(b == 0, 0, grad * b * a ** (b - 1))
            elif b == 2:
                grad_a = grad * (a + a)  # 2a: NumPy's path for a Python number costs more than an add
            else:
                grad_a = grad * (b * a ** (b - 1)) if b != 0 else grad * 0
        if need_b:
            xp = namespace(b)
            log_a = xp.log(a) if is_array(a) else (math.log(a) if a > 0 else -math.inf if a == 0 else math.nan)
            # d(a^b)/db = a^b log a, taken as 0 where a == 0 and b >= 0 (as PyTorch).
            grad_b = grad * xp.where((a == 0) & (b >= 0), 0, self.out * log_a)
        return grad_a, grad_b

    @classmethod
    def rule_for(cls, args):
        n = args.get("exponent")
        if not isinstance(n, (int, float)) or isinstance(n, bool):
            return cls.rule
        return f"d(x{_superscript(n)})/dx = {_number(n)}·x{_superscript(n - 1)}"

    @classmethod
    def local_for(cls, args):
        n = args.get("exponent")
        if not isinstance(n, (int, float)) or isinstance(n, bool):
            return cls.local
        return (f"{_number(n)}·{{input}}{_superscript(n - 1)}", "")


def _integer_power(a, b):
    """a ** b for integer arrays with negative exponents among `b`, as torch computes them: 1 and -1
    keep their magnitude, every other base goes to 0."""
    xp = namespace(b)
    out = a ** xp.where(b < 0, 0, b)
    negative = xp.where(a == 1, 1, xp.where(a == -1, xp.where(b % 2 == 0, 1, -1), 0))
    return xp.where(b < 0, negative, out).astype(out.dtype)


_SUPERSCRIPTS = str.maketrans("0123456789-.", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻·")


def _number(n) -> str:
    """3 for 3.0: an exponent as a learner writes it."""
    return str(int(n)) if float(n).is_integer() else repr(n)


def _superscript(n) -> str:
    """An exponent written up: "²" for 2, "" for 1, "⁻⁰·⁵" for -0.5."""
    text = _number(n)
    return "" if text == "1" else text.translate(_SUPERSCRIPTS)


class Maximum(Function):
    def forward(self, a, b):
        self.a, self.b = a, b
        return namespace(a).maximum(a, b)

    rule = "d max(a,b)/da = 1 if a > b, ½ if a = b, 0 if a < b (1 where either is NaN); db alike"
    elementwise = True
    local = ("({a} > {b})", "({b} > {a})")

    def backward(self, grad):
        return _split_ties(grad, self.a, self.b, self.a < self.b, self.a > self.b)


class Minimum(Function):
    def forward(self, a, b):
        self.a, self.b = a, b
        return namespace(a).minimum(a, b)

    rule = "d min(a,b)/da = 1 if a < b, ½ if a = b, 0 if a > b (1 where either is NaN); db alike"
    elementwise = True
    local = ("({a} < {b})", "({b} < {a})")

    def backward(self, grad):
        return _split_ties(grad, self.a, self.b, self.a > self.b, self.a < self.b)


def _split_ties(grad, a, b, a_loses, b_loses):
    """The grad to each input that did not lose; ties split it evenly, and where either is NaN
    (neither lost) both get all of it, as PyTorch."""
    xp = namespace(grad)
    shared = xp.where(a == b, grad * 0.5, grad)
    return xp.where(a_loses, 0, shared), xp.where(b_loses, 0, shared)


class Where(Function):
    reads_inputs = ()

    def forward(self, condition, a, b):
        self.condition = condition
        return namespace(condition).where(condition, a, b)

    rule = "d where(c, a, b)/da = 1 where c else 0    d/db = 0 where c else 1"
    elementwise = True
    local = ("", "({condition})", "(not {condition})")

    def backward(self, grad):
        xp = namespace(grad)
        need_a, need_b = self.needs_input_grad[1:]
        return (
            None,
            xp.where(self.condition, grad, 0) if need_a else None,
            xp.where(self.condition, 0, grad) if need_b else None,
        )


def binary(cls, op, a, b, float_result=False):
    """`cls` applied to two operands promoted as PyTorch does, with a clear error when their shapes
    do not broadcast."""
    a, b = binary_operands(op, a, b, float_result)
    try:
        return cls.apply(a, b)
    except ValueError:
        error = broadcast_error(op, a, b)
        if error is None:
            raise
        raise error from None


def _reflected(cls, op, dunder, float_result=False):
    """Tensor.__r<op>__ (`number <op> tensor`): the op with the operands put back in order, called
    directly rather than through the op's function (a call less in hand-written updates)."""

    def reflected(input, other):
        return binary(cls, op, other, input, float_result)

    return method_only(dunder)(reflected)


@method("add", "__add__")
def add(input, other, *, alpha=1):
    if alpha != 1:
        other = mul(other, alpha)
    return binary(Add, "add", input, other)


@method("sub", "__sub__")
def sub(input, other, *, alpha=1):
    if alpha != 1:
        other = mul(other, alpha)
    return binary(Sub, "sub", input, other)


@method("mul", "__mul__")
def mul(input, other):
    return binary(Mul, "mul", input, other)


@method("div", "__truediv__")
def div(input, other):
    return binary(Div, "div", input, other, float_result=True)


@method("pow", "__pow__")
def pow(input, exponent):
    _refuse_bool_power(input, exponent)
    return binary(Pow, "pow", input, exponent)


@method("maximum")
def maximum(input, other):
    return binary(Maximum, "maximum", input, other)


@method("minimum")
def minimum(input, other):
    return binary(Minimum, "minimum", input, other)


def where(condition, input, other):
    """Elements of `input` where `condition` holds, else of `other` (either may be a Python scalar)."""
    if not isinstance(condition, Tensor):
        raise TypeError(f"where: condition must be a bool Tensor, got {type(condition).__name__}")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        # Two Python numbers: each a 0-d tensor of its type's default dtype, then promoted (as torch).
        input, other = (_scalar_tensor(v, condition) for v in (input, other))
    input, other = binary_operands("where", input, other)
    check_devices("where", condition, input, other)
    cond = condition.array
    if dtype_of(cond) is not bool_:
        if dtype_of(cond) is not dtypes.uint8:  # torch still takes a uint8 mask (deprecated), nothing else
            raise RuntimeError(
                f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                f"{dtype_of(cond).name}; compare first (x > 0) or convert with .bool()"
            )
        cond = cond != 0
    try:
        return Where.apply(cond, input, other)
    except ValueError:
        from .operands import shape_of

        raise RuntimeError(
            f"where: shapes {tuple(cond.shape)}, {shape_of(input)} and {shape_of(other)} cannot be broadcast together"
        ) from None


def _scalar_tensor(value, like: Tensor) -> Tensor:
    """A Python number as a 0-d tensor on `like`'s device, in its type's default dtype."""
    if not isinstance(value, (bool, int, float)):
        raise TypeError(f"where: expected a Tensor or a number, got {type(value).__name__}")
    return wrap(from_data(value, like.device, dtypes.to_numpy(type(value))))


radd = _reflected(Add, "add", "__radd__")
rsub = _reflected(Sub, "sub", "__rsub__")
rmul = _reflected(Mul, "mul", "__rmul__")
rdiv = _reflected(Div, "div", "__rtruediv__", float_result=True)


@method_only("__rpow__")
def rpow(input, other):
    """number ** tensor."""
    _refuse_bool_power(other, input)
    return binary(Pow, "pow", other, input)


def _refuse_bool_power(input, exponent) -> None:
    """torch has no pow of a bool by a bool (NumPy would give int8)."""
    if is_bool(input) and is_bool(exponent):
        raise NotImplementedError("pow is not implemented for a bool base and a bool exponent; convert with .int()")


@method_only("where")
def tensor_where(self, condition, other):
    """x.where(condition, y) is where(condition, x, y)."""
    return where(condition, self, other)
