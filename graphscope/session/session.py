"""Session: runs a user's script in a worker thread under the recorder and the step gate."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
import traceback
from dataclasses import dataclass

from graphscope.engine import backend
from graphscope.engine.hooks import observe
from graphscope.trace.recorder import Recorder

from .console_capture import ConsoleCapture
from .numpy_warnings import QuietNumpyWarnings
from .script_runner import SessionQuit, run_script
from .state import FAILED, FINISHED, STARTING, Breakpoint, SessionState
from .step_gate import StepGate
from .torch_alias import TorchAliases
from .torch_errors import in_torch_terms

# A script that never reaches an engine event (a long pure-Python loop) is interrupted this
# long after quit() by raising SessionQuit in its thread.
INTERRUPT_AFTER_SECONDS = 0.5


@dataclass(frozen=True)
class SessionOptions:
    """How to run the script: as_torch (`import torch` is graphscope), device, pausing, recording."""

    as_torch: bool = False
    device: str | None = None
    pause: bool = True  # pause before the first backward node (False is --no-pause)
    break_on_nan: bool = True  # a NaN/Inf breakpoint, listed and toggleable like any other
    echo: bool = False  # also pass the script's prints through (headless runs)
    policy: object | None = None  # the recorder's policy (None: its defaults)


class Session:
    """One run of a script under the debugger, driven by thread-safe commands."""

    def __init__(self, script: str, argv=(), options: SessionOptions | None = None):
        if not os.path.isfile(script):
            raise FileNotFoundError(f"no script at {script!r}: give the path of a Python file to run")
        self.script = script
        self.argv = list(argv)
        self.options = options or SessionOptions()
        if self.options.device is not None:
            backend.as_device(self.options.device)  # a bad device name fails here, before the run
        self.recorder = Recorder(self.options.policy, script, self.argv)
        self.record = self.recorder.record
        self.record.metadata.device = str(self.options.device or backend.get_default_device())
        self._listeners = []
        self.state = SessionState(kind=STARTING)
        self.gate = StepGate(self.recorder, self._notify, pause=self.options.pause)
        if self.options.break_on_nan:
            self.gate.add_breakpoint(Breakpoint("nan"))
        self._thread = threading.Thread(target=self._main, name="graphscope-script", daemon=True)

    # --- lifecycle -----------------------------------------------------------------------

    def add_listener(self, listener) -> None:
        """`listener(state)` on every change; called from the script thread (or the caller's)."""
        self._listeners.append(listener)

    def start(self) -> None:
        self._thread.start()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the script thread to end; True when it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def exit_code(self) -> int | None:
        return self.state.exit_code

    def _notify(self, state: SessionState) -> None:
        self.state = state
        for listener in tuple(self._listeners):
            try:
                listener(state)
            except Exception:  # a broken listener must not become the script's error
                traceback.print_exc(file=sys.__stderr__)

    def _main(self) -> None:
        outcome = None
        # Under --as-torch graphscope's NumPy warnings stay quiet to the end, the recording's included.
        with QuietNumpyWarnings() if self.options.as_torch else contextlib.nullcontext():
            try:
                with contextlib.ExitStack() as stack:
                    stack.enter_context(ConsoleCapture(self.recorder.console, self._thread, self.options.echo))
                    if self.options.device is not None:
                        stack.enter_context(_default_device(self.options.device))
                    if self.options.as_torch:
                        stack.enter_context(TorchAliases())
                    stack.enter_context(observe(self.recorder))
                    stack.enter_context(observe(self.gate))
                    self._notify(SessionState(kind="running"))
                    outcome = run_script(self.script, self.argv, in_torch_terms if self.options.as_torch else None)
            except SessionQuit:
                pass
            finally:
                self._finish(outcome)

    def _finish(self, outcome) -> None:
        error = None
        if outcome is None or outcome.quit:
            exit_code, reason = 130, "stopped by the debugger"
        else:
            exit_code, reason = outcome.exit_code, f"exit code {outcome.exit_code}"
            if outcome.error is not None:
                error = self.recorder.script_failed(outcome.error, outcome.traceback)
                reason = f"{error.type}: {error.message}"
        self.recorder.finish(exit_code)
        kind = FAILED if error is not None else FINISHED
        self._notify(SessionState(kind=kind, pass_index=self.gate.pass_index if self.gate.pass_index >= 0 else None,
                                  reason=reason, exit_code=exit_code, error=error))

    # --- commands --------------------------------------------------------------------------

    def step(self) -> None:
        self.gate.step()

    def continue_(self) -> None:
        self.gate.continue_()

    def run_to_end(self) -> None:
        self.gate.run_to_end()

    def step_back(self) -> None:
        self.gate.step_back()

    def step_forward(self) -> None:
        self.gate.step_forward()

    def goto(self, step: int) -> None:
        self.gate.goto(step)

    def quit(self) -> None:
        """Unwind the script thread (within about a second, from any state); returns at once."""
        self.gate.quit()
        if self._thread.is_alive():
            timer = threading.Timer(INTERRUPT_AFTER_SECONDS, self._interrupt)
            timer.daemon = True
            timer.start()

    def _interrupt(self) -> None:
        """Raise SessionQuit in a script thread that reached no engine event since quit()."""
        ident = self._thread.ident
        if self._thread.is_alive() and ident is not None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(SessionQuit))

    # --- breakpoints and values ------------------------------------------------------------

    @property
    def breakpoints(self) -> list[Breakpoint]:
        return list(self.gate.breakpoints)

    def add_breakpoint(self, breakpoint: Breakpoint) -> Breakpoint:
        return self.gate.add_breakpoint(breakpoint)

    def remove_breakpoint(self, breakpoint_id: int) -> None:
        self.gate.remove_breakpoint(breakpoint_id)

    def toggle_breakpoint(self, breakpoint_id: int) -> None:
        self.gate.toggle_breakpoint(breakpoint_id)

    def fetch(self, node_id: int, what: str = "value", index=None):
        """The live value or grad of a node of the current pass as a host array, or None."""
        if what not in ("value", "grad"):
            raise ValueError(f"fetch what={what!r}: use 'value' or 'grad'")
        return self.gate.fetch(node_id, what, index)


@contextlib.contextmanager
def _default_device(device):
    previous = backend.get_default_device()
    backend.set_default_device(device)
    try:
        yield
    finally:
        backend.set_default_device(previous)
