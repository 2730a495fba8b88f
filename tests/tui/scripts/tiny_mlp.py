"""A two-layer MLP on four points, three steps: the TUI tests' live script."""

import graphscope as gs
from graphscope import nn

gs.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
x = gs.randn(4, 3)
y = gs.randn(4, 1)
for step in range(3):
    loss = ((model(x) - y) ** 2).mean()
    model.zero_grad()
    loss.backward()
    print(f"step {step} loss {loss.item():.4f}")
