"""Every layer and loss module agrees with its torch.nn twin (copied weights, float64 and float32)."""

import math

import numpy as np
import pytest
import torch
import torch.nn as tnn

import graphscope as gs
from graphscope.engine import nn

TOL = {"float64": dict(rtol=1e-7, atol=1e-9), "float32": dict(rtol=1e-4, atol=1e-5)}
DTYPES = ["float64", "float32"]


def _copy_weights(gs_module, torch_module, dtype):
    state = {k: v.detach().cpu().numpy().astype(dtype) for k, v in torch_module.state_dict().items()}
    gs_module.load_state_dict(state)
    torch_module.to(getattr(torch, dtype))
    gs_module.to(getattr(gs, dtype))


def compare_module(gs_module, torch_module, inputs, dtype, *, grad_inputs=None, seed=0):
    """Forward both modules on the same inputs; backward a random cotangent; compare all grads."""
    tol = TOL[dtype]
    _copy_weights(gs_module, torch_module, dtype)
    grad_inputs = grad_inputs or [a.dtype.kind == "f" for a in inputs]
    gs_in, torch_in = [], []
    for a, needs in zip(inputs, grad_inputs):
        a = a.astype(dtype) if a.dtype.kind == "f" else a
        gs_in.append(gs.tensor(a.copy(), requires_grad=needs))
        torch_in.append(torch.tensor(a.copy(), requires_grad=needs))
    gs_out, torch_out = gs_module(*gs_in), torch_module(*torch_in)
    assert tuple(gs_out.shape) == tuple(torch_out.shape)
    assert str(gs_out.dtype).split(".")[-1] == str(torch_out.dtype).split(".")[-1]
    np.testing.assert_allclose(gs_out.detach().cpu().numpy(), torch_out.detach().cpu().numpy(), **tol)
    if not torch_out.requires_grad:
        return gs_out
    cotangent = np.random.default_rng(seed).standard_normal(torch_out.shape).astype(dtype)
    gs_out.backward(gs.tensor(cotangent))
    torch_out.backward(torch.tensor(cotangent))
    for g, t in zip(gs_in, torch_in):
        if t.grad is not None:
            np.testing.assert_allclose(g.grad.cpu().numpy(), t.grad.cpu().numpy(), **tol)
    torch_params = dict(torch_module.named_parameters())
    for name, p in gs_module.named_parameters():
        t = torch_params[name]
        if t.grad is None:
            assert p.grad is None, name
        else:
            np.testing.assert_allclose(p.grad.cpu().numpy(), t.grad.cpu().numpy(), err_msg=name, **tol)
    return gs_out


def _x(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


LAYERS = [
    ("linear", lambda: (nn.Linear(4, 3), tnn.Linear(4, 3)), [(5, 4)]),
    ("linear_3d", lambda: (nn.Linear(4, 3), tnn.Linear(4, 3)), [(2, 5, 4)]),
    ("linear_no_bias", lambda: (nn.Linear(4, 3, bias=False), tnn.Linear(4, 3, bias=False)), [(5, 4)]),
    ("relu", lambda: (nn.ReLU(), tnn.ReLU()), [(3, 4)]),
    ("leaky_relu", lambda: (nn.LeakyReLU(0.1), tnn.LeakyReLU(0.1)), [(3, 4)]),
    ("tanh", lambda: (nn.Tanh(), tnn.Tanh()), [(3, 4)]),
    ("sigmoid", lambda: (nn.Sigmoid(), tnn.Sigmoid()), [(3, 4)]),
    ("gelu", lambda: (nn.GELU(), tnn.GELU()), [(3, 4)]),
    ("gelu_tanh", lambda: (nn.GELU("tanh"), tnn.GELU("tanh")), [(3, 4)]),
    ("softmax", lambda: (nn.Softmax(dim=1), tnn.Softmax(dim=1)), [(3, 4)]),
    ("log_softmax", lambda: (nn.LogSoftmax(dim=-1), tnn.LogSoftmax(dim=-1)), [(3, 4)]),
    ("flatten", lambda: (nn.Flatten(), tnn.Flatten()), [(2, 3, 4)]),
    ("flatten_dims", lambda: (nn.Flatten(0, 1), tnn.Flatten(0, 1)), [(2, 3, 4)]),
    ("identity", lambda: (nn.Identity(), tnn.Identity()), [(2, 3)]),
    ("layer_norm", lambda: (nn.LayerNorm(4), tnn.LayerNorm(4)), [(3, 4)]),
    ("layer_norm_2d", lambda: (nn.LayerNorm((3, 4)), tnn.LayerNorm((3, 4))), [(2, 3, 4)]),
    ("layer_norm_no_affine", lambda: (nn.LayerNorm(4, elementwise_affine=False),
                                      tnn.LayerNorm(4, elementwise_affine=False)), [(3, 4)]),
    ("mlp", lambda: (nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)),
                     tnn.Sequential(tnn.Linear(4, 8), tnn.Tanh(), tnn.Linear(8, 2))), [(6, 4)]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, make, shapes", LAYERS, ids=[layer[0] for layer in LAYERS])
def test_layer_matches_torch(name, make, shapes, dtype):
    gs_module, torch_module = make()
    compare_module(gs_module, torch_module, [_x(*s, seed=i) for i, s in enumerate(shapes)], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_norm_with_learned_affine_matches_torch(dtype):
    gs_module, torch_module = nn.LayerNorm(5), tnn.LayerNorm(5)
    with torch.no_grad():
        torch_module.weight.uniform_(0.5, 1.5)
        torch_module.bias.uniform_(-1, 1)
    compare_module(gs_module, torch_module, [_x(3, 5)], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_matches_torch(dtype, padding_idx):
    ids = np.array([[0, 2, 3], [3, 3, 1]])
    compare_module(nn.Embedding(5, 4, padding_idx=padding_idx), tnn.Embedding(5, 4, padding_idx=padding_idx),
                   [ids], dtype)


def test_dropout_in_eval_matches_torch_identity():
    gs_module, torch_module = nn.Dropout(0.4).eval(), tnn.Dropout(0.4).eval()
    compare_module(gs_module, torch_module, [_x(4, 5)], "float64")


def test_dropout_module_drops_only_in_training():
    gs.manual_seed(0)
    layer = nn.Dropout(0.5)
    x = gs.ones(100, 100)
    assert layer.training
    assert (layer(x).cpu().numpy() == 0).mean() == pytest.approx(0.5, abs=0.02)
    layer.eval()
    np.testing.assert_array_equal(layer(x).cpu().numpy(), x.cpu().numpy())


def _int_targets(n, classes, seed=3):
    return np.random.default_rng(seed).integers(0, classes, size=n).astype(np.int64)


LOSSES = [
    ("mse", lambda: (nn.MSELoss(), tnn.MSELoss()), lambda: [_x(4, 3), _x(4, 3, seed=1)]),
    ("mse_sum", lambda: (nn.MSELoss(reduction="sum"), tnn.MSELoss(reduction="sum")),
     lambda: [_x(4, 3), _x(4, 3, seed=1)]),
    ("l1_none", lambda: (nn.L1Loss(reduction="none"), tnn.L1Loss(reduction="none")),
     lambda: [_x(4, 3), _x(4, 3, seed=1)]),
    ("cross_entropy", lambda: (nn.CrossEntropyLoss(), tnn.CrossEntropyLoss()),
     lambda: [_x(6, 5), _int_targets(6, 5)]),
    ("cross_entropy_ignore_smooth",
     lambda: (nn.CrossEntropyLoss(ignore_index=1, label_smoothing=0.1),
              tnn.CrossEntropyLoss(ignore_index=1, label_smoothing=0.1)),
     lambda: [_x(8, 4), _int_targets(8, 4)]),
    ("cross_entropy_weight_sum",
     lambda: (nn.CrossEntropyLoss(weight=gs.tensor([1.0, 2.0, 0.5]), reduction="sum"),
              tnn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5]), reduction="sum")),
     lambda: [_x(6, 3), _int_targets(6, 3)]),
    ("nll", lambda: (nn.NLLLoss(), tnn.NLLLoss()), lambda: [_x(6, 5, low=-3, high=0), _int_targets(6, 5)]),
    ("bce", lambda: (nn.BCELoss(), tnn.BCELoss()), lambda: [_x(4, 3, low=0.05, high=0.95), _x(4, 3, seed=1, low=0, high=1)]),
    ("bce_with_logits", lambda: (nn.BCEWithLogitsLoss(), tnn.BCEWithLogitsLoss()),
     lambda: [_x(4, 3), _x(4, 3, seed=1, low=0, high=1)]),
    ("bce_with_logits_pos_weight",
     lambda: (nn.BCEWithLogitsLoss(pos_weight=gs.tensor([2.0, 0.5, 1.0])),
              tnn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 0.5, 1.0]))),
     lambda: [_x(4, 3), _x(4, 3, seed=1, low=0, high=1)]),
]


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


@pytest.mark.parametrize("fn, expected_std", [
    (lambda t: nn.init.xavier_uniform_(t), math.sqrt(2 / (300 + 200))),
    (lambda t: nn.init.xavier_normal_(t), math.sqrt(2 / (300 + 200))),
    (lambda t: nn.init.kaiming_uniform_(t, nonlinearity="relu"), math.sqrt(2 / 300)),
    (lambda t: nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"), math.sqrt(2 / 200)),
    (lambda t: nn.init.normal_(t, 0.0, 0.5), 0.5),
    (lambda t: nn.init.uniform_(t, -1.0, 1.0), 1 / math.sqrt(3)),
])
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
            lib.Flatten(), lib.Linear(4, 8), lib.ReLU(), lib.LeakyReLU(0.2), lib.GELU(), lib.Dropout(0.1),
            lib.LayerNorm(8), lib.Embedding(10, 3, padding_idx=0), lib.Softmax(dim=1), lib.LogSoftmax(dim=1),
            lib.Identity(), lib.Tanh(), lib.Sigmoid(), lib.Linear(8, 2, bias=False),
            lib.ModuleList([lib.Linear(2, 2), lib.Linear(2, 2), lib.Linear(2, 2), lib.ReLU()]),
            lib.ModuleDict({"head": lib.Linear(2, 1)}),
            lib.CrossEntropyLoss(), lib.MSELoss(),
        )

    assert repr(build(nn)) == repr(build(tnn))


def test_parameter_repr_says_parameter_containing():
    assert repr(nn.Parameter(gs.zeros(2))).startswith("Parameter containing:\ntensor(")
