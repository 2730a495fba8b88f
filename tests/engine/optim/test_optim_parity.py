"""The same MLP from identical weights, trained 50 steps in graphscope and in torch: same losses and weights."""

import numpy as np
import pytest
import torch
import torch.nn as tnn

import graphscope as gs
from graphscope.engine import nn, optim
from tests.engine.optim.twin_training import STEPS, data, make_pair, train

OPTIMIZERS = [
    ("sgd", "SGD", dict(lr=0.1)),
    ("sgd_momentum", "SGD", dict(lr=0.05, momentum=0.9)),
    ("sgd_momentum_dampening", "SGD", dict(lr=0.05, momentum=0.9, dampening=0.3)),
    ("sgd_nesterov", "SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("sgd_weight_decay", "SGD", dict(lr=0.05, momentum=0.8, weight_decay=0.01)),
    ("sgd_maximize", "SGD", dict(lr=0.01, momentum=0.5, maximize=True)),
    ("adam", "Adam", dict(lr=0.01)),
    ("adam_weight_decay", "Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.05)),
    ("adam_amsgrad", "Adam", dict(lr=0.02, amsgrad=True)),
    ("adamw", "AdamW", dict(lr=0.01)),
    ("adamw_amsgrad", "AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("rmsprop", "RMSprop", dict(lr=0.005)),
    ("rmsprop_momentum_centered", "RMSprop", dict(lr=0.002, momentum=0.9, centered=True, weight_decay=0.01)),
]


@pytest.mark.parametrize("name, cls, options", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_training_matches_torch_in_float64(name, cls, options):
    gs_model, torch_model = make_pair()
    x, y = data()
    gs_losses = train(gs_model, lambda p: getattr(optim, cls)(p, **options), gs.tensor(x), gs.tensor(y), gs)
    torch_losses = train(
        torch_model, lambda p: getattr(torch.optim, cls)(p, **options), torch.tensor(x), torch.tensor(y), torch
    )
    np.testing.assert_allclose(gs_losses, torch_losses, rtol=1e-9, atol=1e-12)
    for (gname, gp), (tname, tp) in zip(gs_model.named_parameters(), torch_model.named_parameters()):
        assert gname == tname
        np.testing.assert_allclose(
            gp.detach().cpu().numpy(), tp.detach().cpu().numpy(), rtol=1e-9, atol=1e-12, err_msg=gname
        )
    if not options.get("maximize"):
        assert gs_losses[-1] < gs_losses[0]


def test_regression_training_with_mse_matches_torch():
    gs_model, torch_model = make_pair(seed=3)
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((32, 5)), rng.standard_normal((32, 3))
    gs_opt = optim.Adam(gs_model.parameters(), lr=0.01)
    torch_opt = torch.optim.Adam(torch_model.parameters(), lr=0.01)
    for _ in range(STEPS):
        for model, opt, lib, t in ((gs_model, gs_opt, nn, gs.tensor), (torch_model, torch_opt, tnn, torch.tensor)):
            opt.zero_grad()
            loss = lib.MSELoss()(model(t(x)), t(y))
            loss.backward()
            opt.step()
    for gp, tp in zip(gs_model.parameters(), torch_model.parameters()):
        np.testing.assert_allclose(gp.detach().cpu().numpy(), tp.detach().cpu().numpy(), rtol=1e-9, atol=1e-12)


def test_param_groups_with_their_own_options_match_torch():
    gs_model, torch_model = make_pair()
    x, y = data()

    def groups(model, lib_optim):
        return lib_optim.SGD(
            [
                {"params": model[0].parameters(), "lr": 0.2},
                {"params": list(model[2].parameters()) + list(model[4].parameters())},
            ],
            lr=0.05,
            momentum=0.9,
        )

    gs_losses = train(gs_model, lambda p: groups(gs_model, optim), gs.tensor(x), gs.tensor(y), gs)
    torch_losses = train(
        torch_model, lambda p: groups(torch_model, torch.optim), torch.tensor(x), torch.tensor(y), torch
    )
    np.testing.assert_allclose(gs_losses, torch_losses, rtol=1e-9)


def test_float32_training_tracks_torch_closely():
    gs_model, torch_model = make_pair()
    gs_model.float()
    torch_model.float()
    x, y = data()
    gs_losses = train(gs_model, lambda p: optim.Adam(p, lr=0.01), gs.tensor(x.astype(np.float32)), gs.tensor(y), gs)
    torch_losses = train(
        torch_model, lambda p: torch.optim.Adam(p, lr=0.01), torch.tensor(x.astype(np.float32)), torch.tensor(y), torch
    )
    np.testing.assert_allclose(gs_losses, torch_losses, rtol=1e-4)
    assert gs_model[0].weight.dtype == gs.float32
