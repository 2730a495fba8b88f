"""Classify three interleaved spirals with a small MLP, CrossEntropyLoss and Adam.

The classic toy problem from CS231n: 300 points on three spiral arms, one class per arm. A
straight line cannot separate them; two hidden layers of 64 ReLU units can, and reach well
over 95% training accuracy in a few hundred steps.

Run it with:  python samples/spiral_classifier.py
"""

import math

import graphscope as gs
from graphscope import nn, optim


def make_spirals(points_per_class=100, classes=3):
    """Points on `classes` spiral arms (radius 0..1, a little angular noise), labelled by arm."""
    radius = gs.linspace(0.0, 1.0, points_per_class)
    xs, labels = [], []
    for k in range(classes):
        angle = gs.linspace(k * 4.0, (k + 1) * 4.0, points_per_class) + 0.2 * gs.randn(points_per_class)
        xs.append(gs.stack([radius * angle.sin(), radius * angle.cos()], dim=1))
        labels.append(gs.full((points_per_class,), k, dtype=gs.int64))
    return gs.cat(xs), gs.cat(labels)


def main(steps=400, verbose=True):
    gs.manual_seed(0)
    x, y = make_spirals()

    model = nn.Sequential(
        nn.Linear(2, 64),
        nn.ReLU(),
        nn.Linear(64, 64),
        nn.ReLU(),
        nn.Linear(64, 3),
    )
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.01)

    losses = []
    for step in range(steps):
        logits = model(x)
        loss = loss_fn(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if verbose and (step % 50 == 0 or step == steps - 1):
            print(f"step {step:4d}  loss {loss.item():.4f}")

    with gs.no_grad():
        predictions = model(x).argmax(dim=1)
    accuracy = (predictions == y).float().mean().item()
    if verbose:
        print(f"training accuracy: {accuracy:.1%}  (chance: {1 / 3:.1%}, uniform loss ln 3 = {math.log(3):.4f})")
    return {"losses": losses, "accuracy": accuracy}


if __name__ == "__main__":
    import sys

    main(*map(int, sys.argv[1:2]))  # an optional argument: the number of steps (the tests run few)
