"""A parameter named like markup whose grads pile up without zeroing: the finding names it literally."""

import graphscope as gs
from graphscope import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        setattr(self, "[bold", nn.Linear(2, 1))

    def forward(self, x):
        return getattr(self, "[bold")(x)


model = Model()
optimizer = gs.optim.SGD(model.parameters(), lr=0.01)
x = gs.ones(3, 2)
for _ in range(4):
    model(x).sum().backward()
    optimizer.step()
