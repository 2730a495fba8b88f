"""torch.backends.mps: graphscope has no Apple GPU (MPS) device."""

import sys

from . import NoOpFlags


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False


sys.modules[__name__].__class__ = NoOpFlags
