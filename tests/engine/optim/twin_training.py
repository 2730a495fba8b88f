"""One MLP in graphscope and its torch twin from identical weights, trained alike: the optimizer tests compare them."""

import numpy as np
import torch
import torch.nn as tnn

from graphscope.engine import nn

STEPS = 50


def make_pair(seed=0):
    """(graphscope model, torch model): the same MLP with the same weights."""
    torch.manual_seed(seed)
    torch_model = tnn.Sequential(
        tnn.Linear(5, 16), tnn.Tanh(), tnn.Linear(16, 16), tnn.ReLU(), tnn.Linear(16, 3)
    ).double()
    gs_model = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3)).double()
    gs_model.load_state_dict(torch_model.state_dict())
    return gs_model, torch_model


def data(seed=1):
    """(inputs, class targets) of a small classification problem."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((64, 5)), rng.integers(0, 3, size=64)


def train(model, make_optimizer, x, y, lib):
    """The losses of STEPS steps of `model` with cross-entropy from `lib` (gs or torch)."""
    loss_fn = lib.nn.CrossEntropyLoss()
    optimizer = make_optimizer(model.parameters())
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
