"""torch.backends.mkldnn: graphscope uses no oneDNN; its flags are kept and ignored."""

import sys

from . import NoOpFlags

enabled = True


def is_available() -> bool:
    return False


sys.modules[__name__].__class__ = NoOpFlags
