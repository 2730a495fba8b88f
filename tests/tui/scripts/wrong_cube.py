"""A custom Function with a wrong backward (3x instead of 3x²): what gradcheck (G) is for."""

import graphscope as gs


class Cube(gs.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x  # wrong: the derivative of x³ is 3x²


x = gs.tensor([1.0, 2.0, -3.0], requires_grad=True)
Cube.apply(x).sum().backward()
print("x.grad =", x.grad.tolist())
