"""Debuggee: the one navigation model over a record (a cursor and the rules for step, back, continue,
run to end, goto and breakpoints); a snapshot is one with nothing left to run, a live Session adds a script."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from graphscope.trace.record.model import OPTIMIZER_STEP, Record

from .breakpoint import Breakpoint, hit_reason
from .forward_stops import ForwardNodes, RecordFacts, TimeKey
from .state import Mode, SessionState, State

if TYPE_CHECKING:
    from graphscope.session.evaluator import Evaluation, FrameInfo
    from graphscope.trace.analysis.node_gradcheck import GradcheckResult

Listener = Callable[[SessionState], object]  # what it returns is not looked at
Position = tuple[int, int]  # (position in record.passes, step)
Cursor = tuple[int | None, int, int | None]  # (position, step, node created: a stop in the forward)


class Debuggee:
    """A cursor (position in record.passes, step) over the passes whose backward was kept in full,
    or at a node's creation in a forward (`_created`).

    Step `s` of a pass is the moment before its `s`-th node's backward runs; step `len(order)`
    is the pass's end (every grad, leaf grads included, known). A stop in the forward is the
    moment an op's node was created (its value known, nothing after it): stepping from there goes
    op by op, to the backward of its pass when that comes first. The commands move the cursor
    over what is recorded; where the record ends, `_advance` asks for more (a live session
    runs its script; a snapshot has nothing more). Listeners get every new state.
    """

    live = False
    prompt: str | None = None  # the script's input() prompt while it waits for a line

    def __init__(self, record: Record, source: str = "", break_on_nan: bool = False) -> None:
        self.record = record
        self.source = source  # the snapshot's path, or the script a session runs, as the user named it
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._breakpoints: list[Breakpoint] = []
        self._next_breakpoint = 1
        self._step_passes: set[int] = set()  # see _steps_after_passes
        self._steps_seen = 0
        first = self._walkable()
        self._position: int | None = first[0] if first else None
        self._step = 0
        self._created: int | None = None  # the cursor is at this node's creation (a stop in the forward)
        self._made = ForwardNodes(record)
        if break_on_nan:  # on by default in the app: listed and toggleable like any other
            self.add_breakpoint(Breakpoint("nan"))
        self.state = self._make_state(self._initial_reason())

    # --- what a subclass with a script overrides ------------------------------------------------

    def _initial_reason(self) -> str:
        return "snapshot"

    def _kind(self) -> State:
        if self.record.error is not None:
            return State.FAILED
        return State.STOPPED if self.record.metadata.exit_code is None else State.FINISHED

    def _frontier(self) -> tuple[int, int] | None:
        """The last (position, step) the record holds, or None when all of it can be walked (a
        snapshot exported mid-backward ends at the step its script was paused at)."""
        passes = self.record.passes
        if passes and not passes[-1].finished and passes[-1].detailed and passes[-1].order:
            return len(passes) - 1, max(len(passes[-1].steps) - 1, 0)
        return None

    def _advance(self, mode: Mode) -> bool:
        """Run on to the next stop of `mode`; False when nothing is left."""
        return False

    def _forward_frontier(self) -> int | None:
        """The last node made that the record holds where the script is (None: all; -1: none, it runs)."""
        return None

    # --- the commands ----------------------------------------------------------------------------

    @property
    def functions(self) -> dict[str, type] | None:
        """op -> Function class, in a live run (gradcheck rebuilds custom ones)."""
        return None

    @property
    def script(self) -> str:
        return self.record.metadata.script

    def add_listener(self, callback: Listener) -> None:
        self._listeners.append(callback)

    def start(self) -> None:
        """Nothing to start: the run is over."""

    def quit(self) -> None:
        """Nothing to stop."""

    def join(self, timeout: float | None = None) -> bool:
        return True

    def interrupt(self) -> None:
        """Nothing runs, so nothing to interrupt."""

    def answer(self, text: str | None) -> None:
        """Nothing runs, so nothing reads input."""

    def evaluate(self, text: str) -> Evaluation:
        """A line typed at a pause, answered from the record (a node by `#id` or name): a snapshot has no frame."""
        from .evaluator import record_answer  # (loaded only when a line is typed at a pause)

        return record_answer(self.record, text)

    def completions(self, prefix: str) -> list[str]:
        """What a typed name may go on to (a snapshot: none)."""
        return []

    def move_frame(self, delta: int) -> str:
        """Up (+1) or down (-1) the script's frames: a snapshot has none."""
        return "no frames in a snapshot: the script is not running"

    def frames(self) -> list[FrameInfo]:
        """The script's frames at the pause, innermost first (a snapshot: none)."""
        return []

    @property
    def frame_level(self) -> int:
        """Which of `frames()` expressions are evaluated in (0: the innermost)."""
        return 0

    def gradcheck(self, node_id: int) -> GradcheckResult:
        """A node's backward checked numerically at its recorded inputs (slow: a worker's job, paused or over)."""
        from graphscope.trace.analysis.node_gradcheck import gradcheck_node

        return gradcheck_node(self.record, node_id, self.functions)

    def step(self) -> None:
        """One step forward: the next node, the pass's end, then the next kept pass's first node."""
        with self._lock:
            nxt = self._next_cursor()
            if nxt is not None and self._cursor_recorded(nxt):
                self._move_to(nxt[0], nxt[1], "step", nxt[2])
                return
        if not self._advance(Mode.STEP):
            self._changed(self._end_reason("the run is over: nothing more to step"))

    def step_back(self) -> None:
        """One step back in time (nothing runs): the previous step, or the end of the previous kept pass."""
        with self._lock:
            if self._created is not None:
                back = self._previous_forward(self._created)
            else:
                prev = self._previous(self._position, self._step)
                back = None if prev is None else (prev[0], prev[1], None)
            if back is None:
                self._changed("nothing earlier in the record")
                return
            self._move_to(back[0], back[1], "step back", back[2])

    def goto(self, step: int) -> None:
        """A step of the cursor's pass that has been recorded."""
        with self._lock:
            if self._position is None:
                return
            step = max(0, min(int(step), len(self.record.passes[self._position].order)))
            frontier = self._frontier()
            if frontier is not None and frontier[0] == self._position:
                step = min(step, frontier[1])
            self._move_to(self._position, step, "goto")

    def goto_pass(self, position: int) -> bool:
        """The first step of record.passes[position] (nothing runs); False if not kept in full or recorded."""
        with self._lock:
            if position not in self._walkable() or not self._recorded(position, 0):
                return False
            self._move_to(position, 0, f"pass {self.record.passes[position].index}")
        return True

    def run_to(self, step: int) -> None:
        """A step of the cursor's pass: back in time when it is recorded, else run the script to it."""
        with self._lock:
            frontier = self._frontier()
            if frontier is None or frontier[0] != self._position or step <= frontier[1]:
                self.goto(step)
                return
            steps = step - frontier[1]
        self._advance_steps(steps)

    def _advance_steps(self, count: int) -> None:
        """Run the script `count` steps on (a snapshot has none to run)."""

    def continue_(self) -> None:
        """On to the next step that hits an enabled breakpoint, or to the end of the run."""
        with self._lock:
            position, step = self._position, self._step
            if self._created is not None:  # the backward walk starts before its pass's first step
                position, step = self._backward_before(self._created)
            forward = self._made.first_hit(self._cursor_key(), self._breakpoints, self._created_recorded)
            while True:
                nxt = self._next(position, step)
                if nxt is None or not self._recorded(*nxt):
                    break
                if forward is not None and self._backward_key(*nxt) > forward[0]:
                    break
                position, step = nxt
                hit = self._hit(position, step)
                if hit is not None:
                    self._move_to(position, step, hit)
                    return
            if forward is not None:
                _key, created, reason = forward
                self._move_to(position, step, reason, created)
                return
            if self._frontier() is not None:
                self._position, self._step, self._created = position, step, None  # caught up with the script
        if not self._advance(Mode.CONTINUE):
            self._to_end(self._end_reason("end of the run"))

    def run_to_end(self) -> None:
        """To the end of the run, pausing nowhere."""
        if not self._advance(Mode.RUN):
            self._to_end(self._end_reason("end of the run"))

    # --- breakpoints -------------------------------------------------------------------------------

    @property
    def breakpoints(self) -> list[Breakpoint]:
        return list(self._breakpoints)

    def add_breakpoint(self, breakpoint: Breakpoint) -> Breakpoint:
        with self._lock:
            bp = dataclasses.replace(breakpoint, id=self._next_breakpoint)
            self._next_breakpoint += 1
            self._breakpoints = [*self._breakpoints, bp]
        return bp

    def toggle_breakpoint(self, breakpoint_id: int) -> None:
        with self._lock:
            self._breakpoints = [
                dataclasses.replace(b, enabled=not b.enabled) if b.id == breakpoint_id else b for b in self._breakpoints
            ]

    def remove_breakpoint(self, breakpoint_id: int) -> None:
        with self._lock:
            self._breakpoints = [b for b in self._breakpoints if b.id != breakpoint_id]

    def unmatched(self, breakpoint: Breakpoint) -> bool:
        """Whether a node, op, module or line breakpoint matches no recorded node (a step one: no optimizer step)."""
        if breakpoint.pauses_at_step():
            return not self._steps_after_passes()
        if breakpoint.kind in ("nan", "grad_norm"):
            return False
        for node in list(self.record.nodes.values()):
            site = node.site
            if breakpoint.matches_site(node.op, node.module, site.file if site else None, site.line if site else None):
                return False
        return True

    # --- moving ------------------------------------------------------------------------------------

    # --- stops in the forward ------------------------------------------------------------------

    def _created_recorded(self, node_id: int) -> bool:
        limit = self._forward_frontier()
        return (limit is None or node_id <= limit) and node_id in self.record.nodes

    def _backward_key(self, position: int, step: int) -> TimeKey:
        return (self.record.passes[position].index, 1, step)

    def _cursor_key(self) -> TimeKey:
        if self._created is not None:
            return self._made.key(self._created)
        if self._position is None:
            return (-1, 1, 0)
        return self._backward_key(self._position, self._step)

    def _position_of(self, pass_index: int) -> int | None:
        """The position of the walkable pass with this index, if there is one."""
        for i in self._walkable():
            if self.record.passes[i].index == pass_index:
                return i
        return None

    def _backward_before(self, created: int) -> Position | tuple[None, int]:
        """Where a walk of the backward steps starts from a node's creation: the end of the last
        walkable pass before the node's (None: before the first)."""
        pass_index = self._made.key(created)[0]
        earlier = [i for i in self._walkable() if self.record.passes[i].index < pass_index]
        return (earlier[-1], len(self.record.passes[earlier[-1]].order)) if earlier else (None, 0)

    def _next_cursor(self) -> Cursor | None:
        """Where a step goes: from a backward step the next (as `_next`), from a node's creation the
        next node created, or its pass's backward when that comes first."""
        created = self._created
        if created is None:
            nxt = self._next(self._position, self._step)
            return None if nxt is None else (nxt[0], nxt[1], None)
        following = self._made.after(created)
        pass_index = self._made.key(created)[0]
        position = self._position_of(pass_index)
        if position is not None and (following is None or self._made.key(following)[0] > pass_index):
            return (position, 0, None)
        return None if following is None else (position, 0, following)

    def _previous_forward(self, created: int) -> Cursor | None:
        """A step back from a node's creation: the node created before it in its pass's forward,
        else the end of the walkable pass before, else the node created before it."""
        before = self._made.before(created)
        pass_index = self._made.key(created)[0]
        if before is not None and self._made.key(before)[0] == pass_index:
            return (self._position, self._step, before)
        position, step = self._backward_before(created)
        if position is not None and (before is None or self.record.passes[position].index >= self._made.key(before)[0]):
            return (position, step, None)
        return None if before is None else (position, 0, before)

    def _cursor_recorded(self, cursor: Cursor) -> bool:
        position, step, created = cursor
        if created is not None:
            return self._created_recorded(created)
        return position is not None and self._recorded(position, step)

    def _walkable(self) -> list[int]:
        """Positions of the passes whose backward can be walked: kept in full, with a planned order."""
        return [i for i, p in enumerate(list(self.record.passes)) if p.detailed and p.order]

    def _next(self, position: int | None, step: int) -> Position | None:
        if position is None:
            walkable = self._walkable()
            return (walkable[0], 0) if walkable else None
        if step < len(self.record.passes[position].order):
            return position, step + 1
        later = [i for i in self._walkable() if i > position]
        return (later[0], 0) if later else None

    def _previous(self, position: int | None, step: int) -> Position | None:
        if position is None:
            return None
        if step > 0:
            return position, step - 1
        earlier = [i for i in self._walkable() if i < position]
        return (earlier[-1], len(self.record.passes[earlier[-1]].order)) if earlier else None

    def _recorded(self, position: int, step: int) -> bool:
        """Whether the record already holds this moment (a live script may not have reached it)."""
        frontier = self._frontier()
        return frontier is None or (position, step) <= frontier

    def _hit(self, position: int, step: int) -> str | None:
        """The reason to stop at this step: the enabled breakpoints its node hits; at a pass's end
        followed by an optimizer step, the enabled step breakpoints. With none enabled, nothing is read."""
        if not (enabled := [bp for bp in self._breakpoints if bp.enabled]):
            return None
        p = self.record.passes[position]
        if step >= len(p.order):
            if step == len(p.order):
                stepping = [bp for bp in enabled if bp.pauses_at_step()]
                if stepping and p.index in self._steps_after_passes():
                    return hit_reason(stepping)
            return None
        if (node := self.record.nodes.get(p.order[step])) is None:
            return None
        facts = RecordFacts(node, p.steps[step] if step < len(p.steps) else None)
        return hit_reason([bp for bp in enabled if bp.matches(facts)]) or None

    def _steps_after_passes(self) -> set[int]:
        """The indexes of the backward passes an optimizer step followed (before the next began)."""
        events = self.record.optimizer
        seen = len(events)
        if seen != self._steps_seen:
            self._step_passes.update(e.passes - 1 for e in events[self._steps_seen : seen] if e.kind == OPTIMIZER_STEP)
            self._steps_seen = seen
        return self._step_passes

    def _end_reason(self, over: str) -> str:
        """Why nothing is left: `over` when the run ended; for a snapshot exported while its script
        was paused, that the snapshot ends there, and where the script was paused."""
        if self._kind() != State.STOPPED:
            return over
        passes = self.record.passes
        if not passes:
            return "the snapshot ends here: it was exported before the first backward pass"
        last = passes[-1]
        frontier = self._frontier()
        where = (
            f"pass {last.index}, step {frontier[1] + 1} of {len(last.order)}"
            if frontier is not None
            else f"the end of pass {last.index}"
        )
        return f"the snapshot ends here: it was exported while the script was paused at {where}"

    def _to_end(self, reason: str) -> None:
        walkable = self._walkable()
        frontier = self._frontier()
        if frontier is not None and frontier[0] >= 0:
            self._move_to(*frontier, reason)
        elif walkable:
            self._move_to(walkable[-1], len(self.record.passes[walkable[-1]].order), reason)
        else:
            self._changed(reason)

    def _move_to(self, position: int | None, step: int, reason: str, created: int | None = None) -> None:
        with self._lock:
            self._position, self._step, self._created = position, step, created
        self._changed(reason)

    def _make_state(self, reason: str) -> SessionState:
        position, step = self._position, self._step
        kind = self._kind()
        node = frontier = None
        if self._created is not None:  # what has happened: up to the end of the pass before its own
            position, step = self._backward_before(self._created)
            if position is not None:
                frontier = len(self.record.passes[position].order)
            return SessionState(
                kind,
                position,
                step if position is not None else None,
                frontier,
                self._created,
                reason,
                created=self._created,
            )
        if position is not None:
            order = self.record.passes[position].order
            node = order[step] if step < len(order) else None
            edge = self._frontier()
            frontier = edge[1] if edge is not None and edge[0] == position else len(order)
        return SessionState(
            kind=kind,
            pass_index=position,
            step=step if position is not None else None,
            frontier=frontier,
            node=node,
            reason=reason,
            exit_code=None if kind == State.PAUSED else self.record.metadata.exit_code,
            error=self.record.error if kind == State.FAILED else None,
        )

    def _changed(self, reason: str) -> None:
        with self._lock:
            self.state = state = self._make_state(reason)
        for callback in list(self._listeners):
            callback(state)
