"""A training loop that forgets optimizer.zero_grad(): the grads grow pass after pass.

backward() does not overwrite .grad, it adds into it. A loop without zero_grad() hands each
optimizer.step() the sum of every grad so far instead of this batch's grad, so the steps get
longer and longer and the fit overshoots. Under the debugger (graphscope run
samples/forgot_zero_grad.py) the Grad tab of `w` shows `.grad before this pass`, `added` and
`now` growing, and the findings list says "grads of `w` accumulated across ... passes without
zeroing"; `graphscope run --keep all samples/forgot_zero_grad.py` keeps every pass in detail, so
`p` walks back through each one. The fixed loop, with zero_grad(), runs after it for comparison.

Run it with:  python samples/forgot_zero_grad.py [steps]
"""

import graphscope as gs


def fit(steps, zero_grad, verbose=True):
    """Fit y = 2x + 1 by SGD; returns w.grad after each step."""
    x = gs.linspace(-1.0, 1.0, 16).reshape(16, 1)
    y = 2 * x + 1
    w = gs.zeros(1, 1, requires_grad=True)
    b = gs.zeros(1, requires_grad=True)
    optimizer = gs.optim.SGD([w, b], lr=0.05)
    grads = []
    for step in range(steps):
        if zero_grad:
            optimizer.zero_grad()  # the line the first loop forgot
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()  # adds this batch's grad into w.grad and b.grad
        optimizer.step()
        grads.append(w.grad.item())
        if verbose:
            print(f"step {step}  loss {loss.item():.4f}  w.grad {w.grad.item():+.4f}  b.grad {b.grad.item():+.4f}")
    return grads


def main(steps=8):
    print("without zero_grad():")
    fit(steps, zero_grad=False)
    print("with zero_grad():")
    fit(steps, zero_grad=True)


if __name__ == "__main__":
    import sys

    main(*map(int, sys.argv[1:2]))  # an optional argument: the number of steps (the tests run few)
