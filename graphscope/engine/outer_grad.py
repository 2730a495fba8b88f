"""A weight's grad left as its two factors, so that the grads of a weight used at every time step are one product."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import backend


class OuterGrad:
    """Σᵢ leftᵢᵀ @ rightᵢ, not yet multiplied: the grad of a Linear's weight (grad output, input).

    A recurrent layer's hidden-to-hidden weight takes one such grad from each time step; each
    product alone is a thin matrix product that writes the whole weight-sized result, and adding
    T of them reads and writes it T times more. Kept as factors, the T grads become one product of
    the stacked factors when the weight's grad is complete (`value`). `shape` and `dtype` are the
    product's, for the backward walk's checks.
    """

    __slots__ = ("lefts", "rights", "shape", "dtype")

    def __init__(self, lefts: list[Any], rights: list[Any], shape: tuple[int, int], dtype: Any) -> None:
        self.lefts, self.rights, self.shape, self.dtype = lefts, rights, shape, dtype

    @classmethod
    def of(cls, left: Any, right: Any) -> OuterGrad:
        """leftᵀ @ right, for a (N, out) left and a (N, in) right of one dtype."""
        return cls([left], [right], (left.shape[1], right.shape[1]), left.dtype)

    def plus(self, other: OuterGrad) -> OuterGrad:
        """The sum, as a new OuterGrad (each step's own stays as its backward returned it)."""
        return OuterGrad(self.lefts + other.lefts, self.rights + other.rights, self.shape, self.dtype)

    def value(self) -> Any:
        """The product as an array of its own."""
        if len(self.lefts) == 1:
            return backend.matmul(self.lefts[0].T, self.rights[0])
        xp = backend.namespace(self.lefts[0])
        return backend.matmul(xp.concat(self.lefts, axis=0).T, xp.concat(self.rights, axis=0))


def multiplied(grads: Sequence[Any]) -> tuple[Any, ...]:
    """`grads` (a node's grad per input) with each OuterGrad replaced by its value."""
    if not any(type(g) is OuterGrad for g in grads):
        return tuple(grads)
    return tuple(g.value() if type(g) is OuterGrad else g for g in grads)
