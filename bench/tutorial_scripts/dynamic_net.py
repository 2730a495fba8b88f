"""The shape of PyTorch's "Control Flow + Weight Sharing" tutorial (examples_nn/dynamic_net.py), written here.

A polynomial of random order 3 to 5 with five scalar parameters, the fourth and fifth orders sharing one,
fit to sin on 2000 points: MSELoss(reduction="sum"), SGD with momentum, the loss printed every 2000 steps.
Tiny tensors, many steps: per-op overhead is all there is. The step count is the first argument.
"""

import math
import random
import sys

import torch

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 30000


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x**2 + self.d * x**3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x**exp
        return y

    def string(self):
        return f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3 ..."


x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
model = DynamicNet()
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(STEPS):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 2000 == 1999:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"Result: {model.string()}")
