"""Fit a line with SGD and momentum for three passes: zero_grad, backward, step (the optimizer's events)."""

import graphscope as gs
from graphscope import optim

w = gs.tensor([0.5], requires_grad=True)
b = gs.tensor([0.0], requires_grad=True)
x = gs.tensor([1.0, 2.0, 3.0])
y = gs.tensor([3.0, 5.0, 7.0])
optimizer = optim.SGD([w, b], lr=0.1, momentum=0.9)
for step in range(3):
    optimizer.zero_grad()
    loss = ((w * x + b - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
