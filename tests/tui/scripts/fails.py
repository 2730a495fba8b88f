"""Prints, steps one backward, then fails with a markup-looking message and exit code 1."""

import graphscope as gs

w = gs.tensor([1.0, 2.0], requires_grad=True)
loss = (w * w).sum()
loss.backward()
print("before the failure [bold] [/]")
raise ValueError("shapes [/] do not [bold match [@click=app.quit]x")
