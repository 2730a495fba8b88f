"""Dropout2d, Unflatten and the CNN names: torch's behaviour and names under gs.nn."""

import numpy as np
import pytest
import torch
import torch.nn as tnn
import torch.nn.functional as TF

import graphscope as gs
import graphscope.nn.functional as F
from graphscope import nn
from tests.engine.nn.module_reference import DTYPES, compare_module
from tests.engine.nn.module_tables import UPSAMPLE

# --- dropout2d ---------------------------------------------------------------------------------


def test_dropout2d_zeroes_whole_channels_and_scales_the_rest():
    gs.manual_seed(0)
    x = gs.ones(40, 50, 3, 4, requires_grad=True)
    values = F.dropout2d(x, 0.3).detach().cpu().numpy()
    per_channel = values.reshape(40, 50, -1)
    assert np.all(per_channel.min(axis=-1) == per_channel.max(axis=-1))  # a channel is all kept or all zero
    kept = np.unique(values[values != 0])
    np.testing.assert_allclose(kept, [1 / 0.7], rtol=1e-6)
    assert abs((per_channel[..., 0] == 0).mean() - 0.3) < 0.03


def test_dropout2d_backward_applies_the_same_channel_mask():
    gs.manual_seed(1)
    x = gs.randn(6, 5, 3, 3, requires_grad=True)
    y = F.dropout2d(x, 0.5)
    cotangent = np.random.default_rng(0).standard_normal((6, 5, 3, 3)).astype(np.float32)
    y.backward(gs.tensor(cotangent))
    kept = (y.detach().cpu().numpy() != 0) | (x.detach().cpu().numpy() == 0)
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.where(kept, cotangent * 2.0, 0.0), rtol=1e-6)


def test_dropout2d_in_eval_and_with_p_0_is_the_identity():
    x = gs.randn(2, 3, 4, 4)
    assert F.dropout2d(x, 0.5, training=False) is x
    assert nn.Dropout2d(0.0)(x) is x
    assert nn.Dropout2d().eval()(x) is x


def test_dropout2d_with_p_1_zeroes_everything():
    np.testing.assert_array_equal(F.dropout2d(gs.ones(2, 3, 4, 4), 1.0).cpu().numpy(), np.zeros((2, 3, 4, 4)))


def test_dropout2d_module_is_reproducible_under_manual_seed_and_prints_as_torch():
    layer = nn.Dropout2d(0.4)
    gs.manual_seed(5)
    a = layer(gs.ones(4, 6, 2, 2)).cpu().numpy()
    gs.manual_seed(5)
    b = layer(gs.ones(4, 6, 2, 2)).cpu().numpy()
    np.testing.assert_array_equal(a, b)
    assert repr(layer) == repr(tnn.Dropout2d(0.4))


@pytest.mark.parametrize(
    "shape, expected",
    [
        ((2, 3, 4), "assuming that channel-wise 1D dropout"),
        ((2, 3), "Received a 2-D input to dropout2d"),
        ((2, 3, 4, 5, 6), "Received a 5-D input to dropout2d"),
    ],
)
def test_dropout2d_warns_as_torch_about_inputs_that_are_not_4d(shape, expected):
    with pytest.warns(UserWarning, match=expected) as ours:
        F.dropout2d(gs.ones(*shape))
    with pytest.warns(UserWarning) as theirs:
        TF.dropout2d(torch.ones(*shape))
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]


def test_dropout2d_of_a_3d_input_drops_whole_rows_as_torch():
    gs.manual_seed(2)
    with pytest.warns(UserWarning):
        values = F.dropout2d(gs.ones(30, 20, 7), 0.5).cpu().numpy()
    assert np.all(values.min(axis=-1) == values.max(axis=-1))


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.Dropout2d(1.5),
        lambda nn: nn.functional.dropout2d(gs.ones(2, 2, 2, 2) if nn is not tnn else torch.ones(2, 2, 2, 2), -0.1),
    ],
)
def test_dropout2d_rejects_a_probability_outside_0_1_as_torch(make):
    with pytest.raises(ValueError) as theirs:
        make(tnn)
    with pytest.raises(ValueError) as ours:
        make(nn)
    assert str(ours.value) == str(theirs.value)


# --- unflatten ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim, sizes, shape", [(1, (2, 5), (3, 10)), (-1, (2, -1), (3, 4, 6)), (0, [2, 3], (6, 4))])
def test_unflatten_matches_torch(dim, sizes, shape, dtype):
    x = np.random.default_rng(0).standard_normal(shape)
    compare_module(nn.Unflatten(dim, sizes), tnn.Unflatten(dim, sizes), [x], dtype)
    assert repr(nn.Unflatten(dim, sizes)) == repr(tnn.Unflatten(dim, sizes))


# --- upsample ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, make, shape", UPSAMPLE, ids=[u[0] for u in UPSAMPLE])
def test_upsample_matches_torch(name, make, shape, dtype):
    compare_module(make(nn), make(tnn), [np.random.default_rng(0).standard_normal(shape)], dtype)
    assert repr(make(nn)) == repr(make(tnn))


# --- the names a CNN tutorial reaches for ------------------------------------------------------

NN = [
    "Conv1d",
    "Conv2d",
    "MaxPool2d",
    "AvgPool2d",
    "AdaptiveAvgPool2d",
    "BatchNorm1d",
    "BatchNorm2d",
    "Dropout2d",
    "Unflatten",
    "Flatten",
    "Upsample",
]
FUNCTIONAL = [
    "conv1d",
    "conv2d",
    "max_pool2d",
    "avg_pool2d",
    "adaptive_avg_pool2d",
    "batch_norm",
    "dropout2d",
    "pad",
    "interpolate",
]


def test_cnn_names_exist_in_gs_nn_and_gs_nn_functional():
    assert [name for name in NN if not hasattr(gs.nn, name) or name not in gs.nn.__all__] == []
    assert [
        name for name in FUNCTIONAL if not hasattr(gs.nn.functional, name) or name not in gs.nn.functional.__all__
    ] == []


def test_a_small_cnn_trains_on_a_torch_state_dict_step_for_step_as_torch():
    def build(nn):
        return nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1),
            nn.BatchNorm2d(4),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(4, 6, 3),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(2),
            nn.Flatten(),
            nn.Linear(24, 3),
        )

    torch.manual_seed(0)
    theirs, ours = build(tnn), build(nn)
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((8, 1, 10, 10)).astype(np.float32), rng.integers(0, 3, 8)
    opt_t = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9)
    opt_g = gs.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    for _ in range(5):
        losses = []
        for model, opt, lib in ((theirs, opt_t, torch), (ours, opt_g, gs)):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(lib.tensor(x)), lib.tensor(y))
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert losses[1] == pytest.approx(losses[0], rel=1e-4, abs=1e-5)
    for (name, a), b in zip(ours.state_dict().items(), theirs.state_dict().values()):
        np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), rtol=1e-3, atol=1e-4, err_msg=name)
