"""Moment: the record, the debugger's state and its breakpoints at one instant, as every pane reads them.

What a pane may show of the backward depends on the cursor, not on what the record holds: at
"step i of N" of a pass, steps before i have run (their grads known), step i's node is receiving
its grad, and nothing after it has happened, whether the step was reached by running (a live
run) or by stepping back in time over a record that holds more (a snapshot, or `p`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from graphscope.session import Breakpoint, SessionState, State
from graphscope.trace.analysis.findings import find
from graphscope.trace.record.comparison import Against
from graphscope.trace.record.model import OPTIMIZER_STEP, Step
from graphscope.trace.record.step_table import step_table

from .record_index import RecordIndex

# How the debuggee says step breakpoints paused it (after "breakpoint N: ", or "breakpoints N, M: ").
OPTIMIZER_STEP_REASON = Breakpoint(kind="step", value=None).describe()


def _written_at(line) -> tuple[int, int, int]:
    """A console line's moment, ordered as the cursor's: (passes begun, 0 during the last one's
    backward / 1 after it, its steps begun / the optimizer events recorded)."""
    return (line.pass_index, 0, line.step) if line.step is not None else (line.pass_index, 1, line.events)


# One-character markers a row of a graph view can carry.
CURRENT, BREAKPOINT, STEPPED, NONFINITE, FAILED, PARAMETER, DIFFERS = "▶", "●", "✓", "!", "✗", "◆", "≠"


@dataclass(frozen=True, slots=True)
class Marks:
    """What a node's row shows besides its name."""

    current: bool = False
    breakpoint: bool = False
    stepped: bool = False
    nonfinite: bool = False
    failed: bool = False
    differs: bool = False  # its value differs from its match in the run held against this one


@dataclass(frozen=True, slots=True)
class Moment:
    """The record (through its index), the debuggee's latest state and the breakpoints."""

    index: RecordIndex
    state: SessionState | None = None  # None before the first
    breakpoints: tuple[Breakpoint, ...] = ()
    live: bool = False  # a running session (True) or a loaded snapshot (False)
    against: Against | None = None  # the run held against this one (`view --against`)
    # Each node's marks once worked out: a step redraws every row on screen, and a row asks twice (its
    # gutter and its label). A moment is one instant: the views read the record at pauses, each a new moment.
    _marks: dict[int, Marks] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def record(self):
        return self.index.record

    # --- what has happened at the cursor ---------------------------------------------------------

    def _cursor(self, position: int) -> int | None:
        """The cursor's step when it is in the pass at `position`; -1 for a pass after the cursor's
        (stepped back to: none of its backward has happened); else None (all of it shows)."""
        state = self.state
        made = self._made_in()
        if made is not None and self.record.passes[position].index >= made:
            return -1  # held in a forward: its pass's backward, and later ones, have not begun
        if state is None or state.step is None or state.pass_index is None:
            return None
        if position > state.pass_index:
            return -1
        return state.step if position == state.pass_index else None

    def _made_in(self) -> int | None:
        """At a stop in a forward: the index of the pass whose forward it is (else None)."""
        state = self.state
        made = self.record.nodes.get(state.created) if state is not None and state.created is not None else None
        return None if made is None else made.pass_index

    def before_backward_of(self, node_id: int) -> bool:
        """Whether the cursor is held in a forward whose pass's backward would give the node its grad."""
        made = self._made_in()
        node = self.record.nodes.get(node_id) if made is not None else None
        return node is not None and node.pass_index >= made

    def step_of(self, node_id: int) -> Step | None:
        """The node's backward step as far as it has happened at the cursor: None before it, its
        incoming grad alone while it is the current step, all of it once it has run."""
        found = self.index.step_position(node_id)
        if found is None:
            return None
        position, i = found
        steps = self.record.passes[position].steps
        if i >= len(steps):
            return None
        cursor = self._cursor(position)
        if cursor is None or i < cursor:
            return steps[i]
        if i == cursor:
            return Step(steps[i].node, steps[i].grad_output)
        return None

    def leaf_grads(self, node_id: int) -> list:
        """The grads accumulated into a leaf by the steps that have run at the cursor."""
        grads = self.index.leaf_grads(node_id)
        if not grads:
            return []
        node = self.record.nodes.get(node_id)
        position = self.index.pass_list_index(node.pass_index) if node is not None else None
        cursor = self._cursor(position) if position is not None else None
        return [lg for i, lg in grads if cursor is None or i < cursor]

    def grad_of(self, node_id: int):
        """The gradient of the loss with respect to the node's output, once known at the cursor."""
        if self.index.step_position(node_id) is not None:
            step = self.step_of(node_id)
            return None if step is None else step.grad_output
        grads = self.leaf_grads(node_id)
        return grads[-1].grad if grads else None

    def stepped(self, node_id: int) -> bool:
        """Whether the node's backward has run at the cursor (a leaf: whether a grad reached it)."""
        found = self.index.step_position(node_id)
        if found is None:
            return bool(self.leaf_grads(node_id))
        position, i = found
        cursor = self._cursor(position)
        return i < len(self.record.passes[position].steps) and (cursor is None or i < cursor)

    @property
    def on_step(self) -> bool:
        """Whether the cursor is on a node's backward step, or paused before an optimizer step
        (stepping through the run, not at a pass's end by itself or over)."""
        return self.state is not None and (self.state.node is not None or self.before_optimizer_step)

    @property
    def at_pass_end(self) -> bool:
        """Whether the cursor is at the end of a pass (every step of it run), not on a step."""
        state = self.state
        passes = self.record.passes
        return (
            state is not None
            and state.node is None
            and state.step is not None
            and state.pass_index is not None
            and 0 <= state.pass_index < len(passes)
            and state.step >= len(passes[state.pass_index].order)
        )

    @property
    def before_optimizer_step(self) -> bool:
        """Whether a step breakpoint paused the run: at a pass's end, before `optimizer.step()`."""
        state = self.state
        return (
            state is not None
            and state.node is None
            and state.reason.startswith("breakpoint")
            and state.reason.endswith(OPTIMIZER_STEP_REASON)
        )

    def stepped_leaves(self) -> list[int]:
        """The leaves that require grad whose `.grad` the cursor's pass has added to, in order."""
        state = self.state
        passes = self.record.passes
        if state is None or state.pass_index is None or not 0 <= state.pass_index < len(passes):
            return []
        nodes = self.record.nodes
        leaves = step_table(passes[state.pass_index].steps).leaves()
        return [k for k in leaves if k in nodes and nodes[k].requires_grad]

    def known_record(self):
        """The record as far as it has happened at the cursor, for code that reads a whole record
        (the Rule tab's explanations): the cursor's pass cut at the cursor, its current step holding
        the grad it receives but not what its backward passes on."""
        record = self.record
        state = self.state
        if (
            state is None
            or state.pass_index is None
            or state.step is None
            or not 0 <= state.pass_index < len(record.passes)
        ):
            return record
        position, cursor = state.pass_index, state.step
        p = record.passes[position]
        steps = step_table(p.steps).until(cursor)
        passes = list(record.passes)
        passes[position] = replace(p, steps=steps)
        return replace(record, passes=passes)

    def findings(self) -> list:
        """What the findings (NaN/Inf origin, grads not zeroed, dead ReLUs, vanishing and exploding
        grads) say of the run as far as it has happened at the cursor: a live run's at each pause,
        a snapshot's as it stepped there (nothing of a pass after the cursor's)."""
        record = self.known_record()
        state = self.state
        if state is None or state.pass_index is None or not 0 <= state.pass_index < len(record.passes):
            return find(record)
        position = state.pass_index
        passes = list(record.passes[: position + 1])
        if state.step is not None and state.step < len(passes[position].order):
            passes[position] = replace(passes[position], grad_norms={})  # worked out as the pass ends
        found = find(replace(record, passes=passes, optimizer=self.optimizer_events()))
        last = passes[position].index
        made, created = self._made_in(), state.created
        return [
            f
            for f in found
            if f.pass_index is None
            or f.pass_index <= last
            or (f.pass_index == made and created is not None and f.node is not None and f.node <= created)
        ]  # held in a forward: what its nodes made by then show (the NaN born there)

    def optimizer_events(self) -> list:
        """The optimizer's (and the script's `.grad` reset) events that have happened at the cursor:
        those before the cursor's pass began; all of them at the end of a run that is over (a
        snapshot walks back and forth over the same events as its live run)."""
        events = list(self.record.optimizer)
        made = self._made_in()
        if made is not None:
            # Held in the forward of pass `made`: the events of the passes before, and the optimizer
            # step that ended the last (a zero_grad of this pass may come after the stop: not shown).
            return [e for e in events if e.passes < made or (e.passes == made and e.kind == OPTIMIZER_STEP)]
        if self._all_known():
            return events
        last = self.record.passes[self._cursor_at()[0]].index
        return [e for e in events if e.passes <= last]

    def _cursor_at(self) -> tuple[int, int]:
        """The cursor's (pass position, step): there is one whenever `_all_known()` is False."""
        state = self.state
        assert state is not None and state.pass_index is not None and state.step is not None
        return state.pass_index, state.step

    def _all_known(self) -> bool:
        """Whether all of the record has happened at the cursor: no cursor in a pass (a live run
        before its first pause, or running: what it writes shows as it comes), or at the end of
        a run that is over."""
        state = self.state
        passes = self.record.passes
        if (
            state is None
            or state.kind.busy
            or state.pass_index is None
            or state.step is None
            or not 0 <= state.pass_index < len(passes)
        ):
            return True
        position = state.pass_index
        return (
            state.kind.over
            and state.step >= len(passes[position].order)
            and not any(p.detailed and p.order for p in passes[position + 1 :])
        )

    @property
    def shows_error(self) -> bool:
        """Whether the script's failure has happened at the cursor (it ended the run)."""
        return (
            self.record.error is not None
            and self.state is not None
            and self.state.kind == State.FAILED
            and self._all_known()
        )

    def known_console(self) -> list:
        """The console lines written by the cursor's moment (the record's, which are in time order):
        before its pass's backward, during it up to the cursor's step, and, paused before
        `optimizer.step()`, after the backward up to that step."""
        lines = list(self.record.console)
        made = self._made_in()
        if made is not None:  # held in the forward of pass `made`: the lines written up to it
            return [line for line in lines if line.pass_index <= made]
        if self._all_known():
            return lines
        position, step = self._cursor_at()
        p = self.record.passes[position]
        bound = (p.index + 1, 0, step)
        if self.before_optimizer_step:
            rows = [
                i for i, e in enumerate(self.record.optimizer) if e.kind == OPTIMIZER_STEP and e.passes == p.index + 1
            ]
            if rows:
                bound = (p.index + 1, 1, rows[0])
        k = len(lines)
        while k and _written_at(lines[k - 1]) > bound:
            k -= 1
        return lines[:k]

    def known_passes(self) -> list:
        """The backward passes begun by the cursor's moment; the cursor's own without its grad norms
        (and not finished) until the cursor is at its end."""
        passes = list(self.record.passes)
        if self._all_known():
            return passes
        position, step = self._cursor_at()
        known = passes[: position + 1]
        p = known[-1]
        if step < len(p.order):
            known[-1] = replace(p, grad_norms={}, finished=False)
        return known

    def known_roots(self, roots: list) -> list:
        """The graph's roots (`RecordIndex.roots`) of the passes begun by the cursor's moment; held in a
        forward, its graph as made by then."""
        made = self._made_in()
        if made is not None and self.state is not None and self.state.created is not None:
            return [r for r in roots if r.pass_index < made] + [self.index.forward_until(self.state.created)]
        if self._all_known():
            return roots
        last = self.record.passes[self._cursor_at()[0]].index
        return [r for r in roots if r.pass_index <= last]

    def nan_origin(self) -> int | None:
        """Where the first NaN or Inf appeared, when that has happened at the cursor."""
        node_id = self.index.nan_origin()
        if node_id is None or self._all_known():
            return node_id
        node = self.record.nodes.get(node_id)
        last = self.record.passes[self._cursor_at()[0]].index
        if node is None or node.pass_index > last:
            return None
        if node.pass_index < last or self.nonfinite(node_id) or self.stepped(node_id):
            return node_id
        return None

    def nonfinite(self, node_id: int) -> bool:
        """Whether the node's value, or its grad known at the cursor, holds a NaN or an Inf."""
        node = self.record.nodes.get(node_id)
        if node is None:
            return False
        if node.output is not None and node.output.has_nonfinite:
            return True
        grad = self.grad_of(node_id)
        return grad is not None and grad.has_nonfinite

    # --- rows ------------------------------------------------------------------------------------

    def marks(self, node_id: int) -> Marks:
        """What the node's row shows besides its name at this moment."""
        marks = self._marks.get(node_id)
        if marks is None:
            marks = self._marks[node_id] = self._work_out_marks(node_id)
        return marks

    def _work_out_marks(self, node_id: int) -> Marks:
        node = self.record.nodes.get(node_id)
        state = self.state
        error = self.record.error
        site = node.site if node is not None else None
        return Marks(
            current=state is not None and state.node == node_id,
            breakpoint=node is not None
            and any(
                b.enabled
                and b.matches_site(node.op, node.module, site.file if site else None, site.line if site else None)
                for b in self.breakpoints
            ),
            stepped=self.stepped(node_id),
            nonfinite=self.nonfinite(node_id),
            failed=error is not None and error.node == node_id,
            differs=self.against is not None and node_id in self.against.diff.nodes,
        )
