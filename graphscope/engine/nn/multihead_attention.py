"""MultiheadAttention: torch.nn's layer, with its parameters' names, shapes and init, built from engine ops."""

from __future__ import annotations

from . import init
from .functional_multihead import multi_head_attention_forward
from .linear import Linear, empty_parameter
from .module import Module


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under torch's name for MultiheadAttention's out_proj (so the module prints as torch's)."""


class MultiheadAttention(Module):
    """Attention of `num_heads` heads over embed_dim // num_heads features each: (output, weights or None)."""

    def __init__(
        self,
        embed_dim,
        num_heads,
        dropout=0.0,
        bias=True,
        add_bias_kv=False,
        add_zero_attn=False,
        kdim=None,
        vdim=None,
        batch_first=False,
        device=None,
        dtype=None,
    ):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                f"num_heads={num_heads} instead"
            )
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError(
                f"embed_dim must be divisible by num_heads, got embed_dim={embed_dim} and num_heads={num_heads}"
            )
        if self._qkv_same_embed_dim:
            self.in_proj_weight = empty_parameter((3 * embed_dim, embed_dim), device, dtype)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = empty_parameter((embed_dim, embed_dim), device, dtype)
            self.k_proj_weight = empty_parameter((embed_dim, self.kdim), device, dtype)
            self.v_proj_weight = empty_parameter((embed_dim, self.vdim), device, dtype)
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = empty_parameter((3 * embed_dim,), device, dtype)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = empty_parameter((1, 1, embed_dim), device, dtype)
            self.bias_v = empty_parameter((1, 1, embed_dim), device, dtype)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        """torch's init: xavier_uniform_ projections, zero biases, xavier_normal_ bias_k and bias_v."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for weight in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for extra in (self.bias_k, self.bias_v):
            if extra is not None:
                init.xavier_normal_(extra)

    def forward(
        self,
        query,
        key,
        value,
        key_padding_mask=None,
        need_weights=True,
        attn_mask=None,
        average_attn_weights=True,
        is_causal=False,
    ):
        """(output, weights): query (L, N, E) ((N, L, E) with batch_first, or (L, E)), key and value (S, ...)."""
        batched = query.ndim == 3
        if self.batch_first and batched:  # transposed once each, keeping which of them are one tensor
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {}
        if not self._qkv_same_embed_dim:
            separate = dict(
                use_separate_proj_weight=True,
                q_proj_weight=self.q_proj_weight,
                k_proj_weight=self.k_proj_weight,
                v_proj_weight=self.v_proj_weight,
            )
        output, weights = multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
            **separate,
        )
        if self.batch_first and batched:
            output = output.transpose(1, 0)
        return output, weights
