"""The Transformer layers agree with torch 2.13: state-dict names and shapes, then outputs and grads of
the encoder and decoder layers, their stacks and nn.Transformer with each option, the causal mask,
torch's nested-tensor encoder (0 at padded positions), its warning and the errors."""

import warnings

import numpy as np
import pytest
import torch
import torch.nn as tnn

import graphscope as gs
from graphscope.engine import nn
from graphscope.engine.nn import functional as F
from tests.engine.nn.attention_reference import assert_close, compare, copy_torch_weights
from tests.engine.nn.module_reference import DTYPES

pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True", "ignore:Support for mismatched")

RNG = np.random.default_rng(5)
D, HEADS, FF, S, T, N = 8, 2, 12, 5, 4, 3


def both(name, *args, **kwargs):
    """The same layer in graphscope and torch, without dropout (so training mode is deterministic)."""
    kwargs.setdefault("dropout", 0.0)
    torch_kwargs = dict(kwargs)
    activation = kwargs.get("activation")
    if activation in ACTIVATIONS:  # the same function, in each library
        kwargs["activation"], torch_kwargs["activation"] = ACTIVATIONS[activation]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the nested-tensor warning, tested below
        return getattr(nn, name)(*args, **kwargs), getattr(tnn, name)(*args, **torch_kwargs)


ACTIVATIONS = {
    "tanh_function": (lambda x: x.tanh(), lambda x: x.tanh()),
    "gelu_module": (nn.GELU(), tnn.GELU()),
}


def seq(length, batch_first=False, unbatched=False):
    if unbatched:
        return RNG.standard_normal((length, D))
    return RNG.standard_normal((N, length, D) if batch_first else (length, N, D))


def padding(length):
    mask = RNG.random((N, length)) < 0.3
    mask[:, 0] = False
    return mask


def causal(length):
    return np.triu(np.full((length, length), -np.inf), 1)


ENCODER_LAYERS = [
    ("post_norm", {}, {}),
    ("norm_first", dict(norm_first=True), {}),
    ("gelu_batch_first", dict(activation="gelu", batch_first=True), {}),
    ("function_activation", dict(activation="tanh_function"), {}),
    ("module_activation_no_bias", dict(activation="gelu_module", bias=False), {}),
    ("eps", dict(layer_norm_eps=1e-2), {}),
    ("causal_mask", {}, dict(src_mask=causal(S), is_causal=True)),
    ("padding_and_bool_mask", {}, dict(src_key_padding_mask=padding(S), src_mask=np.triu(np.ones((S, S), bool), 1))),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs, call", [c[1:] for c in ENCODER_LAYERS], ids=[c[0] for c in ENCODER_LAYERS])
def test_encoder_layer_matches_torch(kwargs, call, dtype):
    gs_layer, torch_layer = both("TransformerEncoderLayer", D, HEADS, FF, **kwargs)
    copy_torch_weights(gs_layer, torch_layer, dtype)
    masks = [call.get("src_mask"), call.get("src_key_padding_mask")]
    masks = [m.astype(dtype) if m is not None and m.dtype.kind == "f" else m for m in masks]
    causal_hint = call.get("is_causal", False)

    def run(layer):
        return lambda x, m, p: layer(x, src_mask=m, src_key_padding_mask=p, is_causal=causal_hint)

    x = seq(S, kwargs.get("batch_first", False))
    compare(run(gs_layer), run(torch_layer), [x, *masks], dtype, gs_layer, torch_layer)


DECODER_LAYERS = [
    ("post_norm", {}, {}),
    ("norm_first_batch_first", dict(norm_first=True, batch_first=True), {}),
    ("gelu_no_bias", dict(activation="gelu", bias=False), {}),
    (
        "all_masks",
        {},
        dict(
            tgt_mask=causal(T),
            memory_mask=np.zeros((T, S)),
            tgt_key_padding_mask=padding(T),
            memory_key_padding_mask=padding(S),
        ),
    ),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs, call", [c[1:] for c in DECODER_LAYERS], ids=[c[0] for c in DECODER_LAYERS])
def test_decoder_layer_matches_torch(kwargs, call, dtype):
    gs_layer, torch_layer = both("TransformerDecoderLayer", D, HEADS, FF, **kwargs)
    copy_torch_weights(gs_layer, torch_layer, dtype)
    names = ["tgt_mask", "memory_mask", "tgt_key_padding_mask", "memory_key_padding_mask"]
    masks = [call.get(n) for n in names]
    masks = [m.astype(dtype) if m is not None and m.dtype.kind == "f" else m for m in masks]

    def run(layer):
        return lambda x, mem, *m: layer(x, mem, **dict(zip(names, m)))

    batch_first = kwargs.get("batch_first", False)
    compare(
        run(gs_layer),
        run(torch_layer),
        [seq(T, batch_first), seq(S, batch_first), *masks],
        dtype,
        gs_layer,
        torch_layer,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("is_causal", [None, True])
def test_encoder_stack_with_a_norm_matches_torch(dtype, is_causal):
    layer, torch_layer = both("TransformerEncoderLayer", D, HEADS, FF)
    gs_stack, torch_stack = (
        nn.TransformerEncoder(layer, 2, nn.LayerNorm(D)),
        tnn.TransformerEncoder(torch_layer, 2, tnn.LayerNorm(D)),
    )
    copy_torch_weights(gs_stack, torch_stack, dtype)

    def run(stack):
        return lambda x, m, p: stack(x, mask=m, src_key_padding_mask=p, is_causal=is_causal)

    compare(
        run(gs_stack), run(torch_stack), [seq(S), causal(S).astype(dtype), padding(S)], dtype, gs_stack, torch_stack
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_decoder_stack_matches_torch(dtype):
    layer, torch_layer = both("TransformerDecoderLayer", D, HEADS, FF, batch_first=True)
    gs_stack, torch_stack = nn.TransformerDecoder(layer, 2), tnn.TransformerDecoder(torch_layer, 2)
    copy_torch_weights(gs_stack, torch_stack, dtype)
    compare(
        lambda x, mem, m: gs_stack(x, mem, tgt_mask=m),
        lambda x, mem, m: torch_stack(x, mem, tgt_mask=m),
        [seq(T, True), seq(S, True), causal(T).astype(dtype)],
        dtype,
        gs_stack,
        torch_stack,
    )


TRANSFORMERS = [
    ("default", {}, False),
    ("batch_first_norm_first_gelu", dict(batch_first=True, norm_first=True, activation="gelu"), False),
    ("unbatched", dict(bias=False), True),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs, unbatched", [c[1:] for c in TRANSFORMERS], ids=[c[0] for c in TRANSFORMERS])
def test_transformer_matches_torch(kwargs, unbatched, dtype):
    gs_model, torch_model = both("Transformer", D, HEADS, 2, 1, FF, **kwargs)
    assert list(gs_model.state_dict()) == list(torch_model.state_dict())
    copy_torch_weights(gs_model, torch_model, dtype)
    batch_first = kwargs.get("batch_first", False)
    tgt_mask = gs.nn.Transformer.generate_square_subsequent_mask(T, dtype=getattr(gs, dtype))
    torch_tgt_mask = tnn.Transformer.generate_square_subsequent_mask(T, dtype=getattr(torch, dtype))
    compare(
        lambda src, tgt: gs_model(src, tgt, tgt_mask=tgt_mask),
        lambda src, tgt: torch_model(src, tgt, tgt_mask=torch_tgt_mask),
        [seq(S, batch_first, unbatched), seq(T, batch_first, unbatched)],
        dtype,
        gs_model,
        torch_model,
    )


def test_state_dict_names_and_shapes_are_torchs():
    gs_model, torch_model = both("Transformer", D, HEADS, 2, 2, FF)
    gs_state, torch_state = gs_model.state_dict(), torch_model.state_dict()
    assert list(gs_state) == list(torch_state)
    assert (
        "encoder.layers.1.self_attn.in_proj_weight" in gs_state
        and "decoder.layers.0.multihead_attn.out_proj.bias" in gs_state
    )
    assert all(tuple(gs_state[k].shape) == tuple(v.shape) for k, v in torch_state.items())
    assert repr(gs_model) == repr(torch_model)


def test_the_stacks_layers_are_copies_with_their_own_parameters():
    layer = nn.TransformerEncoderLayer(D, HEADS, FF)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stack = nn.TransformerEncoder(layer, 2)
    first, second = stack.layers[0].linear1.weight, stack.layers[1].linear1.weight
    assert first is not second and first is not layer.linear1.weight
    np.testing.assert_array_equal(first.detach().cpu().numpy(), second.detach().cpu().numpy())


def test_transformer_init_is_xavier_uniform_on_matrices():
    gs.manual_seed(0)
    model = nn.Transformer(16, 2, 1, 1, 32)
    weight = model.encoder.layers[0].linear1.weight.detach().cpu().numpy()
    bound = np.sqrt(6 / (16 + 32))
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.9 * bound
    np.testing.assert_array_equal(model.encoder.norm.weight.detach().cpu().numpy(), np.ones(16, np.float32))


@pytest.mark.parametrize("dtype", [None, "float64"])
def test_square_subsequent_mask_is_torchs(dtype):
    got = nn.Transformer.generate_square_subsequent_mask(4, dtype=dtype and getattr(gs, dtype))
    expected = tnn.Transformer.generate_square_subsequent_mask(4, dtype=dtype and getattr(torch, dtype))
    assert_close(got, expected, dtype or "float32", "mask")


def test_eval_encoder_without_grad_zeroes_padded_positions_as_torchs_nested_tensors():
    layer, torch_layer = both("TransformerEncoderLayer", D, HEADS, FF, batch_first=True)
    gs_stack, torch_stack = nn.TransformerEncoder(layer, 2), tnn.TransformerEncoder(torch_layer, 2)
    copy_torch_weights(gs_stack, torch_stack, "float32")
    gs_stack.eval(), torch_stack.eval()
    x = seq(S, batch_first=True).astype("float32")
    mask = np.zeros((N, S), bool)
    mask[0, 3:] = mask[2, 4:] = True  # left aligned: the kept positions first
    with torch.no_grad(), gs.no_grad():
        expected = torch_stack(torch.tensor(x), src_key_padding_mask=torch.tensor(mask))
        got = gs_stack(gs.tensor(x), src_key_padding_mask=gs.tensor(mask))
    assert_close(got, expected, "float32", "nested output")
    assert not got.cpu().numpy()[0, 3:].any()


def test_nested_tensor_warning_is_torchs():
    def caught(lib):
        with warnings.catch_warnings(record=True) as found:
            warnings.simplefilter("always")
            lib.TransformerEncoder(lib.TransformerEncoderLayer(D, HEADS, FF), 1)
        return [str(w.message) for w in found]

    assert (
        caught(nn)
        == caught(tnn)
        == [
            "enable_nested_tensor is True, but self.use_nested_tensor is False because "
            "encoder_layer.self_attn.batch_first was not True(use batch_first for better inference performance)"
        ]
    )


def test_an_unknown_activation_name_fails_as_torch():
    with pytest.raises(RuntimeError):
        tnn.TransformerEncoderLayer(D, HEADS, activation="tanh")
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(D, HEADS, activation="tanh")


@pytest.mark.parametrize(
    "src_shape, tgt_shape, message",
    [
        ((S, N, D), (T, N + 1, D), "the batch number of src and tgt must be equal"),
        ((S, N, D), (T, N, D + 1), "the feature number of src and tgt must be equal to d_model"),
    ],
)
def test_transformer_shape_errors_are_torchs(src_shape, tgt_shape, message):
    gs_model, torch_model = both("Transformer", D, HEADS, 1, 1, FF)
    src, tgt = RNG.standard_normal(src_shape).astype("float32"), RNG.standard_normal(tgt_shape).astype("float32")
    with pytest.raises(RuntimeError, match=message):
        torch_model(torch.tensor(src), torch.tensor(tgt))
    with pytest.raises(RuntimeError, match=message):
        gs_model(gs.tensor(src), gs.tensor(tgt))


def test_layers_with_dropout_train_differently_from_eval_and_agree_in_eval():
    gs_layer, torch_layer = both("TransformerEncoderLayer", D, HEADS, FF, dropout=0.5)
    copy_torch_weights(gs_layer, torch_layer, "float64")
    x = gs.tensor(seq(S))
    gs.manual_seed(0)
    trained = gs_layer(x).detach().cpu().numpy()
    gs_layer.eval(), torch_layer.eval()
    assert np.abs(trained - gs_layer(x).detach().cpu().numpy()).max() > 1e-3
    compare(lambda t: gs_layer(t), lambda t: torch_layer(t), [x.cpu().numpy()], "float64", gs_layer, torch_layer)
    assert F.relu is gs_layer.activation


@pytest.mark.parametrize("norm_first", [False, True])
def test_eval_layers_without_grad_agree_with_torchs_fast_path(norm_first):
    """torch runs an eval layer without grad through its fused kernel: the same numbers."""
    for name, args in (
        ("TransformerEncoderLayer", [seq(S, True)]),
        ("TransformerDecoderLayer", [seq(T, True), seq(S, True)]),
    ):
        gs_layer, torch_layer = both(name, D, HEADS, FF, batch_first=True, norm_first=norm_first, activation="gelu")
        copy_torch_weights(gs_layer, torch_layer, "float32")
        gs_layer.eval(), torch_layer.eval()
        arrays = [a.astype("float32") for a in args]
        kwargs = {"src_key_padding_mask" if len(args) == 1 else "tgt_key_padding_mask": padding(args[0].shape[1])}
        with torch.no_grad(), gs.no_grad():
            expected = torch_layer(*map(torch.tensor, arrays), **{k: torch.tensor(v) for k, v in kwargs.items()})
            got = gs_layer(*map(gs.tensor, arrays), **{k: gs.tensor(v) for k, v in kwargs.items()})
        assert_close(got, expected, "float32", name)


def test_custom_encoder_and_decoder_are_used_as_given():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, HEADS, FF, dropout=0.0), 1)
        torch_encoder = tnn.TransformerEncoder(tnn.TransformerEncoderLayer(D, HEADS, FF, dropout=0.0), 1)
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(D, HEADS, FF, dropout=0.0), 1)
    torch_decoder = tnn.TransformerDecoder(tnn.TransformerDecoderLayer(D, HEADS, FF, dropout=0.0), 1)
    gs_model = nn.Transformer(D, HEADS, custom_encoder=encoder, custom_decoder=decoder)
    torch_model = tnn.Transformer(D, HEADS, custom_encoder=torch_encoder, custom_decoder=torch_decoder)
    assert gs_model.encoder is encoder and gs_model.decoder is decoder
    copy_torch_weights(gs_model, torch_model, "float64")
    compare(gs_model, torch_model, [seq(S), seq(T)], "float64", gs_model, torch_model)
