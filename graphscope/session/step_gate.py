"""StepGate: the engine observer that holds the script thread at the stops the session asks for."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from graphscope.engine.hooks import Observer, Site, current_module
from graphscope.trace.stats.finite import any_nonfinite, grad_norm
from graphscope.trace.stats.summarize import summarize

from .breakpoint import Breakpoint, hit_reason
from .script_runner import SessionQuit
from .state import Mode

if TYPE_CHECKING:
    from graphscope.trace import Recorder, TensorSummary


# What the gate reads of the engine's objects (the session observes them; it does not import them).
class _Node(Protocol):
    """A graph node (a Function)."""

    @property
    def op(self) -> str: ...


class _Output(Protocol):
    """A node's output Tensor."""

    @property
    def array(self) -> object: ...
    @property
    def _vc(self) -> list[int]: ...  # its in-place version counter


# How long a paused script thread sleeps between checks of the quit flag: it never blocks
# without a timeout, so quitting (and Textual joining worker threads at exit) cannot hang.
POLL_SECONDS = 0.05


class Watched(NamedTuple):
    """What breakpoints look at of one node made in this pass's forward."""

    op: str
    module: str | None
    site: Site | None
    array: object  # the output's live array
    version_counter: list[int]  # the output's in-place version counter (shared with its views)
    version: int  # the counter when the node was made: a value changed since is not looked at

    def current(self) -> bool:
        return self.version_counter[0] == self.version


class LiveFacts:
    """A breakpoint's questions about the node about to run, answered from the live arrays by the
    same rules the record's summaries follow (a value overwritten in place is not looked at)."""

    __slots__ = ("op", "module", "file", "line", "_value", "_grad", "_pass_nonfinite")
    forward = False

    def __init__(self, watched: Watched, grad: object, pass_nonfinite: Callable[[], bool]) -> None:
        self.op, self.module = watched.op, watched.module
        site = watched.site
        self.file: str | None = site.file if site is not None else None
        self.line: int | None = site.line if site is not None else None
        self._value = watched.array if watched.current() else None
        self._grad = grad
        self._pass_nonfinite = pass_nonfinite

    def value_nonfinite(self) -> bool:
        return self._value is not None and self._pass_nonfinite() and any_nonfinite([self._value])

    def grad_nonfinite(self) -> bool:
        return self._grad is not None and any_nonfinite([self._grad])

    def grad_norm(self) -> float | None:
        return None if self._grad is None else grad_norm(self._grad)

    def inputs_nonfinite(self) -> bool:
        return False

    def summary(self, target: str) -> TensorSummary | None:
        array = self._value if target == "value" else self._grad
        return None if array is None else summarize(array)


class CreatedFacts:
    """A breakpoint's questions about a node the forward has just created, answered from its live
    output and inputs (it has no grad yet)."""

    __slots__ = ("op", "module", "file", "line", "_value", "_inputs")
    forward = True

    def __init__(self, watched: Watched, inputs: Sequence[object]) -> None:
        self.op, self.module = watched.op, watched.module
        site = watched.site
        self.file: str | None = site.file if site is not None else None
        self.line: int | None = site.line if site is not None else None
        self._value = watched.array
        self._inputs = inputs

    def value_nonfinite(self) -> bool:
        return any_nonfinite([self._value])

    def grad_nonfinite(self) -> bool:
        return False

    def grad_norm(self) -> float | None:
        return None

    def inputs_nonfinite(self) -> bool:
        arrays = [array for x in self._inputs if (array := getattr(x, "array", None)) is not None]
        return any_nonfinite(arrays)

    def summary(self, target: str) -> TensorSummary | None:
        return summarize(self._value) if target == "value" else None


class StepGate(Observer):
    """Pauses the script thread where the mode and the breakpoints say, and reports each pause.

    The script thread calls the Observer events; the session calls `release` and `quit` from any
    thread. `on_pause(pass position, frontier step, reason, created)` is called on the script
    thread before it blocks (`created`: the id of the node whose creation it is held in, at a
    stop in the forward; else None); it may release the gate at once (a queued command). A step
    from a stop in the forward stops at the next node created (or the backward's first step).
    """

    one_thread = True  # it holds the script's thread only: other threads run on, unrecorded

    def __init__(
        self,
        recorder: Recorder,
        breakpoints: Callable[[], Sequence[Breakpoint]],
        on_pause: Callable[[int, int, str, int | None], None],
        pause: bool = True,
    ) -> None:
        self.recorder = recorder
        self.breakpoints = breakpoints  # () -> the session's current breakpoints
        self.on_pause = on_pause
        self.cond = threading.Condition()
        self.mode = Mode.STEP if pause else Mode.CONTINUE
        self.first = True
        self.interrupted = False
        self.quitting = False
        self.released = False
        self.pass_position = -1
        self.order_ids: list[int] = []
        self.frontier = 0  # steps run in this pass
        self.at_pass_end = False  # paused at this pass's end already (a step breakpoint stops there once)
        self.watched: dict[int | None, Watched] = {}  # node id -> what breakpoints look at (this pass's forward)
        self._pass_nonfinite: bool | None = None
        self.paused_forward = False  # held at a node's creation now
        self.forward_stepping = False  # a step from a stop in the forward: the next node created stops

    # --- engine events (script thread) ---------------------------------------------------

    def node_created(self, node: _Node, inputs: Sequence[object], output: _Output, site: Site | None) -> None:
        self._check_quit()
        node_id = self.recorder.node_id(node)
        counter = output._vc
        watched = self.watched[node_id] = Watched(node.op, current_module(), site, output.array, counter, counter[0])
        mode = self.mode
        if mode == Mode.RUN or node_id is None:
            return
        if mode == Mode.STEP and self.forward_stepping:
            self._pause(self._stepped("step"), node_id)
            return
        breakpoints = [bp for bp in self.breakpoints() if bp.enabled and bp.stops_forward()]
        if breakpoints:
            facts = CreatedFacts(watched, inputs)
            reason = hit_reason([bp for bp in breakpoints if bp.matches(facts)])
            if reason:
                self._pause(reason, node_id)

    def backward_begun(self, root: object, order: Sequence[object]) -> None:
        self._check_quit()
        backward = self.recorder.record.passes[-1]  # the recorder, installed first, made it
        self.pass_position = len(self.recorder.record.passes) - 1
        self.order_ids = list(backward.order)
        self.frontier = 0
        self.at_pass_end = False
        self._pass_nonfinite = None

    def before_node(self, node: object, grad_output: object) -> None:
        self._check_quit()
        node_id = self.order_ids[self.frontier] if self.frontier < len(self.order_ids) else None
        reason = self._reason(node_id, grad_output)
        if reason:
            self._pause(reason)

    def after_node(self, node: object, grad_inputs: object) -> None:
        self.frontier += 1

    def backward_ended(self, root: object) -> None:
        if not self.quitting and self.mode == Mode.STEP and self.frontier == len(self.order_ids):
            self.at_pass_end = True
            self._pause(self._stepped("end of pass"))
        self.watched.clear()

    def optimizer_step_begun(self, optimizer: object) -> None:
        """A continue stops before `optimizer.step()` at a step breakpoint: the cursor at the end
        of the last backward pass, where it was not paused already (as a snapshot replays it)."""
        self._check_quit()
        if (
            self.mode != Mode.CONTINUE
            or self.at_pass_end
            or self.pass_position < 0
            or not self.order_ids
            or self.frontier != len(self.order_ids)
        ):
            return
        reason = hit_reason([bp for bp in self.breakpoints() if bp.enabled and bp.pauses_at_step()])
        if reason:
            self.at_pass_end = True
            self._pause(reason)

    # --- deciding and pausing ----------------------------------------------------------

    def _reason(self, node_id: int | None, grad: object) -> str:
        mode = self.mode
        if mode == Mode.STEP:
            return self._stepped("first backward pass" if self.first else "step")
        if mode == Mode.RUN:
            return ""
        breakpoints = self.breakpoints()
        watched = self.watched.get(node_id)
        if not breakpoints or watched is None:
            return ""
        facts = LiveFacts(watched, grad, self._values_nonfinite)
        return hit_reason([bp for bp in breakpoints if bp.enabled and bp.matches(facts)])

    def _stepped(self, reason: str) -> str:
        """Why a stop in step mode happens: `reason`, or that a running continue was interrupted."""
        if self.interrupted:
            self.interrupted = False
            return "interrupted"
        return reason

    def _values_nonfinite(self) -> bool:
        """Whether any value made in this pass's forward holds a NaN/Inf (once per pass: only then
        is each node's own value looked at)."""
        if self._pass_nonfinite is None:
            self._pass_nonfinite = any_nonfinite([w.array for w in self.watched.values() if w.current()])
        return self._pass_nonfinite

    def _pause(self, reason: str, created: int | None = None) -> None:
        """Block the script thread until the session releases it (or the user quits); `created`:
        held in that node's creation, in the forward of the pass to come."""
        self.first = False
        passes = self.recorder.record.passes
        self.recorder.keep(len(passes) if created is not None else passes[self.pass_position].index)
        self.recorder.flush()  # the record is complete up to here before anyone looks at it
        with self.cond:
            self.released = False
            self.paused_forward = created is not None
        self.on_pause(self.pass_position, self.frontier, reason, created)
        with self.cond:
            while not self.released and not self.quitting:
                self.cond.wait(POLL_SECONDS)
            if self.quitting:
                raise SessionQuit()

    def _check_quit(self) -> None:
        if self.quitting:
            raise SessionQuit()

    # --- commands (any thread) -----------------------------------------------------------

    def release(self, mode: Mode) -> None:
        """Let the script run on until the next stop of `mode`."""
        with self.cond:
            self.mode = mode
            self.interrupted = False
            self.forward_stepping = mode == Mode.STEP and self.paused_forward
            self.paused_forward = False
            self.released = True
            self.cond.notify_all()

    def interrupt(self) -> None:
        """A running script stops before its next node."""
        self.interrupted = True
        self.mode = Mode.STEP

    def quit(self) -> None:
        with self.cond:
            self.quitting = True
            self.cond.notify_all()
