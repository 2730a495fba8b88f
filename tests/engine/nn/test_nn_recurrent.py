"""RNN, LSTM, GRU and their cells agree with torch.nn: a torch state_dict loads, then outputs, final
states and the grads of the input, the initial states and every parameter match (float64, float32)."""

import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn as tnn

import graphscope as gs
from graphscope.engine import hooks, nn
from tests.engine.nn.module_reference import TOL

DTYPES = ["float64", "float32"]


def _flat(result):
    """The tensors of an RNN result, in order: output, h_n (, c_n); or a cell's h (, c)."""
    out = []
    for part in result if isinstance(result, tuple) else (result,):
        out.extend(_flat(part) if isinstance(part, tuple) else [part])
    return out


def _nest(tensors, like):
    """`tensors` regrouped as `like` groups torch's arguments: x, h or (h, c)."""
    return tuple(tensors) if isinstance(like, tuple) else tensors[0]


def _assert_close(got, expected, dtype, what):
    assert tuple(got.shape) == tuple(expected.shape), f"{what} shape: {tuple(got.shape)} != {tuple(expected.shape)}"
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], f"{what} dtype"
    np.testing.assert_allclose(got.detach().cpu().numpy(), expected.detach().cpu().numpy(), err_msg=what, **TOL[dtype])


def compare_recurrent(gs_module, torch_module, x_shape, dtype, state_shapes=None, seed=0):
    """Load torch's weights (via .numpy()) into gs_module; forward, backward a random cotangent, compare.

    state_shapes: None (no initial state), one shape (h_0) or a pair of shapes ((h_0, c_0)).
    """
    rng = np.random.default_rng(seed)
    with torch.no_grad():  # weights away from torch's init, so a wrong one cannot pass by chance
        for p in torch_module.parameters():
            p.uniform_(-0.6, 0.6)
    torch_module.to(getattr(torch, dtype))
    state = {k: v.detach().cpu().numpy() for k, v in torch_module.state_dict().items()}
    gs_module.to(getattr(gs, dtype))
    result = gs_module.load_state_dict(state)
    assert not result.missing_keys and not result.unexpected_keys

    arrays = [rng.uniform(-1.5, 1.5, size=x_shape).astype(dtype)]
    nested = state_shapes is not None and isinstance(state_shapes[0], tuple)
    if state_shapes is not None:
        arrays += [rng.uniform(-1, 1, size=s).astype(dtype) for s in (state_shapes if nested else [state_shapes])]
    gs_in = [gs.tensor(a, requires_grad=True) for a in arrays]
    torch_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    gs_args, torch_args = [gs_in[0]], [torch_in[0]]
    if state_shapes is not None:
        gs_args.append(tuple(gs_in[1:]) if nested else gs_in[1])
        torch_args.append(tuple(torch_in[1:]) if nested else torch_in[1])
    gs_out, torch_out = _flat(gs_module(*gs_args)), _flat(torch_module(*torch_args))
    assert len(gs_out) == len(torch_out)
    for i, (g, t) in enumerate(zip(gs_out, torch_out)):
        _assert_close(g, t, dtype, f"[{dtype}] result {i}")

    cotangents = [rng.standard_normal(t.shape).astype(dtype) for t in torch_out]
    sum((g * gs.tensor(c)).sum() for g, c in zip(gs_out, cotangents)).backward()
    torch.autograd.backward(torch_out, [torch.tensor(c) for c in cotangents])
    for i, (g, t) in enumerate(zip(gs_in, torch_in)):
        _assert_close(g.grad, t.grad, dtype, f"[{dtype}] grad of argument {i}")
    torch_params = dict(torch_module.named_parameters())
    assert [name for name, _ in gs_module.named_parameters()] == list(torch_params)
    for name, p in gs_module.named_parameters():
        _assert_close(p.grad, torch_params[name].grad, dtype, f"[{dtype}] grad of {name}")
    return gs_out


def pair(name, *args, **kwargs):
    """The same layer in graphscope and torch."""
    return getattr(nn, name)(*args, **kwargs), getattr(tnn, name)(*args, **kwargs)


# (id, layer class, constructor kwargs, input shape, initial state shape(s) or None)
LAYERS = [
    ("rnn_tanh", "RNN", {}, (5, 3, 4), None),
    ("rnn_relu_h0", "RNN", dict(nonlinearity="relu"), (5, 3, 4), (1, 3, 6)),
    ("rnn_two_layers_bidirectional", "RNN", dict(num_layers=2, bidirectional=True), (4, 2, 4), (4, 2, 6)),
    ("rnn_no_bias_batch_first", "RNN", dict(bias=False, batch_first=True), (2, 5, 4), None),
    ("lstm", "LSTM", {}, (5, 3, 4), None),
    ("lstm_h0_c0", "LSTM", {}, (5, 3, 4), ((1, 3, 6), (1, 3, 6))),
    ("lstm_two_layers", "LSTM", dict(num_layers=2), (4, 2, 4), ((2, 2, 6), (2, 2, 6))),
    (
        "lstm_bidirectional_batch_first",
        "LSTM",
        dict(bidirectional=True, batch_first=True),
        (2, 5, 4),
        ((2, 2, 6), (2, 2, 6)),
    ),
    ("lstm_three_layers_bidirectional", "LSTM", dict(num_layers=3, bidirectional=True), (3, 2, 4), None),
    ("lstm_no_bias", "LSTM", dict(bias=False), (4, 2, 4), None),
    ("lstm_proj", "LSTM", dict(num_layers=2, bidirectional=True, proj_size=3), (4, 2, 4), ((4, 2, 3), (4, 2, 6))),
    ("lstm_unbatched", "LSTM", {}, (5, 4), ((1, 6), (1, 6))),
    ("lstm_unbatched_batch_first_no_state", "LSTM", dict(batch_first=True, num_layers=2), (5, 4), None),
    ("lstm_one_step_batch_of_one", "LSTM", {}, (1, 1, 4), None),
    ("lstm_long_sequence", "LSTM", {}, (37, 2, 4), ((1, 2, 6), (1, 2, 6))),
    ("gru_long_sequence_bidirectional", "GRU", dict(bidirectional=True), (23, 2, 4), None),
    ("gru", "GRU", {}, (5, 3, 4), None),
    ("gru_h0", "GRU", {}, (5, 3, 4), (1, 3, 6)),
    (
        "gru_two_layers_bidirectional_batch_first",
        "GRU",
        dict(num_layers=2, bidirectional=True, batch_first=True),
        (2, 4, 4),
        (4, 2, 6),
    ),
    ("gru_no_bias", "GRU", dict(bias=False), (4, 2, 4), None),
    ("gru_unbatched", "GRU", dict(num_layers=2), (5, 4), (2, 6)),
    ("rnn_unbatched", "RNN", {}, (5, 4), (1, 6)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, cls, kwargs, x_shape, states", LAYERS, ids=[layer[0] for layer in LAYERS])
def test_layer_matches_torch(name, cls, kwargs, x_shape, states, dtype):
    compare_recurrent(*pair(cls, 4, 6, **kwargs), x_shape, dtype, states)


CELLS = [
    ("rnn_cell", "RNNCell", {}, (3, 4), None),
    ("rnn_cell_relu_h", "RNNCell", dict(nonlinearity="relu"), (3, 4), (3, 6)),
    ("rnn_cell_no_bias", "RNNCell", dict(bias=False), (3, 4), (3, 6)),
    ("rnn_cell_unbatched", "RNNCell", {}, (4,), (6,)),
    ("lstm_cell", "LSTMCell", {}, (3, 4), None),
    ("lstm_cell_h_c", "LSTMCell", {}, (3, 4), ((3, 6), (3, 6))),
    ("lstm_cell_no_bias", "LSTMCell", dict(bias=False), (3, 4), ((3, 6), (3, 6))),
    ("lstm_cell_unbatched", "LSTMCell", {}, (4,), ((6,), (6,))),
    ("gru_cell", "GRUCell", {}, (3, 4), None),
    ("gru_cell_h", "GRUCell", {}, (3, 4), (3, 6)),
    ("gru_cell_no_bias", "GRUCell", dict(bias=False), (3, 4), (3, 6)),
    ("gru_cell_unbatched", "GRUCell", {}, (4,), (6,)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, cls, kwargs, x_shape, states", CELLS, ids=[cell[0] for cell in CELLS])
def test_cell_matches_torch(name, cls, kwargs, x_shape, states, dtype):
    compare_recurrent(*pair(cls, 4, 6, **kwargs), x_shape, dtype, states)


@pytest.mark.parametrize("dtype", DTYPES)
def test_lstm_cell_unrolled_by_hand_matches_torch_lstm_cell(dtype):
    """A cell called in a Python loop, as tutorials write it, keeps matching over many steps."""
    gs_cell, torch_cell = pair("LSTMCell", 3, 5)
    torch_cell.to(getattr(torch, dtype))
    gs_cell.to(getattr(gs, dtype)).load_state_dict({k: v.numpy() for k, v in torch_cell.state_dict().items()})
    xs = np.random.default_rng(1).uniform(-1, 1, size=(12, 2, 3)).astype(dtype)
    gs_x, torch_x = gs.tensor(xs, requires_grad=True), torch.tensor(xs, requires_grad=True)
    gs_state, torch_state = None, None
    for t in range(len(xs)):
        gs_state, torch_state = gs_cell(gs_x[t], gs_state), torch_cell(torch_x[t], torch_state)
    _assert_close(gs_state[0], torch_state[0], dtype, "h")
    (gs_state[0].sum() + gs_state[1].sum()).backward()
    (torch_state[0].sum() + torch_state[1].sum()).backward()
    _assert_close(gs_x.grad, torch_x.grad, dtype, "grad of x")
    _assert_close(gs_cell.weight_hh.grad, torch_cell.weight_hh.grad, dtype, "grad of weight_hh")


# --- dropout between layers ---------------------------------------------------------------------


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_dropout_between_layers_is_identity_in_eval_mode(cls):
    gs_module, torch_module = pair(cls, 4, 6, num_layers=3, dropout=0.5)
    compare_recurrent(gs_module.eval(), torch_module.eval(), (5, 2, 4), "float64")


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_dropout_of_one_zeroes_what_reaches_the_next_layer_as_torch(cls):
    """p=1 drops every element: deterministic, so training mode is compared with torch exactly."""
    gs_module, torch_module = pair(cls, 4, 6, num_layers=2, dropout=1.0)
    compare_recurrent(gs_module, torch_module, (5, 2, 4), "float64")


def test_dropout_applies_between_layers_only_while_training():
    gs.manual_seed(0)
    layer = nn.LSTM(4, 8, num_layers=2, dropout=0.5)
    x = gs.randn(6, 3, 4)
    gs.manual_seed(1)
    first = layer(x)[0].detach().cpu().numpy()
    gs.manual_seed(1)
    again = layer(x)[0].detach().cpu().numpy()
    evaluated = layer.eval()(x)[0].detach().cpu().numpy()
    np.testing.assert_array_equal(first, again)  # the engine's seeded generator decides the mask
    assert np.abs(first - evaluated).max() > 1e-3


def test_dropout_mask_drops_about_p_of_the_first_layer_outputs():
    """With a zero second layer input weight except one identity block, dropped units show as zeros."""
    gs.manual_seed(0)
    layer = nn.RNN(2, 200, num_layers=2, dropout=0.3, nonlinearity="relu", bias=False)
    with gs.no_grad():
        layer.weight_hh_l0.zero_()
        layer.weight_hh_l1.zero_()
        layer.weight_ih_l0.fill_(1.0)
        layer.weight_ih_l1.zero_()
        layer.weight_ih_l1[gs.arange(200), gs.arange(200)] = 1.0  # layer 2 passes its input through
    out = layer(gs.ones(3, 1, 2))[0].detach().cpu().numpy()
    kept = out != 0
    assert kept.mean() == pytest.approx(0.7, abs=0.05)
    np.testing.assert_allclose(out[kept], 2.0 / 0.7)  # survivors scaled by 1 / (1 - p)


def test_dropout_with_one_layer_warns_as_torch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.GRU(3, 4, dropout=0.2)
    assert [str(w.message) for w in caught] == [
        "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
        "num_layers greater than 1, but got dropout=0.2 and num_layers=1"
    ]
    assert caught[0].filename == __file__


# --- parameters, init, state dicts, repr --------------------------------------------------------

CONFIGS = [
    ("RNN", dict(num_layers=2, bidirectional=True)),
    ("RNN", dict(nonlinearity="relu", bias=False)),
    ("LSTM", dict(num_layers=3, bidirectional=True, proj_size=2)),
    ("LSTM", dict(num_layers=2, bias=False, batch_first=True)),
    ("GRU", dict(num_layers=2, bidirectional=True, dropout=0.25)),
    ("RNNCell", dict(nonlinearity="relu")),
    ("LSTMCell", dict(bias=False)),
    ("GRUCell", {}),
]


@pytest.mark.parametrize("cls, kwargs", CONFIGS, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CONFIGS)])
def test_parameter_names_shapes_and_repr_match_torch(cls, kwargs):
    gs_module, torch_module = pair(cls, 5, 7, **kwargs)
    assert [(n, tuple(p.shape)) for n, p in gs_module.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in torch_module.named_parameters()
    ]
    assert list(gs_module.state_dict()) == list(torch_module.state_dict())
    assert repr(gs_module) == repr(torch_module)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"])
def test_every_parameter_starts_uniform_within_one_over_sqrt_hidden(cls):
    gs.manual_seed(0)
    module = getattr(nn, cls)(30, 64)
    bound = 1 / math.sqrt(64)
    values = np.concatenate([p.detach().cpu().numpy().ravel() for p in module.parameters()])
    assert np.abs(values).max() <= bound
    assert values.min() < -0.95 * bound and values.max() > 0.95 * bound
    assert values.std() == pytest.approx(bound / math.sqrt(3), rel=0.05)  # the std of U(-b, b)
    for p in module.parameters():
        assert p.requires_grad and p.dtype is gs.float32


def test_dtype_argument_makes_float64_parameters():
    assert {p.dtype for p in nn.LSTM(3, 4, num_layers=2, dtype=gs.float64).parameters()} == {gs.float64}
    assert {p.dtype for p in nn.GRUCell(3, 4, dtype=gs.float64).parameters()} == {gs.float64}


def test_all_weights_lists_each_layer_and_direction_in_torch_order():
    gs_module, torch_module = pair("LSTM", 3, 4, num_layers=2, bidirectional=True)
    names = {id(p): n for n, p in gs_module.named_parameters()}
    torch_names = {id(p): n for n, p in torch_module.named_parameters()}
    assert [[names[id(p)] for p in group] for group in gs_module.all_weights] == [
        [torch_names[id(p)] for p in group] for group in torch_module.all_weights
    ]
    assert gs_module.flatten_parameters() is None


def test_a_graphscope_state_dict_loads_into_torch_and_gives_the_same_output():
    gs.manual_seed(3)
    gs_module, torch_module = pair("GRU", 3, 5, num_layers=2, batch_first=True)
    state = {k: torch.tensor(v.double().cpu().numpy()) for k, v in gs_module.state_dict().items()}
    torch_module.double().load_state_dict(state)
    x = np.random.default_rng(0).standard_normal((2, 4, 3))
    ours = gs_module.double()(gs.tensor(x))[0].detach().cpu().numpy()
    np.testing.assert_allclose(ours, torch_module(torch.tensor(x))[0].detach().cpu().numpy(), rtol=1e-7)


# --- the graph ---------------------------------------------------------------------------------


class NodeLog(hooks.Observer):
    def __init__(self):
        self.ops = []

    def node_created(self, node, inputs, output, site):
        self.ops.append(node.op)


def test_an_lstm_step_shows_as_engine_ops_in_the_graph():
    layer = nn.LSTM(3, 4)
    log = NodeLog()
    with hooks.observe(log):
        layer(gs.randn(2, 1, 3))
    assert log.ops.count("linear") == 1 + 2  # the input projection, then h @ W_hh.T per step
    assert log.ops.count("sigmoid") == 3 * 2 and log.ops.count("tanh") == 2 * 2
    assert "stack" in log.ops


def test_a_loss_on_the_first_layers_final_state_alone_gives_torchs_grads():
    """Layer 2 gets zero grads, as torch (h_n is one tensor there too), and layer 1 its own."""
    gs_module, torch_module = pair("GRU", 2, 3, num_layers=2)
    gs_module.double().load_state_dict({k: v.numpy() for k, v in torch_module.double().state_dict().items()})
    x = np.random.default_rng(0).standard_normal((4, 1, 2))
    gs_module(gs.tensor(x))[1][0].sum().backward()
    torch_module(torch.tensor(x))[1][0].sum().backward()
    for name, p in torch_module.named_parameters():
        _assert_close(gs_module.get_parameter(name).grad, p.grad, "float64", name)
    assert not gs_module.weight_ih_l1.grad.cpu().numpy().any() and gs_module.weight_ih_l0.grad.cpu().numpy().any()


def _recurrent_weight_grads(lib, module, x):
    """The hidden weight's grads summed over the time steps, with the weight also used outside the layer,
    a hook on it, a second backward into `.grad`, and autograd.grad."""
    w = module.weight_hh_l0
    w.register_hook(lambda g: g * 2)
    loss = module(x)[0].pow(2).sum() + (w * w).sum()
    loss.backward(retain_graph=True)
    loss.backward(retain_graph=True)
    (captured,) = lib.autograd.grad(loss, [w])
    return w.grad, captured


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_a_hidden_weight_used_at_every_step_and_elsewhere_gets_torchs_grad(mode):
    gs_module, torch_module = pair(mode, 3, 4)
    gs_module.double().load_state_dict({k: v.numpy() for k, v in torch_module.double().state_dict().items()})
    x = np.random.default_rng(1).standard_normal((6, 2, 3))
    ours = _recurrent_weight_grads(gs, gs_module, gs.tensor(x))
    theirs = _recurrent_weight_grads(torch, torch_module, torch.tensor(x))
    for got, expected, what in zip(ours, theirs, [".grad after two backwards", "autograd.grad"]):
        _assert_close(got, expected, "float64", what)


# --- errors, with torch's messages --------------------------------------------------------------


def _error(fn, lib):
    with pytest.raises(Exception) as info:
        fn(lib)
    return type(info.value), str(info.value)


def _dtype_text(message):
    return message.replace("graphscope.", "torch.")


CONSTRUCTION_ERRORS = [
    lambda m: m.nn.LSTM(3, 4, dropout=1.5),
    lambda m: m.nn.LSTM(3, 4, dropout=True),
    lambda m: m.nn.LSTM(3, 0),
    lambda m: m.nn.LSTM(0, 3),
    lambda m: m.nn.GRU(3, 3, num_layers=0),
    lambda m: m.nn.LSTM(3.0, 3),
    lambda m: m.nn.RNN(3, 3.0),
    lambda m: m.nn.LSTM(3, 3, bias=1),
    lambda m: m.nn.LSTM(3, 3, batch_first=None),
    lambda m: m.nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda m: m.nn.GRU(3, 4, proj_size=2),
    lambda m: m.nn.RNN(3, 4, proj_size=2),
    lambda m: m.nn.LSTM(3, 4, proj_size=4),
    lambda m: m.nn.LSTM(3, 4, proj_size=-1),
]


@pytest.mark.parametrize("make", CONSTRUCTION_ERRORS, ids=range(len(CONSTRUCTION_ERRORS)))
def test_construction_errors_match_torch(make):
    assert _error(make, gs) == _error(make, torch)


def _layer_call(cls, x, hx=None, **kwargs):
    def call(m):
        module = getattr(m.nn, cls)(3, 4, **kwargs)
        args = [m.zeros(*x)] + (
            [] if hx is None else [tuple(m.zeros(*s) for s in hx) if isinstance(hx[0], tuple) else m.zeros(*hx)]
        )
        return module(*args)

    return call


CALL_ERRORS = [
    _layer_call("LSTM", (5, 2, 6)),
    _layer_call("LSTM", (5, 2, 3, 1)),
    _layer_call("LSTM", (5,)),
    _layer_call("GRU", (5, 2, 3, 1)),
    _layer_call("RNN", (5, 2, 3, 1)),
    _layer_call("RNN", (5, 2, 6), batch_first=True),
    _layer_call("LSTM", (5, 2, 3), ((1, 3, 4), (1, 2, 4))),
    _layer_call("LSTM", (5, 2, 3), ((1, 2, 4), (1, 2, 5))),
    _layer_call("LSTM", (5, 2, 3), ((2, 4), (1, 2, 4))),
    _layer_call("LSTM", (5, 3), ((1, 2, 4), (1, 2, 4))),
    _layer_call("LSTM", (5, 2, 3), ((2, 2, 2), (2, 2, 4)), num_layers=2, proj_size=2, bidirectional=True),
    _layer_call("GRU", (5, 2, 3), (1, 2, 4), num_layers=2),
    _layer_call("GRU", (5, 2, 3), (2, 4)),
    _layer_call("RNN", (5, 3), (2, 1, 4)),
    _layer_call("RNN", (2, 5, 3), (1, 5, 4), batch_first=True),
    _layer_call("GRU", (0, 2, 3)),
    _layer_call("RNNCell", (2, 5)),
    _layer_call("RNNCell", (2, 3, 1)),
    _layer_call("RNNCell", (2, 3), (2, 4, 1)),
    _layer_call("RNNCell", (2, 3), (3, 4)),
    _layer_call("RNNCell", (3,), (1, 4)),
    _layer_call("RNNCell", (2, 3), (4,)),
    _layer_call("LSTMCell", (2, 5)),
    _layer_call("LSTMCell", (2, 3, 1)),
    _layer_call("LSTMCell", (2, 3), ((3, 4), (2, 4))),
    _layer_call("LSTMCell", (2, 3), ((2, 5), (2, 4))),
    _layer_call("LSTMCell", (2, 3), ((2, 4), (2, 5))),
    _layer_call("LSTMCell", (2, 3), ((2, 4), (3, 4))),
    _layer_call("LSTMCell", (2, 3), ((2, 4, 1), (3, 4))),
    _layer_call("LSTMCell", (3,), ((1, 4), (1, 4))),
    _layer_call("GRUCell", (2, 5)),
    _layer_call("GRUCell", (2, 3), (3, 4)),
    _layer_call("GRUCell", (2, 3), (2, 5)),
    _layer_call("GRUCell", (2, 3), (2, 4, 1)),
    _layer_call("GRUCell", (2, 3, 1)),
    lambda m: m.nn.RNNCell(3, 4, nonlinearity="foo")(m.zeros(2, 3)),
]


@pytest.mark.parametrize("call", CALL_ERRORS, ids=range(len(CALL_ERRORS)))
def test_call_errors_match_torch(call):
    assert _error(call, gs) == _error(call, torch)


DTYPE_ERRORS = [
    lambda m: m.nn.LSTM(3, 4)(m.zeros(5, 2, 3, dtype=m.float64)),
    lambda m: m.nn.GRU(3, 4, batch_first=True)(m.zeros(5, 3, dtype=m.float64)),
    lambda m: m.nn.RNN(3, 4)(m.zeros(5, 2, 3), m.zeros(1, 2, 4, dtype=m.float64)),
    lambda m: m.nn.RNNCell(3, 4)(m.zeros(2, 3, dtype=m.float64)),
    lambda m: m.nn.GRUCell(3, 4)(m.zeros(2, 3), m.zeros(2, 4, dtype=m.float64)),
    lambda m: m.nn.LSTMCell(3, 4)(m.zeros(2, 3, dtype=m.float64)),
]


@pytest.mark.parametrize("call", DTYPE_ERRORS, ids=range(len(DTYPE_ERRORS)))
def test_dtype_mismatch_errors_match_torch(call):
    kind, message = _error(call, gs)
    assert (kind, _dtype_text(message)) == _error(call, torch)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: nn.LSTM(3, 4)(gs.zeros(5, 2, 3), gs.zeros(1, 2, 4)),
            "LSTM: hx must be a tuple (h_0, c_0) of two tensors, got Tensor",
        ),
        (
            lambda: nn.LSTM(3, 4)(gs.zeros(5, 2, 3), (gs.zeros(1, 2, 4),)),
            "LSTM: hx must be a tuple (h_0, c_0) of two tensors, got tuple",
        ),
        (
            lambda: nn.LSTMCell(3, 4)(gs.zeros(2, 3), gs.zeros(2, 4)),
            "LSTMCell: hx must be a tuple (h_0, c_0) of two tensors, got Tensor",
        ),
        (lambda: nn.RNN(3, 4)(gs.zeros(5, 2, 3), (gs.zeros(1, 2, 4),)), "hx must be a Tensor, got tuple"),
        (lambda: nn.GRU(3, 4)([[1.0, 2.0, 3.0]]), "input must be a Tensor, got list"),
        (
            lambda: nn.GRUCell(3, 4)(gs.zeros(4, 3), gs.zeros(4)),
            "GRUCell: hidden0 is 1-D but the input is a batch (2-D); give the state a batch dim: shape (4, 4)",
        ),
    ],
)
def test_wrong_kinds_of_state_get_a_clear_error_where_torch_has_none(call, message):
    with pytest.raises((TypeError, RuntimeError)) as info:
        call()
    assert str(info.value) == message
