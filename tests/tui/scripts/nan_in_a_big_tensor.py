"""A 64-element tensor with one NaN, minus a scalar, summed: statistics that skip the NaN, and a step not yet run."""

import graphscope as gs

values = [i / 8 for i in range(64)]
values[0] = float("nan")
x = gs.tensor(values, requires_grad=True)
b = gs.tensor(0.5, requires_grad=True)
loss = (x - b).sum()
loss.backward()
