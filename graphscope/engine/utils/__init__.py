"""torch.utils for graphscope: data loading (`utils.data`) and TensorBoard logging (`utils.tensorboard`)."""

from . import data, tensorboard

__all__ = ["data", "tensorboard"]
