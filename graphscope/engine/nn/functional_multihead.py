"""multi_head_attention_forward: torch's multi-head attention as the engine's ops (projections, heads, masks).

It follows torch.nn.functional.multi_head_attention_forward step by step, with its checks and
messages: the inputs are projected (one matmul when query, key and value are one tensor), split
into heads, masked (a bool mask's True is a position *not* attended), attended and projected out.
With need_weights the softmax is the plain one (a fully masked query gives NaN, as torch's);
without, it is scaled_dot_product_attention's (that query gives 0).
"""

from __future__ import annotations

import math
import warnings

from .. import dtypes
from ..creation import zeros
from ..ops.shape import cat
from . import functional as F
from .functional_attention import attend, attention_bias, causal_bias


def canonical_mask(mask, mask_name, other, other_name, like):
    """A bool mask (True: not attended) as a float bias of like's dtype; a float mask as it is."""
    if mask is None:
        return None
    if mask.dtype is not dtypes.bool_ and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported, got {mask.dtype.name}")
    if other is not None and other.dtype is not mask.dtype:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both instead.",
            stacklevel=3,
        )
    return attention_bias(mask, False, like, tuple(mask.shape))


def check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """torch's _mha_shape_check: True for batched (3-d) inputs, False for unbatched (2-d)."""
    if query.ndim not in (2, 3):
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query tensor"
        )
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D"
            f" but found {key.ndim}-D and {value.ndim}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or {query.ndim - 1}-D"
            f" but found {key_padding_mask.ndim}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                f" but found {attn_mask.ndim}-D tensor instead"
            )
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}")
    return batched


def project(query, key, value, in_proj_weight, in_proj_bias, separate):
    """q, k, v: one packed projection for self-attention, else each input by its third of the weights."""
    if separate is None:
        if query is key and key is value:
            return F.linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)
        weights = in_proj_weight.chunk(3)
    else:
        weights = separate
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
    return tuple(F.linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def with_a_key_more(*masks):
    """Each float mask (None as it is) with a last column of 0: the key appended (bias_k, the zero key) is attended."""
    return tuple(None if m is None else F.pad(m, (0, 1)) for m in masks)


def heads(x, batch, num_heads, head_dim):
    """(S, N, E) -> (N, heads, S, head_dim)."""
    return x.reshape(x.shape[0], batch, num_heads, head_dim).permute(1, 2, 0, 3)


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
):
    """(attention output (L, N, E), weights (N, L, S) or per head, or None): inputs (L, N, E) or (L, E)."""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k and static_v are not supported")
    batched = check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask", query)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    causal = is_causal and key_padding_mask is None and not need_weights
    attn_mask = None if causal else canonical_mask(attn_mask, "attn_mask", None, "", query)
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's {tuple(value.shape[:2])}"
            )
        q, k, v = project(query, key, value, None, in_proj_bias, (q_proj_weight, k_proj_weight, v_proj_weight))
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")
        q, k, v = project(query, key, value, in_proj_weight, in_proj_bias, None)
    src_len = key.shape[0]
    if attn_mask is not None:
        want = (tgt_len, src_len) if attn_mask.ndim == 2 else (bsz * num_heads, tgt_len, src_len)
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(
                f"The shape of the {attn_mask.ndim}D attn_mask is {tuple(attn_mask.shape)}, but should be {want}."
            )
    if bias_k is not None and bias_v is None:
        raise AssertionError("bias_k is set but bias_v is None")
    if bias_v is not None and bias_k is None:
        raise AssertionError("bias_v is set but bias_k is None")
    if bias_k is not None:
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = with_a_key_more(attn_mask, key_padding_mask)
    q, k, v = (heads(x, bsz, num_heads, head_dim) for x in (q, k, v))
    if add_zero_attn:
        blank = zeros(bsz, num_heads, 1, head_dim, dtype=k.dtype, device=k.device)
        k, v = cat([k, blank], 2), cat([v, blank], 2)
        attn_mask, key_padding_mask = with_a_key_more(attn_mask, key_padding_mask)
    src_len = k.shape[2]
    bias = attn_mask
    if bias is not None and bias.ndim == 3:
        bias = bias.reshape(-1, num_heads, tgt_len, src_len)  # (N * heads, L, S) -> (N, heads, L, S)
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            dim, want = (0, bsz) if key_padding_mask.shape[0] != bsz else (1, src_len)
            raise AssertionError(
                f"Expected key_padded_mask.shape[{dim}] to be {want}, but got {key_padding_mask.shape[dim]}"
            )
        padding = key_padding_mask.reshape(bsz, 1, 1, src_len)
        bias = padding if bias is None else bias + padding
    if causal:
        bias = causal_bias(tgt_len, src_len, q)
    if not training:
        dropout_p = 0.0
    out, weights = attend(q, k, v, bias, dropout_p, 1.0 / math.sqrt(head_dim), zero_masked_rows=not need_weights)
    out = out.permute(2, 0, 1, 3).reshape(tgt_len * bsz, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if not need_weights:
        return (out if batched else out.squeeze(1)), None
    if average_attn_weights:
        weights = weights.mean(1)
    if not batched:
        return out.squeeze(1), weights.squeeze(0)
    return out, weights
