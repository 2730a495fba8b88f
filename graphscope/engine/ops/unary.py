"""Elementwise one-input ops (exp, log, tanh, relu, clamp, casts, ...) with their derivative rules."""

from __future__ import annotations

from .. import backend, dtypes
from ..backend import namespace
from ..function import Function
from ..tensor import Tensor, wrap


class Neg(Function):
    saved_inputs = ()

    def forward(self, x):
        return -x

    def backward(self, grad):
        return (-grad,)


class Exp(Function):
    saved_inputs = ()
    saves_output = True

    def forward(self, x):
        self.out = out = namespace(x).exp(x)
        return out

    def backward(self, grad):
        return (grad * self.out,)


class Log(Function):
    def forward(self, x):
        self.x = x
        return namespace(x).log(x)

    def backward(self, grad):
        return (grad / self.x,)


class Log1p(Function):
    def forward(self, x):
        self.x = x
        return namespace(x).log1p(x)

    def backward(self, grad):
        return (grad / (1 + self.x),)


class Sqrt(Function):
    saved_inputs = ()
    saves_output = True

    def forward(self, x):
        self.out = out = namespace(x).sqrt(x)
        return out

    def backward(self, grad):
        return (grad / (2 * self.out),)


class Rsqrt(Function):
    saved_inputs = ()
    saves_output = True

    def forward(self, x):
        self.out = out = 1 / namespace(x).sqrt(x)
        return out

    def backward(self, grad):
        return (grad * -0.5 * self.out**3,)


class Abs(Function):
    def forward(self, x):
        self.x = x
        return namespace(x).abs(x)

    def backward(self, grad):
        return (grad * namespace(grad).sign(self.x),)


class Sign(Function):
    saved_inputs = ()

    def forward(self, x):
        return namespace(x).sign(x)

    def backward(self, grad):
        return (grad * 0,)


class Sin(Function):
    def forward(self, x):
        self.x = x
        return namespace(x).sin(x)

    def backward(self, grad):
        return (grad * namespace(grad).cos(self.x),)


class Cos(Function):
    def forward(self, x):
        self.x = x
        return namespace(x).cos(x)

    def backward(self, grad):
        return (-grad * namespace(grad).sin(self.x),)


class Tanh(Function):
    saved_inputs = ()
    saves_output = True

    def forward(self, x):
        self.out = out = namespace(x).tanh(x)
        return out

    def backward(self, grad):
        return (grad * (1 - self.out * self.out),)


class Sigmoid(Function):
    saved_inputs = ()
    saves_output = True

    def forward(self, x):
        xp = namespace(x)
        e = xp.exp(-xp.abs(x))  # never overflows, keeps precision far into both tails
        self.out = out = xp.where(x >= 0, 1 / (1 + e), e / (1 + e))
        return out

    def backward(self, grad):
        return (grad * self.out * (1 - self.out),)


class Relu(Function):
    saved_inputs = ()
    saves_output = True

    def forward(self, x):
        self.out = out = namespace(x).maximum(x, 0)
        return out

    def backward(self, grad):
        return (backend.keep(grad, self.out > 0),)


class Clamp(Function):
    def forward(self, x, low, high):
        self.x, self.low, self.high = x, low, high
        return namespace(x).clip(x, low, high)

    def backward(self, grad):
        # The gradient passes where low <= x <= high (bounds included), as PyTorch.
        x, inside = self.x, True
        if self.low is not None:
            inside = x >= self.low
        if self.high is not None:
            inside = inside & (x <= self.high)
        return backend.keep(grad, inside), None, None


class Cast(Function):
    saved_inputs = ()

    def forward(self, x, dtype):  # dtype: the array library's own
        self.source = x.dtype
        return backend.astype(x, dtype)

    def backward(self, grad):
        return backend.astype(grad, self.source), None


class Clone(Function):
    saved_inputs = ()

    def forward(self, x):
        return backend.copy(x)

    def backward(self, grad):
        return (grad,)


class ToDevice(Function):
    saved_inputs = ()

    def forward(self, x, device):
        self.source = backend.device_of(x)
        return backend.to_device(x, device)

    def backward(self, grad):
        return backend.to_device(grad, self.source), None


def _floating(x: Tensor) -> Tensor:
    """Float ops on integer tensors compute in the default float dtype, as PyTorch."""
    return x if backend.is_floating(x.array) else cast(x, dtypes.get_default_dtype())


def _check(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be a Tensor, not {type(x).__name__}")


def _elementwise(cls, name: str, floating: bool):
    """The function for a one-input op; `floating` ops compute integers in the default float dtype."""

    def op(input):
        _check(input, name)
        return cls.apply(_floating(input) if floating else input)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} (as torch.{name})."
    return op


neg = _elementwise(Neg, "neg", floating=False)
abs = _elementwise(Abs, "abs", floating=False)
sign = _elementwise(Sign, "sign", floating=False)
relu = _elementwise(Relu, "relu", floating=False)
exp = _elementwise(Exp, "exp", floating=True)
log = _elementwise(Log, "log", floating=True)
log1p = _elementwise(Log1p, "log1p", floating=True)
sqrt = _elementwise(Sqrt, "sqrt", floating=True)
rsqrt = _elementwise(Rsqrt, "rsqrt", floating=True)
sin = _elementwise(Sin, "sin", floating=True)
cos = _elementwise(Cos, "cos", floating=True)
tanh = _elementwise(Tanh, "tanh", floating=True)
sigmoid = _elementwise(Sigmoid, "sigmoid", floating=True)


def clamp(input, min=None, max=None):
    _check(input, "clamp")
    if min is None and max is None:
        raise RuntimeError("clamp: at least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        from .arithmetic import maximum, minimum

        out = input
        if min is not None:
            out = maximum(out, min)
        if max is not None:
            out = minimum(out, max)
        return out
    if not backend.is_floating(input.array) and (isinstance(min, float) or isinstance(max, float)):
        input = _floating(input)
    return Clamp.apply(input, min, max)


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


def clone(input: Tensor) -> Tensor:
    return Clone.apply(input)


def to_device(input: Tensor, device) -> Tensor:
    if backend.device_of(input.array) == device:
        return input
    return ToDevice.apply(input, device)
