"""nn.MultiheadAttention agrees with torch 2.13: parameter names, shapes and init, then outputs, weights and
grads (of the inputs and every parameter) for each layout, projection, mask and option, and the errors."""

import warnings

import numpy as np
import pytest
import torch
import torch.nn as tnn

import graphscope as gs
from graphscope.engine import hooks, nn
from tests.engine.nn.attention_reference import compare, copy_torch_weights
from tests.engine.nn.module_reference import DTYPES

RNG = np.random.default_rng(11)
E, HEADS, L, S, N = 8, 2, 4, 5, 3


def pair(**kwargs):
    return nn.MultiheadAttention(E, HEADS, **kwargs), tnn.MultiheadAttention(E, HEADS, **kwargs)


def padding(shape):
    mask = RNG.random(shape) < 0.3
    mask[..., 0] = False  # every query keeps a key
    return mask


def blocked(shape):
    mask = RNG.random(shape) < 0.3
    mask[..., 0] = False
    return mask


# (id, constructor kwargs, forward kwargs, what the inputs are: "self", "kv" (key is value) or "cross",
#  unbatched, key_padding_mask, attn_mask)
CASES = [
    ("self", {}, {}, "self", False, None, None),
    ("self_batch_first", dict(batch_first=True), {}, "self", False, None, None),
    ("cross", {}, {}, "cross", False, None, None),
    ("key_is_value_batch_first", dict(batch_first=True), {}, "kv", False, None, None),
    ("no_weights", {}, dict(need_weights=False), "cross", False, None, None),
    ("weights_per_head", {}, dict(average_attn_weights=False), "cross", False, None, None),
    ("kdim_vdim", dict(kdim=3, vdim=6), {}, "cross", False, None, None),
    ("no_bias", dict(bias=False), {}, "self", False, None, None),
    ("bias_kv", dict(add_bias_kv=True), {}, "cross", False, padding((N, S)), blocked((L, S))),
    ("zero_attn", dict(add_zero_attn=True), {}, "cross", False, padding((N, S)), None),
    (
        "bias_kv_zero_attn_no_weights",
        dict(add_bias_kv=True, add_zero_attn=True),
        dict(need_weights=False),
        "cross",
        False,
        None,
        blocked((L, S)),
    ),
    ("padding_mask", {}, {}, "cross", False, padding((N, S)), None),
    ("float_padding_mask", {}, {}, "cross", False, RNG.standard_normal((N, S)), RNG.standard_normal((L, S))),
    ("attn_mask_3d", {}, {}, "cross", False, None, blocked((N * HEADS, L, S))),
    ("both_masks_no_weights", {}, dict(need_weights=False), "cross", False, padding((N, S)), blocked((L, S))),
    ("unbatched", {}, {}, "cross", True, padding((S,)), blocked((HEADS, L, S))),
    ("unbatched_no_weights", dict(batch_first=True), dict(need_weights=False), "self", True, None, None),
]


def arrays_for(kind, unbatched, batch_first, kdim=E, vdim=E):
    """query, key, value (the same array objects where the inputs are one tensor)."""

    def shape(length, features):
        if unbatched:
            return (length, features)
        return (N, length, features) if batch_first else (length, N, features)

    query = RNG.standard_normal(shape(L if kind == "cross" else S, E))
    if kind == "self":
        return [query]
    key = RNG.standard_normal(shape(S, kdim))
    if kind == "kv":
        return [query, key]
    return [query, key, RNG.standard_normal(shape(S, vdim))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "init_kwargs, call_kwargs, kind, unbatched, key_padding_mask, attn_mask",
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_multihead_attention_matches_torch(
    init_kwargs, call_kwargs, kind, unbatched, key_padding_mask, attn_mask, dtype
):
    gs_module, torch_module = pair(**init_kwargs)
    copy_torch_weights(gs_module, torch_module, dtype)
    qkv = arrays_for(
        kind, unbatched, init_kwargs.get("batch_first", False), init_kwargs.get("kdim", E), init_kwargs.get("vdim", E)
    )
    count = len(qkv)

    def call(module):
        def run(*args):
            tensors = list(args[:count])
            q, k, v = {1: tensors * 3, 2: tensors[:1] + tensors[1:] * 2, 3: tensors}[count]
            return module(q, k, v, key_padding_mask=args[count], attn_mask=args[count + 1], **call_kwargs)

        return run

    masks = [m.astype(dtype) if m is not None and m.dtype.kind == "f" else m for m in (key_padding_mask, attn_mask)]
    compare(call(gs_module), call(torch_module), qkv + masks, dtype, gs_module, torch_module)


@pytest.mark.parametrize("need_weights", [True, False])
def test_a_fully_masked_query_gives_what_torch_gives(need_weights):
    """NaN with need_weights (torch's softmax of only -inf), 0 without (torch's SDPA)."""
    gs_module, torch_module = pair()
    copy_torch_weights(gs_module, torch_module, "float64")
    mask = blocked((L, S))
    mask[1] = True
    gs_out, torch_out = compare(
        lambda q, k, m: gs_module(q, k, k, attn_mask=m, need_weights=need_weights),
        lambda q, k, m: torch_module(q, k, k, attn_mask=m, need_weights=need_weights),
        [RNG.standard_normal((L, N, E)), RNG.standard_normal((S, N, E)), mask],
        "float64",
        gs_module,
        torch_module,
    )
    assert np.isnan(torch_out[0][1].detach().cpu().numpy()).all() == need_weights
    assert np.isnan(gs_out[0][1].detach().cpu().numpy()).all() == need_weights


def test_is_causal_uses_the_causal_mask_as_torch_does_without_weights():
    """With is_causal and no weights asked, torch attends causally whatever attn_mask holds."""
    gs_module, torch_module = pair()
    copy_torch_weights(gs_module, torch_module, "float64")
    compare(
        lambda x, m: gs_module(x, x, x, attn_mask=m, need_weights=False, is_causal=True),
        lambda x, m: torch_module(x, x, x, attn_mask=m, need_weights=False, is_causal=True),
        [RNG.standard_normal((S, N, E)), np.zeros((S, S), bool)],
        "float64",
        gs_module,
        torch_module,
    )


@pytest.mark.parametrize(
    "kwargs, names",
    [
        ({}, ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]),
        (dict(kdim=3, vdim=6, bias=False), ["q_proj_weight", "k_proj_weight", "v_proj_weight", "out_proj.weight"]),
        (
            dict(add_bias_kv=True),
            ["in_proj_weight", "in_proj_bias", "bias_k", "bias_v", "out_proj.weight", "out_proj.bias"],
        ),
    ],
)
def test_parameters_state_dict_and_repr_are_torchs(kwargs, names):
    gs_module, torch_module = pair(**kwargs)
    assert sorted(gs_module.state_dict()) == sorted(torch_module.state_dict()) == sorted(names)
    for name, value in torch_module.state_dict().items():
        assert tuple(gs_module.state_dict()[name].shape) == tuple(value.shape), name
    assert repr(gs_module) == repr(torch_module)


def test_init_is_torchs():
    """xavier_uniform_ projections, zero biases, Linear's init for out_proj.weight."""
    gs.manual_seed(0)
    module = nn.MultiheadAttention(16, 4)
    bound = np.sqrt(6 / (16 + 48))
    weight = module.in_proj_weight.detach().cpu().numpy()
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.9 * bound
    assert (
        not module.in_proj_bias.detach().cpu().numpy().any() and not module.out_proj.bias.detach().cpu().numpy().any()
    )
    assert np.abs(module.out_proj.weight.detach().cpu().numpy()).max() <= 1 / np.sqrt(16)


def test_dropout_of_one_while_training_leaves_the_output_bias_as_torch():
    gs_module, torch_module = pair(dropout=1.0)
    copy_torch_weights(gs_module, torch_module, "float64")
    compare(
        lambda q, k: gs_module(q, k, k),
        lambda q, k: torch_module(q, k, k),
        [RNG.standard_normal((L, N, E)), RNG.standard_normal((S, N, E))],
        "float64",
    )


def test_dropout_is_off_in_eval_mode():
    gs_module, torch_module = pair(dropout=0.9)
    copy_torch_weights(gs_module, torch_module, "float64")
    gs_module.eval(), torch_module.eval()
    compare(lambda x: gs_module(x, x, x), lambda x: torch_module(x, x, x), [RNG.standard_normal((S, N, E))], "float64")


def run_both(module_kwargs, q_shape, k_shape, **call):
    """Call both layers; the exceptions they raise (or None)."""
    gs_module, torch_module = pair(**module_kwargs)
    q, k = RNG.standard_normal(q_shape).astype("float32"), RNG.standard_normal(k_shape).astype("float32")
    raised = []
    for module, lib in ((torch_module, torch), (gs_module, gs)):
        kwargs = {n: lib.tensor(a) if isinstance(a, np.ndarray) else a for n, a in call.items()}
        try:
            module(lib.tensor(q), lib.tensor(k), lib.tensor(k), **kwargs)
            raised.append(None)
        except Exception as e:  # noqa: BLE001 (the test compares the kinds)
            raised.append(e)
    return raised


ERRORS = [
    ("four_d_query", {}, (1, L, N, E), (1, S, N, E), {}, AssertionError, "query should be unbatched 2D or batched 3D"),
    ("key_2d_for_3d_query", {}, (L, N, E), (S, E), {}, AssertionError, "expected `key` and `value` to be 3-D"),
    (
        "causal_without_mask",
        {},
        (L, N, E),
        (S, N, E),
        dict(is_causal=True),
        RuntimeError,
        "Need attn_mask if specifying the is_causal hint",
    ),
    (
        "attn_mask_shape",
        {},
        (L, N, E),
        (S, N, E),
        dict(attn_mask=np.zeros((L, L), bool)),
        RuntimeError,
        r"The shape of the 2D attn_mask is \(4, 4\), but should be \(4, 5\)",
    ),
    (
        "attn_mask_3d_shape",
        {},
        (L, N, E),
        (S, N, E),
        dict(attn_mask=np.zeros((N, L, S), bool)),
        RuntimeError,
        r"The shape of the 3D attn_mask is \(3, 4, 5\), but should be \(6, 4, 5\)",
    ),
    (
        "attn_mask_int",
        {},
        (L, N, E),
        (S, N, E),
        dict(attn_mask=np.zeros((L, S), np.int64)),
        AssertionError,
        "only bool and floating types of attn_mask are supported",
    ),
    (
        "padding_mask_1d",
        {},
        (L, N, E),
        (S, N, E),
        dict(key_padding_mask=np.zeros(S, bool)),
        AssertionError,
        "expected `key_padding_mask` to be `None` or 2-D",
    ),
    (
        "padding_mask_batch",
        {},
        (L, N, E),
        (S, N, E),
        dict(key_padding_mask=np.zeros((N + 1, S), bool)),
        AssertionError,
        r"Expected key_padded_mask.shape\[0\] to be 3, but got 4",
    ),
    (
        "padding_mask_length",
        {},
        (L, N, E),
        (S, N, E),
        dict(key_padding_mask=np.zeros((N, S + 1), bool)),
        AssertionError,
        r"Expected key_padded_mask.shape\[1\] to be 5, but got 6",
    ),
    (
        "embed_dim",
        {},
        (L, N, E + 1),
        (S, N, E + 1),
        {},
        AssertionError,
        "was expecting embedding dimension of 8, but got 9",
    ),
]


@pytest.mark.parametrize(
    "kwargs, q_shape, k_shape, call, error, message", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS]
)
def test_bad_calls_fail_as_torch(kwargs, q_shape, k_shape, call, error, message):
    torch_error, gs_error = run_both(kwargs, q_shape, k_shape, **call)
    assert isinstance(torch_error, error), torch_error
    assert isinstance(gs_error, error), gs_error
    assert __import__("re").search(message, str(gs_error)), str(gs_error)


def test_mismatched_mask_types_warn_as_torch():
    call = dict(key_padding_mask=np.zeros((N, S), bool), attn_mask=np.zeros((L, S), np.float32))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert run_both({}, (L, N, E), (S, N, E), **call) == [None, None]
    messages = [str(w.message) for w in caught if "mismatched" in str(w.message)]
    assert len(messages) == 2 and messages[0] == messages[1], messages


@pytest.mark.parametrize(
    "args, error, message",
    [
        ((0, 2), ValueError, "embed_dim and num_heads must be greater than 0, got embed_dim=0 and num_heads=2"),
        ((8, 3), AssertionError, "embed_dim must be divisible by num_heads"),
    ],
)
def test_bad_construction_fails_as_torch(args, error, message):
    with pytest.raises(error):
        tnn.MultiheadAttention(*args)
    with pytest.raises(error, match=message):
        nn.MultiheadAttention(*args)


def test_bool_masks_put_no_inf_in_the_graph():
    """A masked key's score is -1e9 (the same weights as torch's -inf): no Inf for the findings to report."""
    seen = []

    class Values(hooks.Observer):
        def node_created(self, node, inputs, output, site):
            seen.extend(t.detach().cpu().numpy() for t in (*inputs, output) if isinstance(t, gs.Tensor))

    module = nn.MultiheadAttention(E, HEADS)
    x = gs.tensor(RNG.standard_normal((S, N, E)).astype("float32"))
    with hooks.observe(Values()):
        out, weights = module(
            x, x, x, key_padding_mask=gs.tensor(padding((N, S))), attn_mask=gs.tensor(blocked((S, S)))
        )
        (out.sum() + weights.sum()).backward()
    assert len(seen) > 5 and all(np.isfinite(a).all() for a in seen if a.dtype.kind == "f")
