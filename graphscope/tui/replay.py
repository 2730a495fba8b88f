"""Replay: time travel over a finished record with the session's command set, so `view` and `run` share one app."""

from __future__ import annotations

import dataclasses
import os

from graphscope.session import Breakpoint, SessionState
from graphscope.trace.record import Record


class Replay:
    """Moves a cursor through the recorded backward steps of a loaded snapshot.

    It answers the commands a Session answers (step, step back, continue to a breakpoint, run
    to the end, breakpoints) by moving over what was recorded; nothing runs. Listeners are
    called on the caller's thread, as a session calls them for cursor moves.
    """

    live = False

    def __init__(self, record: Record, source: str = ""):
        self.record = record
        self.source = source
        self._listeners: list = []
        self._breakpoints: list[Breakpoint] = []
        self._next_breakpoint = 1
        # Passes whose backward can be walked: kept in full, with a planned order.
        self._walkable = [i for i, p in enumerate(record.passes) if p.detailed and p.order]
        self._pass = self._walkable[0] if self._walkable else None
        self._step = 0 if self._pass is not None else None
        self._reason = "snapshot"
        self.state = self._make_state()

    # --- the session's interface --------------------------------------------------------------

    @property
    def script(self) -> str:
        return self.record.metadata.script

    def add_listener(self, callback) -> None:
        self._listeners.append(callback)

    def start(self) -> None:
        """Nothing to start: the run is over."""

    def quit(self) -> None:
        """Nothing to stop."""

    def join(self, timeout: float | None = None) -> bool:
        return True

    def fetch(self, node_id: int, what: str = "value", index=None):
        """A snapshot keeps only summaries: there is no live tensor to fetch."""
        return

    def step(self) -> None:
        self._move(+1, "step")

    def step_forward(self) -> None:
        self._move(+1, "step")

    def step_back(self) -> None:
        self._move(-1, "step back")

    def goto(self, step_index: int) -> None:
        if self._pass is None:
            return
        order = self.record.passes[self._pass].order
        self._step = max(0, min(int(step_index), len(order)))
        self._changed("goto")

    def continue_(self) -> None:
        """Forward to the next step that hits a breakpoint, or to the end of the pass."""
        if self._pass is None:
            return
        order = self.record.passes[self._pass].order
        start = self._step + 1
        if self._step >= len(order):
            self._move(+1, "continue", notify=False)
            if self._step > 0:  # already at the last pass's end: stay there
                self._changed("end of the last pass")
                return
            start = 0
        order = self.record.passes[self._pass].order
        for i in range(start, len(order) + 1):
            hit = self._hit(self._pass, i) if i < len(order) else None
            if hit is not None:
                self._step = i
                self._changed(hit)
                return
        self._step = len(order)
        self._changed("end of pass")

    def run_to_end(self) -> None:
        if not self._walkable:
            return
        self._pass = self._walkable[-1]
        self._step = len(self.record.passes[self._pass].order)
        self._changed("end of the run")

    @property
    def breakpoints(self) -> list[Breakpoint]:
        return list(self._breakpoints)

    def add_breakpoint(self, breakpoint: Breakpoint) -> Breakpoint:
        bp = dataclasses.replace(breakpoint, id=self._next_breakpoint)
        self._next_breakpoint += 1
        self._breakpoints.append(bp)
        return bp

    def toggle_breakpoint(self, breakpoint_id: int) -> None:
        self._breakpoints = [dataclasses.replace(b, enabled=not b.enabled) if b.id == breakpoint_id else b
                             for b in self._breakpoints]

    def remove_breakpoint(self, breakpoint_id: int) -> None:
        self._breakpoints = [b for b in self._breakpoints if b.id != breakpoint_id]

    # --- moving -------------------------------------------------------------------------------

    def _move(self, delta: int, reason: str, notify: bool = True) -> None:
        if self._pass is None:
            return
        order = self.record.passes[self._pass].order
        step = self._step + delta
        at = self._walkable.index(self._pass)
        if step > len(order):
            if at + 1 < len(self._walkable):
                self._pass, step = self._walkable[at + 1], 0
            else:
                step = len(order)
        elif step < 0:
            if at > 0:
                self._pass = self._walkable[at - 1]
                step = len(self.record.passes[self._pass].order)
            else:
                step = 0
        self._step = step
        if notify:
            self._changed(reason)

    def _hit(self, position: int, step: int) -> str | None:
        """Which enabled breakpoint the node at this step hits, described as a session would."""
        p = self.record.passes[position]
        node_id = p.order[step]
        node = self.record.nodes.get(node_id)
        recorded = p.steps[step] if step < len(p.steps) else None
        for bp in self._breakpoints:
            if bp.enabled and matches(bp, node_id, node, recorded):
                return f"breakpoint {bp.id} ({bp.kind}{'' if bp.value is None else ' ' + str(bp.value)})"
        return None

    def _make_state(self) -> SessionState:
        error = self.record.error
        exit_code = self.record.metadata.exit_code
        kind = "failed" if error is not None else "finished"
        node = None
        frontier = None
        if self._pass is not None:
            p = self.record.passes[self._pass]
            frontier = len(p.steps)
            node = p.order[self._step] if self._step < len(p.order) else None
        return SessionState(kind=kind, pass_index=self._pass, step=self._step, frontier=frontier,
                            node=node, reason=self._reason, exit_code=exit_code, error=error)

    def _changed(self, reason: str) -> None:
        self._reason = reason
        self.state = self._make_state()
        for callback in list(self._listeners):
            callback(self.state)


def matches(bp: Breakpoint, node_id: int, node, step=None) -> bool:
    """Whether a breakpoint applies to a node (and, for nan and grad_norm, to its recorded step)."""
    kind, value = bp.kind, bp.value
    if kind == "node":
        return node_id == value
    if node is None:
        return False
    if kind == "op":
        return node.op == value
    if kind == "module":
        module = node.module or ""
        return module == value or module.startswith(f"{value}.")
    if kind == "line":
        return line_matches(str(value), node.site)
    if kind == "nan":
        if node.output is not None and node.output.has_nonfinite:
            return True
        return step is not None and step.grad_output is not None and step.grad_output.has_nonfinite
    if kind == "grad_norm":
        g = None if step is None else step.grad_output
        return g is not None and g.norm is not None and g.norm > float(value)
    return False


def line_matches(value: str, site) -> bool:
    """`model.py:42` (or a full path, or a bare `42`) against a source site."""
    if site is None:
        return False
    file, _, line = value.rpartition(":")
    if not file:
        file, line = "", value
    if not line.strip().isdigit() or int(line) != site.line:
        return False
    return not file or file == site.file or os.path.basename(site.file) == os.path.basename(file)
