"""A deliberately broken model that turns its loss into NaN after a few steps: the debugger's showcase.

The model predicts a mean and a spread (sigma) for each target and is trained with the
Gaussian negative log-likelihood, log(sigma) + (y - mean)^2 / (2 sigma^2). Two mistakes:

  1. sigma comes straight out of a Linear layer, so nothing keeps it positive
     (the fix: sigma = softplus(raw) or exp(raw));
  2. the learning rate is far too large for this loss.

Each step pushes sigma down harder than the last, it overshoots below zero, and log(sigma) of
a negative number is NaN: the NaN is born on the line marked below and makes the loss NaN.
Through backward the gradients stay finite (log's derivative, 1/sigma, is finite for a negative
sigma) but explode: sigma.weight's grad norm passes 1000 in that pass. The loop stops at the NaN
loss. Open it in the debugger with

    graphscope run samples/exploding_nan.py

and step back from the NaN loss to the node that made it. Plain run:  python samples/exploding_nan.py
"""

import math

import graphscope as gs
from graphscope import nn, optim


class GaussianRegressor(nn.Module):
    """Predicts (mean, sigma) for each input row."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 16), nn.Tanh())
        self.mean = nn.Linear(16, 1)
        self.sigma = nn.Linear(16, 1)
        with gs.no_grad():  # start every sigma near 1, so the first losses are finite
            self.sigma.weight.mul_(0.01)
            self.sigma.bias.fill_(1.0)

    def forward(self, x):
        h = self.body(x)
        return self.mean(h).squeeze(1), self.sigma(h).squeeze(1)  # BUG: sigma may go negative


def gaussian_nll(mean, sigma, y):
    log_sigma = sigma.log()  # <- the NaN is born here, once some sigma <= 0
    return (log_sigma + (y - mean) ** 2 / (2 * sigma ** 2)).mean()


def main(steps=20, verbose=True):
    gs.manual_seed(0)
    x = gs.randn(64, 3)
    y = x @ gs.tensor([0.5, -1.0, 0.25]) + 0.05 * gs.randn(64)

    model = GaussianRegressor()
    optimizer = optim.SGD(model.parameters(), lr=0.3)  # BUG: far too large for this loss

    losses = []
    for step in range(steps):
        mean, sigma = model(x)
        loss = gaussian_nll(mean, sigma, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if verbose:
            print(f"step {step:2d}  loss {loss.item():10.4f}  smallest sigma {sigma.min().item():8.4f}")
        if math.isnan(loss.item()):
            if verbose:
                print(f"loss is NaN at step {step}: some sigma went non-positive and log(sigma) made a NaN")
            break
    return {"losses": losses}


if __name__ == "__main__":
    import sys

    main(*map(int, sys.argv[1:2]))  # an optional argument: the number of steps (the tests run few)
