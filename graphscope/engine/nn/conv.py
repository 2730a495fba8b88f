"""Conv1d and Conv2d: convolution layers with PyTorch's parameters, init and padding modes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from .convolution import conv1d, conv2d, expand
from .linear import add_weight_and_bias, reset_weight_and_bias
from .module import Module
from .padding import pad

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """What Conv1d and Conv2d share: weight (out, in / groups, *kernel), bias (out,), and the checks."""

    spatial = 0
    function: ClassVar[Callable[..., Any] | None] = None  # conv1d or conv2d

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        super().__init__()
        n = self.spatial
        if not isinstance(groups, int) or groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        kernel_size, stride, dilation = (
            expand(v, n, name) for v, name in ((kernel_size, "kernel_size"), (stride, "stride"), (dilation, "dilation"))
        )
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = expand(padding, n, "padding")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {{{', '.join(map(repr, _PADDING_MODES))}}}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.transposed, self.output_padding = False, (0,) * n
        self.groups, self.padding_mode = groups, padding_mode
        self._pad_twice = _reversed_padding_twice(padding, kernel_size, dilation)
        add_weight_and_bias(self, (out_channels, in_channels // groups) + kernel_size, bias, device, dtype)

    def reset_parameters(self):
        reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input):
        function = type(self).function
        if self.padding_mode != "zeros":
            padded = pad(input, self._pad_twice, mode=self.padding_mode)
            return function(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return function(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        n = self.spatial
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


def _reversed_padding_twice(padding, kernel_size, dilation):
    """F.pad's argument for this padding: (last before, last after, ...), 'same' split as torch."""
    if padding == "valid":
        return (0, 0) * len(kernel_size)
    pads = []
    for i in reversed(range(len(kernel_size))):
        if padding == "same":
            total = dilation[i] * (kernel_size[i] - 1)
            pads += [total // 2, total - total // 2]
        else:
            pads += [padding[i], padding[i]]
    return tuple(pads)


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L) or (C_in, L)."""

    spatial = 1
    function = staticmethod(conv1d)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) or (C_in, H, W)."""

    spatial = 2
    function = staticmethod(conv2d)
