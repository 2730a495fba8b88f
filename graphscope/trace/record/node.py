"""A graph node and the source line it came from: the record's smallest types, below the columns that hold them."""

from __future__ import annotations

from dataclasses import dataclass

from .equality import Same
from .tensor_summary import TensorSummary


@dataclass(frozen=True, slots=True)
class SourceSite:
    """Where in the user's script something happened, with that line's text."""

    file: str
    line: int
    function: str
    text: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line} in {self.function}"


@dataclass(eq=False, slots=True)
class Node(Same):
    """One graph node: an op's output, or a leaf (parameter, input tensor, constant). Its columns
    are declared in `node_fields.COLUMNS`; a new field goes last here and there."""

    id: int
    op: str
    name: str = ""  # "MulBackward0" for ops; the value's repr for constants
    inputs: tuple[int, ...] = ()
    pass_index: int = 0  # the backward pass whose forward created it
    output: TensorSummary | None = None  # None until summarised, or for non-numeric constants
    requires_grad: bool = False
    is_leaf: bool = False
    parameter: str | None = None  # "layers.0.weight"
    module: str | None = None  # "model.layers.0"
    site: SourceSite | None = None
    # What it saved for backward: "input:K" (its K-th recorded input's value), "output" (its own
    # value), or the name of an internal array (a mask, a normalised copy).
    saved: tuple[str, ...] = ()
    dead_units: tuple[int, int] | None = None  # relu: (units zero for the whole batch, units)
    # Its non-tensor arguments, (parameter name, Python literal), in call order: pow's
    # ("exponent", "3"), sum's ("dim", "(1,)") and ("keepdim", "False"). Not graph nodes.
    args: tuple[tuple[str, str], ...] = ()
    # A leaf's identity across passes: the id of the first record node this same tensor object
    # became (each pass has its own node for a parameter; all of them share this). None otherwise.
    leaf: int | None = None
