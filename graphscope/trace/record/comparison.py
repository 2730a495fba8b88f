"""A comparison of two runs as data: how two tensors differ, where the runs part, the run held against another.

`analysis/run_diff.py` makes it (`diff`); `report/run_diff_report.py` and the TUI show it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import Node, Record
from .tensor_summary import TensorSummary

# How two summaries were compared: every element, or (values not kept) the first elements and the statistics.
VALUES = "values"
SUMMARY = "preview and statistics"


@dataclass(frozen=True, slots=True)
class Difference:
    """How two tensors differ: `what` in words, compared on `basis`, the largest |a − b| and where."""

    what: str
    basis: str
    max_abs: float | None = None  # over the elements (or statistics) both hold as finite numbers
    element: int | None = None  # the first differing element (row-major), when compared by values


@dataclass(frozen=True, slots=True)
class NodeDifference:
    """A matched node whose value differs: its ids in each run and both summaries."""

    a: Node
    b: Node
    difference: Difference


@dataclass(frozen=True, slots=True)
class StepDifference:
    """The first backward step whose grad differs: the pass, the step's place in it, and which grad."""

    pass_index: int
    position: int  # the step's index in the pass
    a_node: int
    b_node: int
    grad: str  # "grad received" or "grad to input K"
    a: TensorSummary | None
    b: TensorSummary | None
    difference: Difference


@dataclass(frozen=True, slots=True)
class ParameterDifference:
    """One parameter in one pass: its grad norm in each run and how far its values are apart."""

    name: str
    pass_index: int
    grad_norm_a: float | None
    grad_norm_b: float | None
    grad_norm_differs: bool
    value: Difference | None  # None: its values agree (or neither run kept them)


@dataclass(slots=True)
class RunDiff:
    """Everything `graphscope diff` reports, in the order it reports it."""

    rtol: float
    atol: float
    passes: tuple[int, int]  # backward passes in a and in b
    detailed: tuple[int, ...] = ()  # the passes both kept in detail: where values and steps were compared
    # the first pass whose loss differs: (pass, a's loss, b's loss)
    loss: tuple[int, float | None, float | None] | None = None
    matched: int = 0
    # every matched node that differs, by a's node id, in a's creation order
    nodes: dict[int, NodeDifference] = field(default_factory=dict)
    only_a: list[Node] = field(default_factory=list)  # nodes with no match in b, in creation order
    only_b: list[Node] = field(default_factory=list)
    step: StepDifference | None = None
    parameters: list[ParameterDifference] = field(default_factory=list)  # by pass, then name; only differing
    b_of: dict[int, int] = field(default_factory=dict)  # a's node id -> the matching node id in b

    @property
    def agree(self) -> bool:
        return (
            self.passes[0] == self.passes[1]
            and not self.nodes
            and not self.only_a
            and not self.only_b
            and self.step is None
            and self.loss is None
            and not self.parameters
        )

    @property
    def first_node(self) -> NodeDifference | None:
        return next(iter(self.nodes.values()), None)


@dataclass(frozen=True, slots=True)
class Against:
    """A run held against the one on screen (`graphscope view a.json --against b.json`): its name, its
    record, and the comparison of the one on screen with it."""

    name: str
    record: Record
    diff: RunDiff

    def other(self, a_node: int) -> Node | None:
        """The node of this run that matches one of the run on screen, if any."""
        b_node = self.diff.b_of.get(a_node)
        return None if b_node is None else self.record.nodes.get(b_node)
