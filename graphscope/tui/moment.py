"""Moment: the record, the debugger's state and its breakpoints at one instant, as every pane reads them."""

from __future__ import annotations

from dataclasses import dataclass

from .record_index import RecordIndex
from .replay import matches

# One-character markers a row of a graph view can carry.
CURRENT, BREAKPOINT, STEPPED, NONFINITE, FAILED, PARAMETER = "▶", "●", "✓", "!", "✗", "◆"


@dataclass(frozen=True, slots=True)
class Marks:
    """What a node's row shows besides its name."""

    current: bool = False
    breakpoint: bool = False
    stepped: bool = False
    nonfinite: bool = False
    failed: bool = False


@dataclass(frozen=True, slots=True)
class Moment:
    """The record (through its index), the debugger's latest state and the breakpoints."""

    index: RecordIndex
    state: object | None = None         # a SessionState (or the Replay's), None before the first
    breakpoints: tuple = ()
    live: bool = False                  # a running session (True) or a loaded snapshot (False)

    @property
    def record(self):
        return self.index.record

    def marks(self, node_id: int) -> Marks:
        index = self.index
        node = index.record.nodes.get(node_id)
        state = self.state
        error = index.record.error
        return Marks(
            current=state is not None and state.node == node_id,
            breakpoint=any(b.enabled and b.kind in ("node", "op", "module", "line") and matches(b, node_id, node)
                           for b in self.breakpoints),
            stepped=self._stepped(node_id),
            nonfinite=index.nonfinite(node_id),
            failed=error is not None and error.node == node_id,
        )

    def _stepped(self, node_id: int) -> bool:
        """Its backward has run: before the frontier of the paused pass (the recorder already
        holds the grad the node at the frontier is about to receive), or recorded in another."""
        state = self.state
        if state is not None and state.frontier is not None and state.pass_index is not None:
            found = self.index.step_position(node_id)
            if found is not None and found[0] == state.pass_index:
                return found[1] < state.frontier
        return self.index.stepped(node_id)
