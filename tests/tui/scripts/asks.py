"""A script that reads a line with input(): the app answers it, not the terminal."""

import graphscope as gs

name = input("Name? ")
print(f"hello {name}")
w = gs.tensor([1.0, 2.0], requires_grad=True)
(w * 3).sum().backward()
