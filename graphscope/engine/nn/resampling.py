"""adaptive_avg_pool2d and interpolate: each output a weighted sum of a few inputs along each axis."""

from __future__ import annotations

import math
import numbers
import struct

from .. import backend, dtypes
from ..backend import namespace
from ..function import Function
from ..tensor import Tensor


class Resample(Function):
    """Along each resampled axis, output o = sum over taps t of weight_t[o] * input[index_t[o]].

    A primitive so that backward scatters the same taps back: a dense resampling matrix would be
    shorter to write, but would spread one NaN or inf over a whole row of the result.
    `taps` is ((axis, ((index, weight or None, mask or None), ...)), ...) with negative axes.
    """

    op = "resample"
    reads_inputs = ()

    def forward(self, x, taps=()):
        self.taps, self.shapes = taps, []
        if not taps:
            return backend.copy(x)  # nothing to resample: still a new array, as every op's output
        for axis, pairs in taps:
            self.shapes.append(x.shape)
            x = _along(x, axis, pairs)
        return x

    rule = "y[o] = Σₜ wₜ[o]·x[iₜ[o]]:  dx[iₜ[o]] += wₜ[o]·dOut[o] (the same taps, scattered back)"

    def backward(self, grad):
        for (axis, pairs), shape in zip(reversed(self.taps), reversed(self.shapes)):
            g = backend.zeros(shape, grad.dtype, like=grad)
            for positions, weight, mask in pairs:
                part = grad if weight is None else _weighted(grad, weight, mask)
                backend.scatter_add(g, (Ellipsis, positions) + (slice(None),) * (-axis - 1), part)
            grad = g
        return (grad,)


class AdaptiveAvgPool2d(Resample):
    op = "adaptive_avg_pool2d"
    rule = "d avg/dx = 1/window size for each element of a window (grad spread evenly over it)"


class Upsample(Resample):
    op = "upsample"
    rule = "y[o] = Σₜ wₜ[o]·x[iₜ[o]]:  dx[iₜ[o]] += wₜ[o]·dOut[o] (nearest: each output's grad goes to its source)"


def _along(x, axis, pairs):
    xp = namespace(x)
    total = None
    for index, weight, mask in pairs:
        part = xp.take(x, index, axis=axis % x.ndim)
        if weight is not None:
            part = _weighted(part, weight, mask)
        total = part if total is None else total + part
    return total


def _weighted(values, weight, mask):
    """values * weight, exactly 0 where `mask` is False (a padding tap: no 0 * inf = nan)."""
    out = values * weight
    return out if mask is None else namespace(out).where(mask, out, 0)


def axis_taps(like, axis, indices, weights=None):
    """One tap list on `like`'s device: per tap an index list and a weight list (None: all 1)."""
    shape = (-1,) + (1,) * (-axis - 1)
    pairs = []
    for t, index in enumerate(indices):
        positions = backend.asarray(index, like=like, dtype=backend.native_dtype(dtypes.int64, like))
        weight = mask = None
        if weights is not None:
            weight = backend.reshape(backend.asarray(weights[t], like=like, dtype=like.dtype), shape)
            if 0.0 in weights[t]:
                mask = weight != 0
        pairs.append((positions, weight, mask))
    return axis, tuple(pairs)


# --- adaptive average pooling ----------------------------------------------------------------


def _bins(size, out):
    """PyTorch's adaptive pooling bins: output i averages input[floor(i n / o) : ceil((i + 1) n / o)]."""
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


def _average_taps(like, axis, size, out):
    bins = _bins(size, out)
    longest = max((end - start for start, end in bins), default=0)
    indices = [[min(start + t, end - 1) for start, end in bins] for t in range(longest)]
    weights = [[1.0 / (end - start) if start + t < end else 0.0 for start, end in bins] for t in range(longest)]
    return axis_taps(like, axis, indices, weights)


def adaptive_avg_pool2d(input, output_size):
    """Average (N, C, H, W) or (C, H, W) over output_size bins (None keeps that axis's size)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"adaptive_avg_pool2d(): argument 'input' must be Tensor, not {type(input).__name__}")
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 2:
            raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    else:
        output_size = (output_size, output_size)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    sizes = input.shape[-2:]
    out = [n if o is None else o for n, o in zip(sizes, output_size)]
    if any(not isinstance(o, numbers.Integral) or o < 0 for o in out):
        raise RuntimeError(
            f"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
            f"but received {tuple(output_size)}"
        )
    if 0 in sizes:
        raise RuntimeError(
            f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
            f"dimensions, but input has sizes {list(input.shape)} with dimension "
            f"{input.ndim - 2 + sizes.index(0)} being empty"
        )
    taps = tuple(_average_taps(input.array, axis, n, o) for axis, n, o in zip((-2, -1), sizes, out) if n != o)
    return AdaptiveAvgPool2d.apply(input, taps=taps)


# --- interpolate -------------------------------------------------------------------------------

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_SPATIAL = {"linear": 1, "bilinear": 2}


def _float32(value: float) -> float:
    """`value` rounded to float32: PyTorch computes nearest-neighbour source indices in float."""
    return struct.unpack("f", struct.pack("f", value))[0]


def _nearest_taps(like, axis, size, out, scale, exact):
    """Nearest source index, as PyTorch: floor(o * scale), or floor((o + 0.5) * scale) when exact."""
    scale = _float32(1.0 / scale if scale else size / out)
    offset = 0.5 if exact else 0.0
    index = [min(math.floor(_float32((o + offset) * scale)), size - 1) for o in range(out)]
    return axis_taps(like, axis, [index])


def _linear_taps(like, axis, size, out, scale, align_corners):
    """The two neighbours of each output's source position and their weights, as PyTorch."""
    if align_corners:  # noqa: SIM108 (two rules, each with its own condition: nested ternaries read worse)
        ratio = (size - 1) / (out - 1) if out > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale else size / out
    first, second, near, far = [], [], [], []
    for o in range(out):
        source = ratio * o if align_corners else max(ratio * (o + 0.5) - 0.5, 0.0)
        i = int(source)
        lam = min(max(source - i, 0.0), 1.0)
        first.append(i)
        second.append(i + 1 if i < size - 1 else i)
        near.append(1.0 - lam)
        far.append(lam)
    return axis_taps(like, axis, [first, second], [near, far])


def _per_axis(value, sizes, names):
    """`value` (one number or one per spatial axis) as a list, torch's error if the count is wrong."""
    values = list(value) if isinstance(value, (tuple, list)) else [value] * len(sizes)
    if len(values) != len(sizes):
        name, described, letter = names
        raise ValueError(
            f"Input and {name} must have the same number of spatial dimensions, but got input with spatial "
            f"dimensions of {sizes} and {described} {value}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
            f"format and {described.rpartition(' of')[0]} in ({letter}1, {letter}2, ...,{letter}K) format."
        )
    return values


def _output_sizes(input, size, scale_factor, recompute_scale_factor):
    """(output sizes, scale factors PyTorch uses for the source indices: None means in / out)."""
    sizes = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        out = _per_axis(size, sizes, ("output", "output size of", "o"))
        return [int(o) for o in out], [None] * len(sizes)
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    scales = _per_axis(scale_factor, sizes, ("scale_factor", "scale_factor of shape", "s"))
    out = [math.floor(float(n) * float(s)) for n, s in zip(sizes, scales)]
    return out, [None] * len(sizes) if recompute_scale_factor else [float(s) for s in scales]


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """Resize (N, C, W) or (N, C, H, W) by nearest, nearest-exact, (bi)linear or area interpolation."""
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate(): argument 'input' must be Tensor, not {type(input).__name__}")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    if input.ndim not in (3, 4, 5) or mode not in (
        "nearest",
        "nearest-exact",
        "area",
        "linear",
        "bilinear",
        "bicubic",
        "trilinear",
    ):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) "
            f"for the modes: {_MODES} (got {mode})"
        )
    needed = _SPATIAL.get(mode)
    if needed is not None and input.ndim != needed + 2:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {needed + 2}D input")
    if input.ndim == 5 or mode in ("bicubic", "trilinear"):
        raise NotImplementedError(
            f"interpolate: mode '{mode}' on {input.ndim}D input is not supported by "
            "graphscope yet (nearest, nearest-exact, linear, bilinear and area are)"
        )
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported by graphscope yet")
    out, scales = _output_sizes(input, size, scale_factor, recompute_scale_factor)
    sizes = list(input.shape[2:])
    if min(out) <= 0 or min(sizes) <= 0:
        names = "HW"[2 - len(sizes) :]
        given = ", ".join(f"{k}: {v}" for k, v in zip(names, sizes))
        wanted = ", ".join(f"{k}: {v}" for k, v in zip(names, out))
        joint = " and" if len(sizes) == 1 else ""  # torch's two messages differ by this word
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({given}){joint} output ({wanted})"
        )
    if not input.is_floating_point():
        raise NotImplementedError(f"interpolate: {input.dtype} input is not supported; convert it with .float()")
    if mode == "area":
        return adaptive_avg_pool2d(input, out) if input.ndim == 4 else _area_1d(input, out[0])
    axes = range(-len(sizes), 0)
    taps = []
    for axis, n, o, s in zip(axes, sizes, out, scales):
        if mode in ("nearest", "nearest-exact"):
            if n != o or mode == "nearest-exact":
                taps.append(_nearest_taps(input.array, axis, n, o, s, exact=mode == "nearest-exact"))
        else:
            taps.append(_linear_taps(input.array, axis, n, o, s, align_corners))
    return Upsample.apply(input, taps=tuple(taps))


def _area_1d(input, out):
    return AdaptiveAvgPool2d.apply(input, taps=(_average_taps(input.array, -1, input.shape[-1], out),))
