"""F.scaled_dot_product_attention agrees with torch 2.13: outputs and grads for every kind of mask, the
causal form, a given scale, grouped-query heads, a fully masked query, dropout and the errors."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphscope as gs
from graphscope.engine import hooks
from graphscope.engine.nn import functional as F
from tests.engine.nn.attention_reference import compare
from tests.engine.nn.module_reference import DTYPES

RNG = np.random.default_rng(7)


def qkv(q_shape, k_shape, v_shape):
    return [RNG.standard_normal(s) for s in (q_shape, k_shape, v_shape)]


def bool_mask(shape, keep=0.7):
    mask = RNG.random(shape) < keep
    mask[..., 0] = True  # every query keeps one key, so no row is fully masked
    return mask


# (id, query, key and value shapes, the mask (an array or None), keyword arguments)
CASES = [
    ("4d", ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)), None, {}),
    ("3d", ((3, 4, 8), (3, 6, 8), (3, 6, 8)), None, {}),
    ("2d_unbatched", ((4, 8), (5, 8), (5, 3)), None, {}),
    ("causal_square", ((2, 2, 5, 4), (2, 2, 5, 4), (2, 2, 5, 4)), None, dict(is_causal=True)),
    ("causal_more_keys", ((2, 4, 4), (2, 6, 4), (2, 6, 4)), None, dict(is_causal=True)),
    ("causal_more_queries", ((2, 6, 4), (2, 4, 4), (2, 4, 4)), None, dict(is_causal=True)),
    ("scale", ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)), None, dict(scale=0.7)),
    ("bool_mask_2d", ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)), bool_mask((4, 5)), {}),
    ("bool_mask_per_batch", ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)), bool_mask((2, 1, 4, 5)), {}),
    ("float_mask", ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)), RNG.standard_normal((3, 4, 5)), {}),
    ("broadcast_key_heads", ((2, 3, 4, 8), (1, 1, 5, 8), (1, 1, 5, 6)), None, {}),
    ("gqa", ((2, 6, 4, 8), (2, 2, 5, 8), (2, 2, 5, 6)), None, dict(enable_gqa=True)),
    ("gqa_causal", ((2, 4, 5, 8), (2, 1, 5, 8), (2, 1, 5, 6)), None, dict(enable_gqa=True, is_causal=True)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes, mask, kwargs", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_sdpa_matches_torch(shapes, mask, kwargs, dtype):
    def call(sdpa):
        return lambda q, k, v, m: sdpa(q, k, v, attn_mask=m, **kwargs)

    compare(call(F.scaled_dot_product_attention), call(TF.scaled_dot_product_attention), [*qkv(*shapes), mask], dtype)


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_a_query_whose_every_key_is_masked_gets_zeros_and_zero_grads_as_torch(kind):
    mask = bool_mask((4, 5))
    mask[2] = False
    if kind == "float":
        mask = np.where(mask, 0.0, -np.inf)
    gs_out, _ = compare(
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
        lambda q, k, v, m: TF.scaled_dot_product_attention(q, k, v, attn_mask=m),
        [*qkv((2, 4, 8), (2, 5, 8), (2, 5, 3)), mask],
        "float64",
    )
    assert not gs_out[0][:, 2].detach().cpu().numpy().any()


def test_the_attention_weights_are_nodes_of_the_graph():
    """softmax(q kᵀ · scale + mask) @ v: the output's graph holds the mask's add and the softmax."""
    q, k, v = (gs.randn(1, 3, 4, requires_grad=True) for _ in range(3))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    names = []
    stack = [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and hasattr(node, "next_functions"):
            # the engine's own names (torch's for a batched matmul is UnsafeViewBackward0)
            names.append(node.own_name() if hasattr(node, "own_name") else node.name())
            stack.extend(fn for fn, _ in node.next_functions)
    assert any("softmax" in n.lower() for n in names), names
    assert sum("matmul" in n.lower() for n in names) == 2, names


def test_dropout_drops_attention_weights_with_the_engines_generator():
    """dropout_p applies always (as torch's SDPA, training or not), to the weights, seeded by gs.manual_seed."""
    q, k, v = (gs.tensor(a) for a in qkv((2, 6, 4), (2, 7, 4), (2, 7, 5)))
    gs.manual_seed(3)
    got = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4).cpu().numpy()
    gs.manual_seed(3)
    weights = F.dropout(((q @ k.transpose(-2, -1)) * 0.5).softmax(-1), 0.4)
    np.testing.assert_allclose(got, (weights @ v).cpu().numpy(), rtol=1e-12)
    assert 0.2 < float((weights == 0).float().mean()) < 0.6


def test_dropout_of_one_gives_zeros_as_torch():
    arrays = qkv((2, 4, 8), (2, 5, 8), (2, 5, 3))
    got = F.scaled_dot_product_attention(*(gs.tensor(a) for a in arrays), dropout_p=1.0)
    expected = TF.scaled_dot_product_attention(*(torch.tensor(a) for a in arrays), dropout_p=1.0)
    np.testing.assert_array_equal(got.cpu().numpy(), expected.cpu().numpy())


ERRORS = [
    ("causal_and_mask", dict(attn_mask=np.ones((4, 5), bool), is_causal=True), "Explicit attn_mask should not be set"),
    (
        "mask_does_not_broadcast",
        dict(attn_mask=np.ones((4, 6), bool)),
        r"attn_mask of shape \(4, 6\) does not broadcast",
    ),
    ("integer_mask", dict(attn_mask=np.ones((4, 5), np.int64)), "attn_mask must be bool or have the query's dtype"),
    ("float64_mask_for_float32", dict(attn_mask=np.zeros((4, 5))), "attn_mask must be bool or have the query's dtype"),
    ("dropout_over_one", dict(dropout_p=1.5), "dropout probability has to be between 0 and 1, but got 1.5"),
]


@pytest.mark.parametrize("kwargs, message", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_bad_arguments_fail_as_torch(kwargs, message):
    arrays = [a.astype("float32") for a in qkv((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6))]
    torch_kwargs = {n: torch.tensor(a) if isinstance(a, np.ndarray) else a for n, a in kwargs.items()}
    with pytest.raises(RuntimeError):
        TF.scaled_dot_product_attention(*(torch.tensor(a) for a in arrays), **torch_kwargs)
    gs_kwargs = {n: gs.tensor(a) if isinstance(a, np.ndarray) else a for n, a in kwargs.items()}
    with pytest.raises(RuntimeError, match=message):
        F.scaled_dot_product_attention(*(gs.tensor(a) for a in arrays), **gs_kwargs)


SHAPE_ERRORS = [
    ("one_dim", ((8,), (8,), (6,)), {}, "must be at least 2-d"),
    ("features_differ", ((2, 4, 8), (2, 5, 7), (2, 5, 6)), {}, r"query's last dim \(8\) and key's \(7\)"),
    ("lengths_differ", ((2, 4, 8), (2, 5, 8), (2, 6, 6)), {}, "same sequence length"),
    ("gqa_not_dividing", ((2, 4, 3, 8), (2, 3, 5, 8), (2, 3, 5, 6)), dict(enable_gqa=True), "must divide"),
]


@pytest.mark.parametrize("shapes, kwargs, message", [e[1:] for e in SHAPE_ERRORS], ids=[e[0] for e in SHAPE_ERRORS])
def test_bad_shapes_fail_as_torch(shapes, kwargs, message):
    arrays = [a.astype("float32") for a in qkv(*shapes)]
    with pytest.raises(RuntimeError):
        TF.scaled_dot_product_attention(*(torch.tensor(a) for a in arrays), **kwargs)
    with pytest.raises(RuntimeError, match=message):
        F.scaled_dot_product_attention(*(gs.tensor(a) for a in arrays), **kwargs)


def test_query_key_and_value_of_different_dtypes_fail_as_torch():
    q, k, v = qkv((2, 4, 8), (2, 5, 8), (2, 5, 6))
    with pytest.raises(RuntimeError):
        TF.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k).float(), torch.tensor(v).float())
    with pytest.raises(RuntimeError, match="must have the same dtype, got query float64, key float32"):
        F.scaled_dot_product_attention(gs.tensor(q), gs.tensor(k).float(), gs.tensor(v).float())


@pytest.mark.parametrize("kwargs", [dict(is_causal=True), dict(attn_mask=np.tril(np.ones((4, 5), bool)))])
def test_masks_put_no_inf_in_the_graph(kwargs):
    """A masked position's score is -1e9 (the same weights as -inf), so that the
    debugger's NaN/Inf findings do not take an attention mask for the origin of a NaN."""
    seen = []

    class Values(hooks.Observer):
        def node_created(self, node, inputs, output, site):
            seen.extend(t.detach().cpu().numpy() for t in (*inputs, output) if isinstance(t, gs.Tensor))

    q, k, v = (gs.tensor(a, requires_grad=True) for a in qkv((2, 4, 8), (2, 5, 8), (2, 5, 3)))
    kwargs = {n: gs.tensor(a) if isinstance(a, np.ndarray) else a for n, a in kwargs.items()}
    with hooks.observe(Values()):
        F.scaled_dot_product_attention(q, k, v, **kwargs).sum().backward()
    assert len(seen) > 5 and all(np.isfinite(a).all() for a in seen if a.dtype.kind == "f")
