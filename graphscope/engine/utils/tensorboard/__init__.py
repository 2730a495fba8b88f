"""torch.utils.tensorboard on graphscope's engine: a SummaryWriter whose scalars go into the record."""

from .writer import SummaryWriter

__all__ = ["SummaryWriter"]
