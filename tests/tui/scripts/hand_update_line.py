"""Fit a line for three passes with the update written by hand, as PyTorch's autograd lesson does."""

import graphscope as gs

w = gs.tensor([0.5], requires_grad=True)
b = gs.tensor([0.0], requires_grad=True)
x = gs.tensor([1.0, 2.0, 3.0])
y = gs.tensor([3.0, 5.0, 7.0])
lr = 0.1
for step in range(3):
    loss = ((w * x + b - y) ** 2).mean()
    loss.backward()
    with gs.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
