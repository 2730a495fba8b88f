"""Session: runs a user's script under the recorder and the step gate (a run nothing can stop: a quit
check, once it quits), in a worker thread (the app's) or on the calling thread (a headless run's: the main
thread, as plain python runs it)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import queue
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphscope.engine import backend, hooks
from graphscope.engine.hooks import observe
from graphscope.trace.recording.recorder import Policy, Recorder

from .console_capture import ConsoleCapture
from .debuggee import Debuggee
from .numpy_warnings import QuietNumpyWarnings
from .quit_check import QuitCheck
from .script_runner import Outcome, SessionQuit, run_script
from .state import Mode, State
from .step_gate import POLL_SECONDS, StepGate

if TYPE_CHECKING:
    from .evaluator import Evaluation, Evaluator, FrameInfo

# A script that never reaches an engine event (a long pure-Python loop) is interrupted this
# long after quit() by raising SessionQuit in its thread.
INTERRUPT_AFTER_SECONDS = 0.5


@dataclass(frozen=True)
class SessionOptions:
    """How to run the script: as_torch (`import torch` is graphscope), device, pausing, steering, recording."""

    as_torch: bool = False
    device: str | None = None
    pause: bool = True  # pause before the first backward node (False is --no-pause)
    break_on_nan: bool = True  # a NaN/Inf breakpoint, listed and toggleable like any other
    echo: bool = False  # also pass the script's prints through (headless runs)
    policy: Policy | None = None  # the recorder's policy (None: its defaults)
    # The user may pause the run or add breakpoints while it runs (the app). False (headless): only
    # the breakpoints it starts with stop it, and with none the engine runs with no step gate.
    steered: bool = True


class Session(Debuggee):
    """One run of a script under the debugger: the record's navigation model (`Debuggee`) plus
    "run the script until the record reaches the next stop". Thread-safe commands."""

    live = True

    def __init__(self, script: str, argv: Iterable[str] = (), options: SessionOptions | None = None) -> None:
        if not os.path.isfile(script):
            raise FileNotFoundError(f"no script at {script!r}: give the path of a Python file to run")
        self.argv = list(argv)
        self.options = options or SessionOptions()
        if self.options.device is not None:
            backend.as_device(self.options.device)  # a bad device name fails here, before the run
        self.recorder = Recorder(self.options.policy, script, self.argv)
        self._life = State.STARTING  # never STOPPED: that is a snapshot's
        self._edge: tuple[int, int] | None = None  # (pass position, step) where the script is held
        self._edge_created: int | None = None  # held in this node's creation (a stop in the forward)
        self._running: Mode | None = None  # the mode of the run in progress
        self._queued = 0  # steps asked for while a step was running
        self._answers: queue.Queue[str | None] = queue.Queue()  # what the user typed for input()
        super().__init__(self.recorder.record, script, break_on_nan=self.options.break_on_nan)
        self.record.metadata.device = str(self.options.device or backend.get_default_device())
        self.gate = StepGate(self.recorder, lambda: self._breakpoints, self._paused, pause=self.options.pause)
        self._thread: threading.Thread | None = None  # the thread the script runs on, once it does
        self._ungated = False  # the script runs with no gate installed: a quit installs `_quit_check`
        self._quit_check: QuitCheck | None = None
        self._finishing = False
        self._evaluator: Evaluator | None = None  # made when first asked for: a run nothing stops needs none
        self.failure: BaseException | None = None  # what the script raised, once it has (for pdb)

    @property
    def thread(self) -> threading.Thread | None:
        """The thread the script runs on (None before it does): whose frames show where it is."""
        return self._thread

    def _paused_thread(self) -> threading.Thread | None:
        """The script's thread while it is held at a stop (its frames can be looked at), else None."""
        return self._thread if self._life == State.PAUSED else None

    # --- the paused script's frames ------------------------------------------------------------

    @property
    def evaluator(self) -> Evaluator:
        """What evaluates lines typed at a pause in the script's frames (loaded on first use)."""
        with self._lock:
            if self._evaluator is None:
                from .evaluator import Evaluator

                self._evaluator = Evaluator(self._paused_thread)
            return self._evaluator

    def evaluate(self, text: str) -> Evaluation:
        """Evaluate a line in the paused script's chosen frame (see Evaluator.evaluate)."""
        return self.evaluator.evaluate(text)

    def completions(self, prefix: str) -> list[str]:
        return self.evaluator.completions(prefix)

    def move_frame(self, delta: int) -> str:
        return self.evaluator.move(delta)

    def frames(self) -> list[FrameInfo]:
        return self.evaluator.where()

    @property
    def frame_level(self) -> int:
        return self.evaluator.level

    @property
    def functions(self) -> dict[str, type]:
        functions: dict[str, type] = self.recorder.functions
        return functions

    # --- the navigation model's hooks ----------------------------------------------------------

    def _initial_reason(self) -> str:
        return ""

    def _kind(self) -> State:
        return self._life

    def _frontier(self) -> tuple[int, int] | None:
        if self._life.over:
            return None
        return self._edge if self._edge is not None else (-1, 0)

    def _forward_frontier(self) -> int | None:
        if self._life.over:
            return None
        if self._edge is None or self._life.busy:
            return -1  # running: what it writes is not read
        return self._edge_created if self._edge_created is not None else None

    def _advance(self, mode: Mode) -> bool:
        with self._lock:
            if self._life.over:
                return False
            if self._life == State.PAUSED:
                assert self._edge is not None  # _paused set it
                position, step = self._edge  # the cursor catches up with the script
                self._position, self._step = (position if position >= 0 else None), step
                self._created = self._edge_created
                self._running = mode
                self._life = State.RUNNING
                self.gate.release(mode)
            elif mode == Mode.STEP:
                if self._running == Mode.STEP:
                    self._queued += 1  # keys pressed in a burst are steps to take, not dropped
                else:
                    self._running = Mode.STEP
                    self.gate.interrupt()  # a continue or run to end stops at the next node
                return True
            else:  # a continue or run to end while the script runs: it takes over from there
                if mode == Mode.RUN or self._running == Mode.STEP:
                    self._running, self._queued = mode, 0
                    self.gate.mode = mode
                return True
        self._changed("running")
        return True

    def _advance_steps(self, count: int) -> None:
        with self._lock:
            if self._life != State.PAUSED or count < 1:
                return
            self._queued = count - 1
        self._advance(Mode.STEP)

    def interrupt(self) -> None:
        """Stop a running continue or run to end before the script's next node."""
        with self._lock:
            if self._life.busy and self._running != Mode.STEP:
                self._running = Mode.STEP
                self.gate.interrupt()

    def _paused(self, position: int, step: int, reason: str, created: int | None = None) -> None:
        """The gate holds the script here (script thread): before a backward step, or in the
        creation of node `created`."""
        with self._lock:
            self._edge, self._edge_created = (position, step), created
            if self._queued and not self.gate.quitting:
                self._queued -= 1
                self.gate.release(Mode.STEP)
                return
            self._life = State.PAUSED
            if self._evaluator is not None:  # (a new one starts at the innermost frame)
                self._evaluator.reset()
            self._running = None
            self._position, self._step, self._created = (position if position >= 0 else None), step, created
        self._changed(reason)

    # --- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        """Run the script in a worker thread (a daemon: quitting never waits for it)."""
        self._thread = threading.Thread(target=self._main, name="graphscope-script", daemon=True)
        self._thread.start()

    def run(self) -> None:
        """Run the script on this thread, to its end (on the main thread, its signal handlers work)."""
        self._thread = threading.current_thread()
        self._main()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the worker thread (see `start`) to end; True when it has."""
        assert self._thread is not None, "join() before start()"
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _main(self) -> None:
        outcome: Outcome | None = None
        assert self._thread is not None  # start() and run() set it before they call this
        # Under --as-torch graphscope's NumPy warnings stay quiet to the end, the recording's included.
        with QuietNumpyWarnings() if self.options.as_torch else contextlib.nullcontext():
            try:
                with contextlib.ExitStack() as stack:
                    # A headless run (echo) reads the real stdin; the app answers input() itself.
                    ask = None if self.options.echo else self._ask
                    stack.enter_context(ConsoleCapture(self.recorder.console, self._thread, self.options.echo, ask))
                    if self.options.device is not None:
                        stack.enter_context(_default_device(self.options.device))
                    restate = None
                    if self.options.as_torch:  # (its modules loaded only then)
                        from .torch_alias import TorchAliases
                        from .torch_errors import in_torch_terms

                        stack.enter_context(TorchAliases())
                        restate = in_torch_terms
                    stack.enter_context(observe(self.recorder))
                    stack.enter_context(observe(self.gate) if self._can_stop() else self._ungated_run())
                    with self._lock:
                        self._life = State.RUNNING
                        self._running = Mode.STEP if self.options.pause else Mode.CONTINUE
                    self._changed("running")
                    if not self.gate.quitting:  # quit before it started: the script never runs
                        outcome = run_script(self.source, self.argv, restate)
            except SessionQuit:
                pass
            finally:
                self._finish(outcome)

    def _can_stop(self) -> bool:
        """Whether anything may stop the script before it ends, but quitting (then the gate listens)."""
        options = self.options
        return options.steered or options.pause or any(bp.enabled for bp in self._breakpoints)

    @contextlib.contextmanager
    def _ungated_run(self) -> Iterator[None]:
        """The script runs with no gate: the engine steps through backward at its own pace (the
        recorder on its tape), and a quit installs a QuitCheck, removed here when the run is over."""
        with self._lock:
            self._ungated = True
        try:
            yield
        finally:
            with self._lock:
                self._ungated = False
                if self._quit_check is not None:
                    hooks.uninstall(self._quit_check)

    @property
    def finishing(self) -> bool:
        """Whether the script's thread is writing the run's end into the record (not to be cut off)."""
        return self._finishing

    def _finish(self, outcome: Outcome | None) -> None:
        self._finishing = True
        try:
            self._write_end(outcome)
        finally:
            self._finishing = False

    def _write_end(self, outcome: Outcome | None) -> None:
        error = None
        if outcome is None or outcome.quit:
            exit_code, reason = 130, "stopped by the debugger"
        else:
            exit_code, reason = outcome.exit_code, f"exit code {outcome.exit_code}"
            if outcome.error is not None:
                self.failure = outcome.error
                error = self.recorder.script_failed(outcome.error, outcome.traceback)
                reason = f"{error.type}: {error.message}"
        self.recorder.finish(exit_code)
        with self._lock:
            self._life = State.FAILED if error is not None else State.FINISHED
            self._edge, self._edge_created, self._running, self._queued = None, None, None, 0
            self._created = None
            walkable = self._walkable()
            if walkable:  # the script ran past the last stop: the cursor is at the end of the run
                self._position = walkable[-1]
                self._step = len(self.record.passes[self._position].order)
        self._changed(reason)

    # --- the script's input() -------------------------------------------------------------------

    def _ask(self, prompt: str) -> str | None:
        """The script reads a line (script thread): wait for `answer`, never for the terminal."""
        with self._lock:
            self.prompt = prompt
        self._changed("waiting for input")
        try:
            while True:
                if self.gate.quitting:
                    raise SessionQuit()
                try:
                    answer = self._answers.get(timeout=POLL_SECONDS)
                    break
                except queue.Empty:
                    continue
        finally:
            with self._lock:
                self.prompt = None
        self._changed("running")
        return answer

    def answer(self, text: str | None) -> None:
        """The line the user typed for the script's input() (None: end of input)."""
        self._answers.put(text)

    # --- commands --------------------------------------------------------------------------

    def stop(self) -> None:
        """Ask the script to stop at its next engine event (SessionQuit raised there, on its own
        thread: nothing is thrown into it from outside); returns at once, from any thread."""
        with self._lock:
            self.gate.quit()
            if self._ungated and self._quit_check is None:
                assert self._thread is not None and self._thread.ident is not None  # _ungated: it runs
                self._quit_check = QuitCheck(self._thread.ident)
                hooks.install(self._quit_check)

    def quit(self) -> None:
        """Unwind the script thread (within about a second, from any state); returns at once."""
        self.stop()
        if self._thread is not None and self._thread.is_alive():
            timer = threading.Timer(INTERRUPT_AFTER_SECONDS, self._interrupt)
            timer.daemon = True
            timer.start()

    def _interrupt(self) -> None:
        """Raise SessionQuit in a script thread that reached no engine event since quit()."""
        assert self._thread is not None  # quit() sets the timer only for a started thread
        ident = self._thread.ident
        if self._thread.is_alive() and ident is not None and not self._life.over:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(SessionQuit))


@contextlib.contextmanager
def _default_device(device: str) -> Iterator[None]:
    previous = backend.get_default_device()
    backend.set_default_device(device)
    try:
        yield
    finally:
        backend.set_default_device(previous)
