"""Fit a line by gradient descent, by hand: forward, loss, backward, update, zero the grads.

The loop that every training script runs, written with bare tensors so that nothing is
hidden: no nn.Linear, no optimizer. The data comes from y = 3x + 2 plus a little noise, and
gradient descent should find w close to 3 and b close to 2.

Run it with:  python samples/fit_a_line.py
"""

import graphscope as gs

gs.manual_seed(0)  # the same random numbers on every run

# 100 points on the line y = 3x + 2, with noise.
x = gs.linspace(-1.0, 1.0, 100)
y = 3 * x + 2 + 0.1 * gs.randn(100)

# The parameters: leaf tensors that require grad, so backward() fills their .grad.
w = gs.randn(1, requires_grad=True)
b = gs.zeros(1, requires_grad=True)

learning_rate = 0.1
for step in range(200):
    prediction = w * x + b                     # forward: builds the graph
    loss = ((prediction - y) ** 2).mean()      # mean squared error, a single number
    loss.backward()                            # fills w.grad and b.grad

    # Update the parameters without recording the update itself in the graph: inside
    # no_grad(), operations are not tracked, which also allows changing a leaf in place.
    with gs.no_grad():
        w -= learning_rate * w.grad
        b -= learning_rate * b.grad
    # backward() adds into .grad, so clear it before the next step.
    w.grad = None
    b.grad = None

    if step % 20 == 0 or step == 199:
        print(f"step {step:3d}  loss {loss.item():.5f}")

print(f"fitted: y = {w.item():.3f}x + {b.item():.3f}   (true line: y = 3x + 2)")
