"""graphscope: a terminal debugger for computation graphs, with its own PyTorch-style autograd engine.

`import graphscope as gs` gives the engine (tensors, ops, autograd, nn, optim); the debugger's
record, session and TUI load only when the `graphscope` command asks for them.
"""

__version__ = "0.1.0"

from .engine import *  # noqa: F401,F403,E402
from .engine import autograd, cuda, hooks  # noqa: E402
