"""ForwardNodes: the record's ops in the order the forward made them, where a stop in the forward can be, and
the breakpoints' facts at a node's creation read from the record (`RecordFacts`, which a backward step uses too)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from graphscope.trace.record.node_fields import IS_LEAF

from .breakpoint import Breakpoint, hit_reason

if TYPE_CHECKING:
    from graphscope.trace import Node, Record, Step, TensorSummary

TimeKey = tuple[int, int, int]  # a moment's place in time: (pass index, 0 forward / 1 backward, node id / step)


class RecordFacts:
    """A breakpoint's questions about the node at one recorded step, or at its creation in the
    forward (`inputs` given: their summaries), answered from the summaries."""

    __slots__ = ("op", "module", "file", "line", "forward", "_value", "_grad", "_inputs")

    def __init__(self, node: Node, step: Step | None, inputs: list[TensorSummary | None] | None = None) -> None:
        self.op, self.module = node.op, node.module
        site = node.site
        self.file: str | None = site.file if site is not None else None
        self.line: int | None = site.line if site is not None else None
        self.forward = inputs is not None
        self._value = node.output
        self._grad = step.grad_output if step is not None else None
        self._inputs = inputs or []

    def value_nonfinite(self) -> bool:
        return self._value is not None and self._value.has_nonfinite

    def grad_nonfinite(self) -> bool:
        return self._grad is not None and self._grad.has_nonfinite

    def grad_norm(self) -> float | None:
        return None if self._grad is None else self._grad.norm

    def inputs_nonfinite(self) -> bool:
        return any(s is not None and s.has_nonfinite for s in self._inputs)

    def summary(self, target: str) -> TensorSummary | None:
        return self._value if target == "value" else self._grad


class ForwardNodes:
    """The ops' nodes of a record (not its leaves) in creation order, read from its columns again
    only when it has grown: the moments a stop in the forward can be at."""

    def __init__(self, record: Record) -> None:
        self.record = record
        self._cache: tuple[int, np.ndarray, np.ndarray] | None = None  # (node count, op ids, nonfinite)

    def ops(self) -> tuple[np.ndarray, np.ndarray]:
        """The ops' node ids in creation order, and whether each output holds a NaN/Inf."""
        nodes = self.record.nodes
        size = len(nodes)
        if self._cache is None or self._cache[0] != size:
            scan = nodes.scan()
            ops = (scan.flags & IS_LEAF) == 0
            self._cache = (size, scan.id[ops], scan.output_nonfinite()[ops])
        return self._cache[1], self._cache[2]

    def key(self, node_id: int) -> TimeKey:
        """When the node was made: in the forward of its pass, before that pass's backward."""
        node = self.record.nodes.get(node_id)
        return (node.pass_index if node is not None else 0, 0, node_id)

    def after(self, node_id: int) -> int | None:
        """The op made next after this node (None: none in the record)."""
        ops, _ = self.ops()
        later = ops[ops > node_id]
        return int(later[0]) if later.size else None

    def before(self, node_id: int) -> int | None:
        """The op made just before this node (None: none in the record)."""
        ops, _ = self.ops()
        earlier = ops[ops < node_id]
        return int(earlier[-1]) if earlier.size else None

    def first_hit(
        self, after: TimeKey, breakpoints: Sequence[Breakpoint], recorded: Callable[[int], bool]
    ) -> tuple[TimeKey, int, str] | None:
        """The first node made after `after`, and `recorded`, that one of the enabled `breakpoints`
        stops at: when, its id and why (NaN/Inf breakpoints alone read only the ops whose value holds one)."""
        stopping = [bp for bp in breakpoints if bp.enabled and bp.stops_forward()]
        if not stopping:
            return None
        ops, nonfinite = self.ops()
        if all(bp.kind == "nan" for bp in stopping):
            ops = ops[nonfinite]
        nodes = self.record.nodes
        for node_id in ops.tolist():
            key = self.key(node_id)
            if key <= after:
                continue
            if not recorded(node_id):
                return None
            node = nodes.get(node_id)
            if node is None:
                continue
            facts = RecordFacts(
                node, None, [s.output if (s := nodes.get(i)) is not None else None for i in node.inputs]
            )
            reason = hit_reason([bp for bp in stopping if bp.matches(facts)])
            if reason:
                return key, node_id, reason
        return None
