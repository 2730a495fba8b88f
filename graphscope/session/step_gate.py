"""StepGate: the engine observer that pauses the script thread before backward nodes and takes commands."""

from __future__ import annotations

import math
import threading
import weakref

from graphscope.engine.backend import astype, namespace, native_dtype, to_host
from graphscope.engine.dtypes import float64
from graphscope.engine.hooks import Observer, current_module

from .script_runner import SessionQuit
from .state import PAUSED, RUNNING, Breakpoint, SessionState

# How long a paused script thread sleeps between checks of the quit flag: it never blocks
# without a timeout, so quitting (and Textual joining worker threads at exit) cannot hang.
POLL_SECONDS = 0.05

# Modes: when the gate pauses next.
STEP = "step"  # before the next node, or at the end of the pass
CONTINUE = "continue"  # at a breakpoint or condition, or at the end of the current pass
FREE = "free"  # at a breakpoint or condition only
RUN = "run"  # never


class StepGate(Observer):
    """Decides where to pause, blocks the script thread there, and moves a time-travel cursor.

    The script thread calls the Observer events; any thread calls the commands. One
    condition variable guards everything; listeners are told of every state change.
    """

    def __init__(self, recorder, notify, pause: bool = True):
        self.recorder = recorder
        self.notify = notify  # notify(SessionState), called outside the lock
        self.cond = threading.Condition()
        self.mode = STEP if pause else FREE
        self.breakpoints: list[Breakpoint] = []
        self.next_breakpoint_id = 1
        self.quitting = False
        self.waiting = False  # the script thread is blocked in `_pause`
        self.go = False  # a command let the engine run on
        self.pass_index = -1
        self.order_length = 0
        self.frontier = 0  # steps run in this pass
        self.cursor = 0
        self.reason = ""
        self.paused_before = False
        self.loss_finite = True
        self.state = SessionState(kind=RUNNING)
        # What breakpoints match on, for the nodes of the current pass: (op, module, site).
        self.info: dict[int, tuple] = {}
        # Live objects of the current pass, for fetching full values while paused.
        self.values: dict[int, weakref.ref] = {}
        self.grads: dict[int, object] = {}
        self.order_ids: list[int | None] = []

    # --- engine events (script thread) ---------------------------------------------------

    def node_created(self, node, inputs, output, site):
        self._check_quit()
        node_id = self.recorder.node_id(node)
        self.info[node_id] = (node.op, current_module(), site)
        self.values[node_id] = weakref.ref(output)
        for tensor in inputs:  # leaves have no node of their own to fetch them by
            if getattr(tensor, "grad_fn", 0) is None:
                leaf_id = self.recorder.node_id(tensor)
                if leaf_id is not None:
                    self.values[leaf_id] = weakref.ref(tensor)

    def backward_begun(self, root, order):
        self._check_quit()
        with self.cond:
            backward = self.recorder.record.passes[-1]  # the recorder, installed first, made it
            self.pass_index = backward.index
            self.order_ids = list(backward.order)
            self.order_length = len(order)
            self.frontier = self.cursor = 0
            self.grads.clear()
            self.loss_finite = _finite(root.array)

    def before_node(self, node, grad_output):
        self._check_quit()
        node_id = self.order_ids[self.frontier] if self.frontier < self.order_length else None
        if node_id is not None:
            self.grads[node_id] = grad_output
        reason = self._pause_reason(node_id, grad_output)
        if reason:
            self._pause(reason)

    def after_node(self, node, grad_inputs):
        with self.cond:
            self.frontier += 1
            self.cursor = self.frontier

    def leaf_grad_accumulated(self, tensor, grad):
        leaf_id = self.recorder.node_id(tensor)
        if leaf_id is not None:
            self.values[leaf_id] = weakref.ref(tensor)
            self.grads[leaf_id] = grad

    def backward_ended(self, root):
        if self.quitting:
            return
        if self.mode in (STEP, CONTINUE) and self.frontier == self.order_length:
            self._pause("end of pass")
            with self.cond:
                if self.mode == CONTINUE:
                    self.mode = FREE  # continuing past a pass: later passes pause only at breakpoints
        self.values.clear()
        self.info.clear()

    # --- deciding and pausing ----------------------------------------------------------

    def _pause_reason(self, node_id, grad) -> str:
        mode = self.mode
        if mode == RUN:
            return ""
        if mode == STEP:
            return "step" if self.paused_before else "first backward pass"
        for bp in self.breakpoints:
            if bp.enabled and self._hits(bp, node_id, grad):
                return f"breakpoint {bp.id} ({bp.describe()})"
        return ""

    def _hits(self, bp: Breakpoint, node_id, grad) -> bool:
        if bp.kind == "nan":
            if not _finite(grad):
                return True
            if self.loss_finite:  # a NaN/Inf in any value shows in the loss: only then look at values
                return False
            ref = self.values.get(node_id)
            value = ref() if ref is not None else None
            return value is not None and not _finite(value.array)
        if bp.kind == "grad_norm":
            xp = namespace(grad)
            norm = float(to_host(xp.linalg.vector_norm(astype(grad, native_dtype(float64, grad)))))
            return not math.isfinite(norm) or norm > bp.value
        if bp.kind == "node":
            return node_id == bp.value
        info = self.info.get(node_id)
        if info is None:
            return False
        op, module, site = info
        if bp.kind == "op":
            return op == bp.value
        if bp.kind == "module":
            return module is not None and (module == bp.value or module.startswith(bp.value + "."))
        if bp.kind == "line":
            file, _, line = str(bp.value).rpartition(":")
            return site.line == int(line) and (site.file == file or site.file.endswith("/" + file.lstrip("./")))
        return False

    def _pause(self, reason: str) -> None:
        """Block the script thread until a command lets the engine run (or the user quits)."""
        self.recorder.flush()  # the record is complete up to here before anyone looks at it
        with self.cond:
            self.reason = reason
            self.paused_before = True
            self.cursor = self.frontier
            self.waiting = True
            self.go = False
            state = self._state_locked()
        self.notify(state)
        with self.cond:
            while not self.go and not self.quitting:
                self.cond.wait(POLL_SECONDS)
            self.waiting = False
            quitting = self.quitting
            if not quitting:
                self.state = SessionState(kind=RUNNING, pass_index=self.pass_index)
                state = self.state
        if quitting:
            raise SessionQuit()
        self.notify(state)

    def _check_quit(self) -> None:
        if self.quitting:
            raise SessionQuit()

    def _state_locked(self) -> SessionState:
        at_end = self.cursor >= self.order_length
        self.state = SessionState(
            kind=PAUSED, pass_index=self.pass_index, step=self.cursor, frontier=self.frontier,
            node=None if at_end else self.order_ids[self.cursor], reason=self.reason,
        )
        return self.state

    # --- commands (any thread) -----------------------------------------------------------

    def _release(self, mode: str) -> None:
        with self.cond:
            self.mode = mode
            self.go = True
            self.cond.notify_all()

    def step(self) -> None:
        with self.cond:
            if self.waiting and self.cursor < self.frontier:
                self.cursor += 1  # behind the frontier a step only moves the cursor
                state = self._state_locked()
            else:
                state = None
                self.mode = STEP
                self.go = True
                self.cond.notify_all()
        if state is not None:
            self.notify(state)

    def continue_(self) -> None:
        self._release(FREE if self.waiting and self.frontier >= self.order_length else CONTINUE)

    def run_to_end(self) -> None:
        self._release(RUN)

    def goto(self, step: int) -> None:
        with self.cond:
            if not self.waiting:
                return
            self.cursor = max(0, min(int(step), self.frontier))
            state = self._state_locked()
        self.notify(state)

    def step_back(self) -> None:
        self.goto(self.cursor - 1)

    def step_forward(self) -> None:
        self.goto(self.cursor + 1)

    def quit(self) -> None:
        with self.cond:
            self.quitting = True
            self.cond.notify_all()

    # --- breakpoints ---------------------------------------------------------------------

    def add_breakpoint(self, bp: Breakpoint) -> Breakpoint:
        with self.cond:
            bp = Breakpoint(bp.kind, bp.value, bp.enabled, self.next_breakpoint_id)
            self.next_breakpoint_id += 1
            self.breakpoints = [*self.breakpoints, bp]
        return bp

    def remove_breakpoint(self, bp_id: int) -> None:
        with self.cond:
            self.breakpoints = [b for b in self.breakpoints if b.id != bp_id]

    def toggle_breakpoint(self, bp_id: int) -> None:
        with self.cond:
            self.breakpoints = [Breakpoint(b.kind, b.value, not b.enabled, b.id) if b.id == bp_id else b
                                for b in self.breakpoints]

    # --- live values ---------------------------------------------------------------------

    def fetch(self, node_id: int, what: str, index=None):
        """The live value or grad of a node of the current pass as a host array (only `index`)."""
        if what == "grad":
            array = self.grads.get(node_id)
        else:
            ref = self.values.get(node_id)
            tensor = ref() if ref is not None else None
            array = None if tensor is None else tensor.array
        if array is None:
            return None
        if index is not None:
            array = array[index]
        return to_host(array).copy()


def _finite(array) -> bool:
    xp = namespace(array)
    return bool(to_host(xp.all(xp.isfinite(array))))
