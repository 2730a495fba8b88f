"""Module names, prints and stderr that look like Rich/Textual markup: they must show literally."""

import sys

import graphscope as gs
from graphscope import nn

model = nn.Module()
setattr(model, "[bold", nn.Linear(2, 2))
setattr(model, "[@click=app.quit]x", nn.Linear(2, 1))
print("print [/] [bold [@click=app.quit]x")
print("err [/] [@click=app.quit]x", file=sys.stderr)
x = gs.ones(3, 2)
out = getattr(model, "[@click=app.quit]x")(getattr(model, "[bold")(x))
out.sum().backward()
