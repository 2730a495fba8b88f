"""Elementwise one-input ops (exp, log, tanh, relu, clamp, casts, ...) with their derivative rules."""

from __future__ import annotations

from .. import backend, dtypes
from ..backend import namespace
from ..function import Function
from ..tensor import Tensor, to_arguments, wrap
from .operands import tensor_input
from .tensor_methods import method, method_only


class Neg(Function):
    reads_inputs = ()

    def forward(self, x):
        try:
            return -x
        except TypeError:  # NumPy refuses a bool array: torch's RuntimeError, with its advice
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                "invert a mask, use the `~` or `logical_not()` operator instead."
            ) from None

    rule = "d(−x)/dx = −1"
    elementwise = True
    local = ("−1",)

    def backward(self, grad):
        return (-grad,)


class Exp(Function):
    reads_inputs = ()
    saves_output = True

    def forward(self, x):
        self.out = out = namespace(x).exp(x)
        return out

    rule = "d eˣ/dx = eˣ (the output)"
    elementwise = True
    local = ("{out}",)

    def backward(self, grad):
        return (grad * self.out,)


class Log(Function):
    def forward(self, x):
        self.x = x
        return namespace(x).log(x)

    rule = "d ln x/dx = 1/x"
    elementwise = True
    local = ("1/{x}",)

    def backward(self, grad):
        return (grad / self.x,)


class Log1p(Function):
    def forward(self, x):
        self.x = x
        return namespace(x).log1p(x)

    rule = "d ln(1+x)/dx = 1/(1+x)"
    elementwise = True
    local = ("1/(1+{x})",)

    def backward(self, grad):
        return (grad / (1 + self.x),)


class Log10(Function):
    def forward(self, x):
        self.x = x
        return namespace(x).log10(x)

    rule = "d log₁₀ x/dx = 1/(x·ln 10)"
    elementwise = True
    local = ("1/({x}·ln(10))",)

    def backward(self, grad):
        return (grad / (self.x * LN_10),)


LN_10 = 2.302585092994046  # as torch's log10 backward divides by it


class Sqrt(Function):
    reads_inputs = ()
    saves_output = True

    def forward(self, x):
        self.out = out = namespace(x).sqrt(x)
        return out

    rule = "d √x/dx = 1/(2·√x)"
    elementwise = True
    local = ("1/(2·{out})",)

    def backward(self, grad):
        return (grad / (2 * self.out),)


class Rsqrt(Function):
    reads_inputs = ()
    saves_output = True

    def forward(self, x):
        self.out = out = 1 / namespace(x).sqrt(x)
        return out

    rule = "d (1/√x)/dx = −½·x^(−3/2) = −½·out³"
    elementwise = True
    local = ("−½·{out}³",)

    def backward(self, grad):
        return (grad * -0.5 * self.out**3,)


class Abs(Function):
    def forward(self, x):
        self.x = x
        return namespace(x).abs(x)

    rule = "d |x|/dx = sign(x)"
    elementwise = True
    local = ("sign({x})",)

    def backward(self, grad):
        return (grad * namespace(grad).sign(self.x),)


class Sign(Function):
    reads_inputs = ()

    def forward(self, x):
        return namespace(x).sign(x)

    rule = "d sign(x)/dx = 0"
    elementwise = True
    local = ("0",)

    def backward(self, grad):
        return (grad * 0,)


class Sin(Function):
    def forward(self, x):
        self.x = x
        return namespace(x).sin(x)

    rule = "d sin x/dx = cos x"
    elementwise = True
    local = ("cos({x})",)

    def backward(self, grad):
        return (grad * namespace(grad).cos(self.x),)


class Asin(Function):
    def forward(self, x):
        self.x = x
        return namespace(x).asin(x)  # (the Array API's name; NumPy's arcsin is an alias)

    rule = "d asin x/dx = 1/√(1 − x²)"
    elementwise = True
    local = ("(1 − {x}²)^(−½)",)

    def backward(self, grad):
        return (grad / namespace(grad).sqrt(1 - self.x * self.x),)


class Cos(Function):
    def forward(self, x):
        self.x = x
        return namespace(x).cos(x)

    rule = "d cos x/dx = −sin x"
    elementwise = True
    local = ("−sin({x})",)

    def backward(self, grad):
        return (-grad * namespace(grad).sin(self.x),)


class Tanh(Function):
    reads_inputs = ()
    saves_output = True

    def forward(self, x):
        self.out = out = namespace(x).tanh(x)
        return out

    rule = "d tanh x/dx = 1 − tanh²x = 1 − out²"
    elementwise = True
    local = ("1 − {out}²",)

    def backward(self, grad):
        return (grad * (1 - self.out * self.out),)


class Sigmoid(Function):
    reads_inputs = ()
    saves_output = True

    def forward(self, x):
        xp = namespace(x)
        e = xp.exp(-xp.abs(x))  # never overflows, keeps precision far into both tails
        self.out = out = xp.where(x >= 0, 1 / (1 + e), e / (1 + e))
        return out

    rule = "d σ(x)/dx = σ(x)·(1 − σ(x)) = out·(1 − out)"
    elementwise = True
    local = ("{out}·(1 − {out})",)

    def backward(self, grad):
        return (grad * self.out * (1 - self.out),)


class Relu(Function):
    reads_inputs = ()
    saves_output = True

    def forward(self, x):
        self.out = out = namespace(x).maximum(x, 0)
        return out

    rule = "d relu(x)/dx = 1 if x > 0 else 0"
    elementwise = True
    local = ("({x} > 0)",)

    def backward(self, grad):
        return (backend.keep(grad, self.out > 0),)


class Clamp(Function):
    def forward(self, x, low, high):  # each bound: a number, an array or None
        xp = namespace(x)
        self.x, self.low, self.high = x, low, high
        if backend.is_array(low) or backend.is_array(high):
            # max then min, as PyTorch: an upper bound under the lower one wins (the standard's
            # clip leaves that undefined).
            out = x if low is None else xp.maximum(x, low)
            return out if high is None else xp.minimum(out, high)
        return xp.clip(x, low, high)

    rule = "d clamp(x, lo, hi)/dx = 1 if lo ≤ x ≤ hi else 0    d/dlo = 1 if x < lo    d/dhi = 1 if x > hi"
    elementwise = True
    local = ("({low} ≤ {x} ≤ {high})", "({x} < {low})", "({x} > {high})")

    def backward(self, grad):
        # x gets the grad where low <= x <= high (bounds included, NaN excluded); a tensor bound gets
        # it where x strictly crosses it (and the upper one where it is under the lower), as PyTorch.
        x, low, high = self.x, self.low, self.high
        need_x, need_low, need_high = self.needs_input_grad
        inside = True
        if low is not None:
            inside = x >= low
        if high is not None:
            inside = inside & (x <= high)
        grad_low = grad_high = None
        if need_low:
            below = x < low if high is None else (x < low) & (low < high)
            grad_low = namespace(grad).where(below, grad, 0)
        if need_high:
            above = x > high if low is None else (x > high) | (high < low)
            grad_high = namespace(grad).where(above, grad, 0)
        return (backend.keep(grad, inside) if need_x else None), grad_low, grad_high

    @classmethod
    def local_for(cls, args):
        # A bound left out is recorded as None; a tensor bound is an input, so not among the args.
        low, high = args.get("low", True) is not None, args.get("high", True) is not None
        if low == high:
            return cls.local
        return ("({low} ≤ {x})", "({x} < {low})", "") if low else ("({x} ≤ {high})", "", "({x} > {high})")


class Cast(Function):
    reads_inputs = ()

    def forward(self, x, dtype):  # dtype: the array library's own
        self.source = x.dtype
        return backend.astype(x, dtype)

    rule = "d cast(x)/dx = 1 (the grad is cast back to x's dtype)"

    def backward(self, grad):
        return backend.astype(grad, self.source), None


class Clone(Function):
    reads_inputs = ()

    def forward(self, x):
        return backend.copy(x)

    rule = "d clone(x)/dx = 1"
    elementwise = True
    local = ("1",)

    def backward(self, grad):
        return (grad,)


@method_only("contiguous")
def contiguous(input: Tensor) -> Tensor:
    """`input` itself when its array is row-major already, else a row-major copy (as torch, a clone)."""
    flags = getattr(input.array, "flags", None)
    if flags is None or flags.c_contiguous:
        return input
    return Clone.apply(input)


class ToDevice(Function):
    reads_inputs = ()

    def forward(self, x, device):
        self.source = backend.device_of(x)
        return backend.to_device(x, device)

    rule = "d x.to(device)/dx = 1 (the grad moves back to x's device)"

    def backward(self, grad):
        return backend.to_device(grad, self.source), None


def as_floating(x: Tensor) -> Tensor:
    """`x` as a float tensor: float ops on integer tensors compute in the default float dtype, as PyTorch."""
    return x if backend.is_floating(x.array) else cast(x, dtypes.get_default_dtype())


# --- the elementwise ops' registry ---------------------------------------------------------------
# To add an elementwise op: write its Function above (forward and backward side by side), add
# one `elementwise(...)` line below, and one row to UNARY in tests/engine/test_ops_unary.py.
# The line makes the function (gs.<name>, through ops/__init__), the method Tensor.<name>, and,
# with functional=True, nn.functional.<name>; the README's API list is generated from those.

ELEMENTWISE: dict = {}  # name -> function, for ops/__init__ (gs.<name>)
FUNCTIONAL: dict = {}  # name -> function, the ones torch also has in nn.functional


def elementwise(cls, name: str, floating: bool, functional: bool = False):
    """Register the one-input op `cls` as `name`; `floating` ops compute integers in the default
    float dtype. The function is also the Tensor method (`x.exp()` calls it with x as input)."""

    def op(input):
        tensor_input(input, name)
        return cls.apply(as_floating(input) if floating else input)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} (as torch.{name})."
    ELEMENTWISE[name] = op
    if functional:
        FUNCTIONAL[name] = op
    return method(name)(op)


neg = elementwise(Neg, "neg", floating=False)
abs = elementwise(Abs, "abs", floating=False)
sign = elementwise(Sign, "sign", floating=False)
relu = elementwise(Relu, "relu", floating=False)  # nn.functional.relu has its own (inplace=)
exp = elementwise(Exp, "exp", floating=True)
log = elementwise(Log, "log", floating=True)
log1p = elementwise(Log1p, "log1p", floating=True)
log10 = elementwise(Log10, "log10", floating=True)
sqrt = elementwise(Sqrt, "sqrt", floating=True)
rsqrt = elementwise(Rsqrt, "rsqrt", floating=True)
sin = elementwise(Sin, "sin", floating=True)
cos = elementwise(Cos, "cos", floating=True)
asin = elementwise(Asin, "asin", floating=True)
tanh = elementwise(Tanh, "tanh", floating=True, functional=True)
sigmoid = elementwise(Sigmoid, "sigmoid", floating=True, functional=True)
method("__neg__")(neg)  # -x
method("__abs__")(abs)  # abs(x)


@method("clamp", "clip")
def clamp(input, min=None, max=None):
    tensor_input(input, "clamp")
    if min is None and max is None:
        raise RuntimeError("clamp: at least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        input, min, max = _promoted_bounds(input, min, max)
    elif not backend.is_floating(input.array):
        if isinstance(min, float) or isinstance(max, float):
            input = as_floating(input)
        elif input.dtype is not dtypes.bool_:  # int bounds wrap into the tensor's dtype, as torch converts them
            min, max = (b if b is None else dtypes.wrapped(input.dtype, int(b)) for b in (min, max))
    return Clamp.apply(input, min, max)


def _promoted_bounds(input, low, high):
    """The input and its tensor bounds in one dtype on one device, as PyTorch promotes them."""
    from .operands import binary_operands

    for bound in (low, high):
        if isinstance(bound, Tensor):
            input = binary_operands("clamp", input, bound)[0]
    return (input,) + tuple(cast(b, input.dtype) if isinstance(b, Tensor) else b for b in (low, high))


def cast(input: Tensor, dtype) -> Tensor:
    """`input` converted to `dtype` (graphscope or NumPy dtype); differentiable between floats."""
    target = dtypes.from_any(dtype)
    array = input.array
    if backend.dtype_of(array) is target:
        return input
    native = backend.native_dtype(target, array)
    if not target.is_floating_point:
        return wrap(backend.astype(array, native))
    return Cast.apply(input, native)


@method("clone")
def clone(input: Tensor) -> Tensor:
    return Clone.apply(input)


def to_device(input: Tensor, device) -> Tensor:
    if backend.device_of(input.array) == device:
        return input
    return ToDevice.apply(input, device)


@method_only("to")
def to(self, *args, **kwargs):
    """to(dtype), to(device), to(device, dtype), to(other): a converted tensor (self if unchanged)."""
    copy = kwargs.pop("copy", False)
    device, dtype = to_arguments(args, kwargs)
    out = self
    if device is not None:
        out = to_device(out, backend.as_device(device))
    if dtype is not None:
        out = cast(out, dtype)
    if copy and out is self:
        out = clone(self)
    return out
