"""F.dropout2d: dropout that zeroes whole channels, one draw per (sample, channel)."""

from __future__ import annotations

import warnings

from ..tensor import Tensor, wrap
from . import functional_ops as P
from .functional import dropout_mask


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero each channel input[n, c] with probability p and scale the rest by 1/(1-p)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not isinstance(input, Tensor):
        raise TypeError(f"dropout2d(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will result in "
            "an error in a future release. To retain the behavior and silence this warning, please use dropout "
            "instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
            "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
            "instead.",
            stacklevel=2,
        )
    if not training or p == 0.0:
        return input
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return P.Dropout.apply(input, wrap(dropout_mask(input, p, shape)))
