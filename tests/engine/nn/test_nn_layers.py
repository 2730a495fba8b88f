"""Every layer and loss module agrees with its torch.nn twin (copied weights, float64 and float32)."""

import math

import numpy as np
import pytest
import torch
import torch.nn as tnn

import graphscope as gs
from graphscope.engine import nn
from tests.engine.nn.module_reference import DTYPES, compare_module
from tests.engine.nn.module_tables import LAYERS, LOSSES, uniform


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, make, shapes", LAYERS, ids=[layer[0] for layer in LAYERS])
def test_layer_matches_torch(name, make, shapes, dtype):
    gs_module, torch_module = make()
    compare_module(gs_module, torch_module, [uniform(*s, seed=i) for i, s in enumerate(shapes)], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_norm_with_learned_affine_matches_torch(dtype):
    gs_module, torch_module = nn.LayerNorm(5), tnn.LayerNorm(5)
    with torch.no_grad():
        torch_module.weight.uniform_(0.5, 1.5)
        torch_module.bias.uniform_(-1, 1)
    compare_module(gs_module, torch_module, [uniform(3, 5)], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_matches_torch(dtype, padding_idx):
    ids = np.array([[0, 2, 3], [3, 3, 1]])
    compare_module(
        nn.Embedding(5, 4, padding_idx=padding_idx), tnn.Embedding(5, 4, padding_idx=padding_idx), [ids], dtype
    )


def test_dropout_in_eval_matches_torch_identity():
    gs_module, torch_module = nn.Dropout(0.4).eval(), tnn.Dropout(0.4).eval()
    compare_module(gs_module, torch_module, [uniform(4, 5)], "float64")


def test_dropout_module_drops_only_in_training():
    gs.manual_seed(0)
    layer = nn.Dropout(0.5)
    x = gs.ones(100, 100)
    assert layer.training
    assert (layer(x).cpu().numpy() == 0).mean() == pytest.approx(0.5, abs=0.02)
    layer.eval()
    np.testing.assert_array_equal(layer(x).cpu().numpy(), x.cpu().numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, make, inputs", LOSSES, ids=[loss[0] for loss in LOSSES])
def test_loss_module_matches_torch(name, make, inputs, dtype):
    gs_loss, torch_loss = make()
    arrays = inputs()
    compare_module(gs_loss, torch_loss, arrays, dtype, grad_inputs=[True] + [False] * (len(arrays) - 1))


# --- initialisation ---------------------------------------------------------------------------


def test_linear_default_init_is_kaiming_uniform_with_bias_bound():
    gs.manual_seed(0)
    layer = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, b = layer.weight.detach().cpu().numpy(), layer.bias.detach().cpu().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert w.std() == pytest.approx(bound / math.sqrt(3), rel=0.02)
    assert np.abs(w).max() > 0.99 * bound
    assert layer.weight.dtype == gs.float32 and layer.weight.requires_grad and layer.weight.is_leaf


def test_init_is_reproducible_under_manual_seed():
    gs.manual_seed(123)
    a = nn.Linear(5, 5).weight.detach().cpu().numpy().copy()
    gs.manual_seed(123)
    b = nn.Linear(5, 5).weight.detach().cpu().numpy().copy()
    np.testing.assert_array_equal(a, b)


def test_embedding_init_is_standard_normal_with_zero_padding_row():
    gs.manual_seed(0)
    table = nn.Embedding(1000, 50, padding_idx=3)
    w = table.weight.detach().cpu().numpy()
    assert np.all(w[3] == 0)
    assert w.mean() == pytest.approx(0, abs=0.02)
    assert w.std() == pytest.approx(1, abs=0.02)


def test_layer_norm_starts_as_ones_and_zeros():
    layer = nn.LayerNorm(6)
    np.testing.assert_array_equal(layer.weight.detach().cpu().numpy(), np.ones(6, np.float32))
    np.testing.assert_array_equal(layer.bias.detach().cpu().numpy(), np.zeros(6, np.float32))


@pytest.mark.parametrize(
    "fn, expected_std",
    [
        (lambda t: nn.init.xavier_uniform_(t), math.sqrt(2 / (300 + 200))),
        (lambda t: nn.init.xavier_normal_(t), math.sqrt(2 / (300 + 200))),
        (lambda t: nn.init.kaiming_uniform_(t, nonlinearity="relu"), math.sqrt(2 / 300)),
        (lambda t: nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"), math.sqrt(2 / 200)),
        (lambda t: nn.init.normal_(t, 0.0, 0.5), 0.5),
        (lambda t: nn.init.uniform_(t, -1.0, 1.0), 1 / math.sqrt(3)),
    ],
)
def test_init_functions_give_the_documented_spread(fn, expected_std):
    gs.manual_seed(0)
    t = nn.Parameter(gs.empty(200, 300))
    assert fn(t) is t
    assert t.detach().cpu().numpy().std() == pytest.approx(expected_std, rel=0.03)


def test_constant_inits_fill_in_place():
    t = nn.Parameter(gs.empty(3, 4))
    nn.init.zeros_(t)
    assert (t.detach().cpu().numpy() == 0).all()
    nn.init.ones_(t)
    assert (t.detach().cpu().numpy() == 1).all()
    nn.init.constant_(t, 2.5)
    assert (t.detach().cpu().numpy() == 2.5).all()


def test_calculate_gain_matches_torch():
    for name, param in [("linear", None), ("relu", None), ("tanh", None), ("leaky_relu", 0.2), ("sigmoid", None)]:
        assert nn.init.calculate_gain(name, param) == pytest.approx(tnn.init.calculate_gain(name, param))


# --- repr -------------------------------------------------------------------------------------


def test_reprs_match_torch():
    def build(lib):
        return lib.Sequential(
            lib.Flatten(),
            lib.Linear(4, 8),
            lib.ReLU(),
            lib.LeakyReLU(0.2),
            lib.GELU(),
            lib.Dropout(0.1),
            lib.LayerNorm(8),
            lib.Embedding(10, 3, padding_idx=0),
            lib.Softmax(dim=1),
            lib.LogSoftmax(dim=1),
            lib.Identity(),
            lib.Tanh(),
            lib.Sigmoid(),
            lib.Linear(8, 2, bias=False),
            lib.ModuleList([lib.Linear(2, 2), lib.Linear(2, 2), lib.Linear(2, 2), lib.ReLU()]),
            lib.ModuleDict({"head": lib.Linear(2, 1)}),
            lib.CrossEntropyLoss(),
            lib.MSELoss(),
        )

    assert repr(build(nn)) == repr(build(tnn))


def test_parameter_repr_says_parameter_containing():
    assert repr(nn.Parameter(gs.zeros(2))).startswith("Parameter containing:\ntensor(")
