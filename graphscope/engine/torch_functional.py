"""torch.functional: the functions PyTorch defines in that module that the engine has (torch.einsum and
others live there); a script that imports it runs, and a missing one fails where it is used."""

from . import einsum, norm, split, unique  # (the public ones: norm takes keepdims= as torch.norm)

__all__ = ["einsum", "norm", "split", "unique"]
