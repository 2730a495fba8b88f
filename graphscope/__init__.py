"""graphscope: a terminal debugger for computation graphs, with its own PyTorch-style autograd engine.

`import graphscope as gs` gives the engine (tensors, ops, autograd, nn, optim); the debugger's
record, session and TUI load only when the `graphscope` command asks for them.
"""

__version__ = "0.1.0"

import sys as _sys

from .engine import *  # noqa: F403 (the engine's public names are the package's: gs.tensor, gs.exp, ...)
from .engine import (
    autograd,
    cuda,
    hooks,
    linalg,
    nn,
    optim,
    utils,
)

# `import graphscope.nn as nn` and friends, as with torch: the engine's packages under short names.
for _name, _module in (
    ("autograd", autograd),
    ("nn", nn),
    ("nn.functional", nn.functional),
    ("nn.init", nn.init),
    ("optim", optim),
    ("optim.lr_scheduler", optim.lr_scheduler),
    ("nn.utils", nn.utils),
    ("linalg", linalg),
):
    _sys.modules.setdefault(f"{__name__}.{_name}", _module)
del _name, _module
_sys.modules.setdefault(f"{__name__}.utils", utils)  # `import graphscope.utils.data`, as torch's
_sys.modules.setdefault(f"{__name__}.utils.data", utils.data)
_sys.modules.setdefault(f"{__name__}.utils.tensorboard", utils.tensorboard)
