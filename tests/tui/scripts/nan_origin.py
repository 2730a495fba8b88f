"""A log of a negative number: the NaN is born at `h.log()` and spreads to the loss and the grads."""

import graphscope as gs

w = gs.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
x = gs.tensor([[1.0, 2.0], [3.0, -4.0]])
h = x @ w
s = h.log()  # NaN where h < 0
loss = (s * s).sum()
loss.backward()
print("loss", loss.item())
