"""graphscope.save and graphscope.load (torch.save / torch.load under --as-torch): torch's file format."""

from .loading import load
from .saving import save

__all__ = ["load", "save"]
