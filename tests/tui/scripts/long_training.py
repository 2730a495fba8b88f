"""Many short backward passes, each with a print: a run long enough to watch, interrupt and quit."""

import graphscope as gs

w = gs.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = gs.tensor([0.5, -1.0, 2.0])
for step in range(1_000_000):
    loss = ((w * x).tanh() ** 2).sum()
    loss.backward()
    w.grad = None
    if step % 100 == 0:
        print(f"step {step} loss {loss.item():.4f}")
