"""torch.backends.cudnn: graphscope uses no cuDNN; its flags are kept and ignored."""

import sys

from . import NoOpFlags

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version():
    return None


sys.modules[__name__].__class__ = NoOpFlags
