"""Linear, Identity and Flatten: the layers that reshape or map features without a nonlinearity."""

from __future__ import annotations

import math

from .. import backend, dtypes
from ..tensor import wrap
from . import functional_ops as P
from . import init
from .module import Module
from .parameter import Parameter


def empty_parameter(shape, device=None, dtype=None) -> Parameter:
    """An uninitialised Parameter of `shape` on `device` (default device) with `dtype` (default float)."""
    device = backend.as_device(device)
    dtype = dtype or dtypes.get_default_dtype()
    if not dtype.is_floating_point:
        raise TypeError(f"parameters must have a floating point dtype, got {dtype}")
    return Parameter(wrap(backend.create(device, "empty", shape, dtype=backend.native_dtype_for(dtype, device))))


def add_weight_and_bias(module, weight_shape, bias, device=None, dtype=None) -> None:
    """module.weight of `weight_shape` and module.bias (or None) of its first dim, initialised by
    module.reset_parameters(): what Linear and the convolutions share."""
    module.weight = empty_parameter(weight_shape, device, dtype)
    if bias:
        module.bias = empty_parameter(weight_shape[:1], device, dtype)
    else:
        module.register_parameter("bias", None)
    module.reset_parameters()


def reset_weight_and_bias(weight, bias) -> None:
    """PyTorch's default init of Linear and Conv: kaiming_uniform_(a=sqrt(5)), bias U(+-1/sqrt(fan_in))."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in = math.prod(weight.shape[1:])
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Identity(Module):
    """Returns its input unchanged (a placeholder that keeps a model's structure)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x @ W.T + b, with PyTorch's default init (kaiming_uniform_(a=sqrt(5)), bias U(+-1/sqrt(fan_in)))."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        add_weight_and_bias(self, (out_features, in_features), bias, device, dtype)

    def reset_parameters(self):
        reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input):
        bias = self.bias
        if bias is None:
            return P.Linear.apply(input, self.weight)
        return P.Linear.apply(input, self.weight, bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Flatten(Module):
    """Flattens dims start_dim..end_dim into one (by default all but the batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dim `dim` into `unflattened_size` (the inverse of Flatten)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        dim = self.dim % input.ndim if input.ndim else 0
        shape = tuple(input.shape)
        return input.reshape(shape[:dim] + tuple(self.unflattened_size) + shape[dim + 1 :])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
