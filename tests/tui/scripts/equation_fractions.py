"""Gradients of a small equation: requires_grad, backward() and .grad, as in PyTorch's intro.

If you have read PyTorch's "A Gentle Introduction to torch.autograd", this is the same
lesson with `import graphscope as gs` in place of `import torch`.

Run it with:  python samples/gradients_of_an_equation.py
"""

import graphscope as gs

# Two leaf tensors. requires_grad=True asks the engine to record every operation done with
# them, so it can later work out how the result changes when they change.
a = gs.tensor([2.0, 3.0], requires_grad=True)
b = gs.tensor([6.5, 4.25], requires_grad=True)

# The equation: Q = 3a^3 - b^2. Each operation adds a node to the graph; Q.grad_fn is the
# last one, and its next_functions lead back, node by node, to a and b.
Q = 3 * a**3 - b**2
print("Q =", Q.tolist())
print("Q was made by", Q.grad_fn.name())

# backward() needs a single number to start from, so sum Q (each element contributes once).
Q.sum().backward()

# The gradients land in .grad of the leaves. By hand: dQ/da = 9a^2 and dQ/db = -2b.
print("a.grad =", a.grad.tolist(), "  expected 9a^2 =", (9 * a**2).tolist())
print("b.grad =", b.grad.tolist(), "  expected -2b  =", (-2 * b).tolist())

# Why gradients must be zeroed between iterations: backward() ADDS into .grad, it does not
# overwrite it. Run the same forward and backward again and the gradient doubles. (This is
# deliberate: it lets several losses contribute to one update.)
Q = 3 * a**3 - b**2
Q.sum().backward()
print("after a second backward, a.grad =", a.grad.tolist(), " (twice the true gradient)")

# So a training loop clears the gradients before each backward pass, here in place with
# zero_() (setting `a.grad = None` works too, and is what optimizers do by default).
a.grad.zero_()
b.grad.zero_()
Q = 3 * a**3 - b**2
Q.sum().backward()
print("zeroed, then backward once more, a.grad =", a.grad.tolist(), " (correct again)")
