"""Embedding: a lookup table of learnable vectors indexed by integer ids."""

from __future__ import annotations

from ..grad_mode import no_grad
from . import functional as F
from . import init
from .linear import empty_parameter
from .module import Module


class Embedding(Module):
    """weight[ids] for an integer tensor of ids; weight ~ N(0, 1), the padding_idx row zero."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, device=None, dtype=None):
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"padding_idx must be within num_embeddings ({num_embeddings}), got {padding_idx}")
            if padding_idx < 0:
                padding_idx += num_embeddings
        if max_norm is not None:
            raise NotImplementedError("Embedding: max_norm is not supported")
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.weight = empty_parameter((num_embeddings, embedding_dim), device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight.array[self.padding_idx, ...] = 0
                self.weight._bump_version()

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self):
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text
