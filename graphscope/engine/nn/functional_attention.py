"""scaled_dot_product_attention from the engine's primitives, so each score, mask and weight is a node.

softmax((q @ kᵀ) · scale + mask) @ v, as torch 2.13 computes it on the CPU: a bool mask keeps the
positions that are True, a float mask is added, `is_causal` keeps each query to the keys at or
before it, and a query row whose every key is masked gets zero weights (torch's output there is 0,
not NaN). The masks and the bias they become are built without grad, outside the graph; in the
scores a masked position holds -1e9 where torch's hold -inf (the same weights).
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..creation import ones, zeros
from ..ops.operands import tensor_input
from . import functional as F

# float16's lowest finite number: the only float dtype whose range ends above MASKED.
FLOAT16_LOWEST = -65504.0
MASKED = -1e9  # a masked position's score: exp(-1e9 - max) is 0, as exp(-inf) is


def attention_bias(mask, keep, like, shape):
    """The additive float bias of a mask: 0 where a position takes part, -inf where it is masked.

    A bool `mask` marks the positions kept when `keep` (SDPA's meaning) or those masked when not
    (MultiheadAttention's and the Transformer's); a float mask is its own bias.
    """
    if mask.dtype is not dtypes.bool_:
        return mask
    masked = ~mask if keep else mask
    return zeros(shape, dtype=like.dtype, device=like.device).masked_fill(masked, float("-inf"))


def causal_bias(queries, keys, like):
    """-inf above the diagonal of a (queries, keys) grid: each query sees the keys up to its own position."""
    allowed = ones(queries, keys, dtype=dtypes.bool_, device=like.device).tril()
    return attention_bias(allowed, True, like, (queries, keys))


def attend(query, key, value, bias, dropout_p, scale, *, zero_masked_rows):
    """(softmax(q kᵀ · scale + bias) @ v, the weights after dropout): attention over the last two dims.

    The bias's -inf becomes -1e9 (the dtype's lowest number if higher): the same weights, as exp
    gives 0 for both, with no Inf in the graph, where the findings would take a mask for a NaN/Inf
    origin, and no overflow in the record's statistics. A query whose every key is at -inf gets
    weights of 0 when zero_masked_rows (SDPA's CPU kernel), else NaN (softmax over -inf only:
    MultiheadAttention's weights path in torch).
    """
    scores = (query @ key.transpose(-2, -1)) * scale
    dead = None
    if bias is not None:
        infinite = bias.detach() == float("-inf")
        dead = infinite.all(-1, keepdim=True)
        if bool(infinite.any()):
            bias = bias.masked_fill(infinite, FLOAT16_LOWEST if bias.dtype == dtypes.float16 else MASKED)
        if bool(dead.any()):
            bias = bias.masked_fill(dead, 0.0 if zero_masked_rows else float("nan"))
        else:
            dead = None
        scores = scores + bias
    weights = scores.softmax(-1)
    if dead is not None and zero_masked_rows:
        weights = weights.masked_fill(dead, 0.0)
    if dropout_p > 0.0:
        weights = F.dropout(weights, dropout_p)
    return weights @ value, weights


def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False
):
    """softmax(q kᵀ / sqrt(E) + mask) @ v over (..., L, E), (..., S, E) and (..., S, Ev) (torch's SDPA)."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        tensor_input(t, "scaled_dot_product_attention", name)
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(
            "scaled_dot_product_attention: query, key and value must be at least 2-d (..., sequence, features), "
            f"got query {query.ndim}-d, key {key.ndim}-d and value {value.ndim}-d"
        )
    if not query.dtype is key.dtype is value.dtype:
        raise RuntimeError(
            "scaled_dot_product_attention: query, key and value must have the same dtype, got "
            f"query {query.dtype.name}, key {key.dtype.name} and value {value.dtype.name}; convert them with .to(...)"
        )
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(
            f"scaled_dot_product_attention: query's last dim ({query.shape[-1]}) and key's ({key.shape[-1]}) "
            "must be equal (each query is compared with each key by a dot product)"
        )
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(
            f"scaled_dot_product_attention: key and value must have the same sequence length (dim -2), "
            f"got {key.shape[-2]} and {value.shape[-2]}"
        )
    queries, keys = query.shape[-2], key.shape[-2]
    bias = None
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError(
                "scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True "
                "(pass one or the other)"
            )
        bias = causal_bias(queries, keys, query)
    elif attn_mask is not None:
        tensor_input(attn_mask, "scaled_dot_product_attention", "attn_mask")
        if attn_mask.dtype is not dtypes.bool_ and attn_mask.dtype is not query.dtype:
            raise RuntimeError(
                "scaled_dot_product_attention: attn_mask must be bool or have the query's dtype "
                f"({query.dtype.name}), got {attn_mask.dtype.name}"
            )
        scores_shape = np.broadcast_shapes(tuple(query.shape[:-1]), tuple(key.shape[:-2]) + (1,)) + (keys,)
        try:
            np.broadcast_shapes(tuple(attn_mask.shape), scores_shape)
        except ValueError:
            raise RuntimeError(
                f"scaled_dot_product_attention: attn_mask of shape {tuple(attn_mask.shape)} does not broadcast "
                f"to the attention scores' shape {scores_shape} (..., L={queries}, S={keys})"
            ) from None
        bias = attention_bias(attn_mask, True, query, tuple(attn_mask.shape))
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3 and query.shape[-3] != key.shape[-3]:
        key, value = (repeat_heads(t, query.shape[-3]) for t in (key, value))
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    return attend(query, key, value, bias, dropout_p, scale, zero_masked_rows=True)[0]


def repeat_heads(t, heads):
    """t's heads (dim -3) each repeated to make `heads` of them, as repeat_interleave (grouped-query attention)."""
    have = t.shape[-3]
    if heads % have:
        raise RuntimeError(
            f"scaled_dot_product_attention: the number of heads in key and value ({have}) must divide the number "
            f"of heads in query ({heads}) for enable_gqa"
        )
    shape = tuple(t.shape)
    grouped = t.unsqueeze(-3).expand(*shape[:-2], heads // have, *shape[-2:])
    return grouped.reshape(*shape[:-3], heads, *shape[-2:])
