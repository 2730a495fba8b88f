"""torch.utils for graphscope: the data-loading utilities (`utils.data`)."""

from . import data

__all__ = ["data"]
