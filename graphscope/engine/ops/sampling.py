"""Sampling from distributions (multinomial, normal, bernoulli, poisson), from a given or the global generator."""

from __future__ import annotations

import numpy as np

from .. import backend, dtypes
from ..backend import namespace
from ..function import Function
from ..random import drawing
from ..tensor import Tensor, wrap
from .operands import broadcast_error, device_error, tensor_input
from .tensor_methods import method

_FLOAT64 = dtypes.float64


class _Draw(Function):
    """A sample's grads with respect to its parameters are zero, as torch's (no reparameterisation)."""

    operands = ()  # (shape, native dtype) of each array input, None for a number

    rule = "a random sample: its grad with respect to its parameters is 0 (no reparameterisation)"

    def backward(self, grad):
        return tuple(None if like is None else backend.zeros(like[0], like[1], grad) for like in self.operands)


def _likes(*values) -> tuple:
    return tuple((v.shape, v.dtype) if backend.is_array(v) else None for v in values)


class Normal(_Draw):
    """mean + std * z, z standard normal in the result's `dtype` and `shape`."""

    def forward(self, mean, std, generator, shape, dtype):
        self.operands = _likes(mean, std)
        z = generator.normal(shape, dtype)
        return z * _as(std, z) + _as(mean, z)

    rule = "d normal(mean, std)/d(mean, std) = 0 (a sample, not reparameterised)"


class Bernoulli(_Draw):
    """1 with probability p (the input's values, or the float p), else 0, in the input's dtype."""

    def forward(self, input, p, generator):
        self.operands = _likes(input)
        hits = uniform_like(generator, input) < (input if p is None else p)
        return backend.astype(hits, input.dtype)

    rule = "d bernoulli(p)/dp = 0 (a sample)"


class Poisson(_Draw):
    """A Poisson count for each rate, in the rates' dtype."""

    def forward(self, rates, generator):
        self.operands = _likes(rates)
        return generator.poisson(rates, backend.dtype_of(rates))

    rule = "d poisson(rate)/d rate = 0 (a sample)"


def _as(value, like):
    """An array operand in `like`'s dtype (numbers stay numbers)."""
    if backend.is_array(value) and value.dtype != like.dtype:
        return backend.astype(value, like.dtype)
    return value


def uniform_like(generator, array):
    """Uniform [0, 1) draws of `array`'s shape, in its dtype if that is float32/64, else float64."""
    dtype = backend.dtype_of(array)
    return generator.uniform(0.0, 1.0, array.shape, dtype if dtype in (dtypes.float32, _FLOAT64) else _FLOAT64)


def _floating(tensor: Tensor, op: str, hint: str) -> None:
    if not tensor.dtype.is_floating_point:
        raise NotImplementedError(f"{op}() is not implemented for {tensor.dtype.name} tensors; {hint}")


def _any(condition) -> bool:
    return bool(backend.scalar(namespace(condition).any(condition)))


# --- multinomial -----------------------------------------------------------------------------------


@method("multinomial")
def multinomial(input, num_samples, replacement=False, *, generator=None) -> Tensor:
    """Category indices drawn from each row of `input` (unnormalised probabilities), as int64."""
    tensor_input(input, "multinomial")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim (got {input.ndim} dims)")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype.name}")
    if not isinstance(num_samples, int) or isinstance(num_samples, bool):
        raise TypeError(
            f"multinomial(): argument 'num_samples' (position 2) must be int, not {type(num_samples).__name__}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement "
            f"({num_samples} > {categories}); pass replacement=True to draw a category again"
        )
    rng = drawing(generator, input.device, "multinomial")
    probs = backend.reshape(input.array, (-1, categories))
    probs = backend.astype(probs, backend.native_dtype(_FLOAT64, probs))
    if probs.shape[0]:
        _check_distributions(probs)
        draws = (_with_replacement if replacement else _without_replacement)(probs, num_samples, rng)
    else:
        draws = backend.zeros((0, num_samples), backend.native_dtype(dtypes.int64, probs), probs)
    return wrap(backend.reshape(draws, tuple(input.shape[:-1]) + (num_samples,)))


def _check_distributions(probs) -> None:
    """torch's checks on every row, read back from the device in one copy."""
    xp = namespace(probs)
    invalid, total = backend.scalars([xp.any(~xp.isfinite(probs) | (probs < 0)), xp.min(xp.sum(probs, axis=-1))])
    if invalid:
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if total <= 0:
        raise RuntimeError(
            "invalid multinomial distribution (sum of probabilities <= 0): every row needs a positive probability"
        )


def _without_replacement(probs, num_samples: int, rng):
    # Efraimidis-Spirakis: the largest keys u ** (1 / p) (here their logs) are a weighted draw
    # without replacement; zero-probability categories get -inf and come last (as torch on the
    # CPU, which draws them rather than fail when a row has too few positive ones).
    xp = namespace(probs)
    positive = probs > 0
    logs = xp.log(uniform_like(rng, probs)) / xp.where(positive, probs, xp.ones_like(probs))
    return xp.argsort(-xp.where(positive, logs, xp.full_like(probs, -xp.inf)), axis=-1)[:, :num_samples]


def _with_replacement(probs, num_samples: int, rng):
    # Inverse CDF for all rows with one searchsorted: row i's normalised CDF is shifted into
    # [2i, 2i + 1], so the rows never overlap in the one sorted array.
    xp = namespace(probs)
    rows, categories = probs.shape
    cdf = xp.cumulative_sum(probs, axis=-1)
    cdf = cdf / cdf[:, -1:]
    row = backend.arange(rows, backend.reshape(probs, (-1,)))[:, None]
    shift = backend.astype(row, probs.dtype) * 2.0
    u = rng.uniform(0.0, 1.0, (rows, num_samples), _FLOAT64)
    found = xp.searchsorted(xp.reshape(cdf + shift, (-1,)), xp.reshape(u + shift, (-1,)), side="right")
    found = xp.reshape(backend.astype(found, row.dtype), (rows, num_samples)) - row * categories
    # A CDF rounded just under 1 can let u pass the last category; the last positive one is meant.
    index = backend.arange(categories, row)
    last = xp.max(xp.where(probs > 0, index, xp.zeros_like(index)), axis=-1)
    return xp.minimum(found, last[:, None])


# --- normal, bernoulli, poisson --------------------------------------------------------------------


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Normal samples: elementwise for tensor mean and/or std, else `size` of them (torch.normal's overloads)."""
    for name, value in (("mean", mean), ("std", std)):
        if not isinstance(value, (Tensor, int, float)) or isinstance(value, bool):
            raise TypeError(f"normal(): {name} must be a tensor or a number, not {type(value).__name__}")
    tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
    if tensors:
        shape, dtype, device = _elementwise_normal(mean, std, size, dtype, device, tensors)
    else:
        from ..creation import float_or_default, sizes_of

        if size is None:
            raise TypeError(
                "normal(): with a number for both mean and std, pass size=, e.g. normal(0.0, 1.0, size=(3,))"
            )
        shape, dtype, device = sizes_of((size,)), float_or_default(dtype), backend.as_device(device)
        if not dtype.is_floating_point:
            raise NotImplementedError(f"normal() is not implemented for {dtype.name}; ask for a floating point dtype")
    if isinstance(std, Tensor):
        if _any(std.array < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    out = Normal.apply(mean, std, generator=drawing(generator, device, "normal"), shape=shape, dtype=dtype)
    return out.requires_grad_(True) if requires_grad else out


def _elementwise_normal(mean, std, size, dtype, device, tensors):
    """The result's shape, dtype and device when mean or std is a tensor."""
    if size is not None or dtype is not None or device is not None:
        raise TypeError(
            "normal(): size, dtype and device go with a number for both mean and std; with a tensor "
            "mean or std the result takes its shape, dtype and device"
        )
    first = tensors[0]
    _floating(first, "normal", "use a floating point mean and std (e.g. mean.float())")
    if len(tensors) == 2:
        if first.device != std.device:
            raise device_error("normal", first.device, std.device)
        error = broadcast_error("normal", mean, std)
        if error is not None:
            raise error
    return np.broadcast_shapes(*(t.shape for t in tensors)), first.dtype, first.device


@method("bernoulli")
def bernoulli(input, p=None, *, generator=None) -> Tensor:
    """1 with probability input (or the float p), else 0, in the input's dtype and shape."""
    tensor_input(input, "bernoulli")
    if p is None:
        _floating(input, "bernoulli", "use a floating point tensor of probabilities (e.g. input.float())")
    checked_probabilities(input if p is None else p, "bernoulli")
    return Bernoulli.apply(input, p=p, generator=drawing(generator, input.device, "bernoulli"))


def checked_probabilities(p, op: str):
    """`p` (a float, or a tensor of floats) if it lies in [0, 1]; else torch's errors."""
    if isinstance(p, Tensor):
        if _any(~((p.array >= 0) & (p.array <= 1))):
            raise RuntimeError(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false. "
                f"({op}: every probability must lie in [0, 1], and none may be nan)"
            )
        return p
    if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return p


def poisson(input, generator=None) -> Tensor:
    """A Poisson count for each rate in `input`, in its (floating point) dtype."""
    tensor_input(input, "poisson")
    _floating(input, "poisson", "use a floating point tensor of rates (e.g. input.float())")
    if _any(~(input.array >= 0)):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative (and not nan)")
    return Poisson.apply(input, generator=drawing(generator, input.device, "poisson"))
