"""`graphscope run --headless`: run a script under the recorder with no UI, then print its summary
(`run_recorded` is the run itself, which `graphscope explain` shares)."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, Self

from rich.console import Console

from graphscope.engine import hooks
from graphscope.trace.record.literal import escaped
from graphscope.trace.report.summary_report import print_summary

from .breakpoint import Breakpoint
from .death_notice import DeathNotice
from .session import Session, SessionOptions
from .state import SessionState

if TYPE_CHECKING:
    from graphscope.trace import Policy, Record

    from .status_line import StatusLine

# report(record, exit code, notes): prints and writes what the run leaves; the process's exit code.
Report = Callable[["Record", int, list[str]], int]
Exports = Iterable[tuple[str, str | None]]  # (what, path): the files a report writes


class Held(Protocol):
    """What held Ctrl-C before the run began (the command's `_HeldCtrlC`)."""

    @property
    def pressed(self) -> bool: ...


# How often the live status line on a terminal's stderr is redrawn.
STATUS_SECONDS = 0.25
# The exit code of --fail-on-nan when a NaN/Inf appeared (the script's own code otherwise).
NAN_EXIT_CODE = 3
# The exit code when an export could not be written.
WRITE_FAILED = 2
INTERRUPTED = 130
# After Ctrl-C: how long the script has to stop at its next engine event, then how long it has
# to leave the recorder's code before the record is cut without it (exit within 2 s).
STOP_SECONDS = 0.8
CUT_SECONDS = 0.5

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Code that changes the record while it runs: the trace layer, the engine's event dispatch,
# and the session's own calls into the recorder.
_RECORDING_CODE = (
    os.path.join(_PACKAGE, "trace", ""),
    os.path.join(_PACKAGE, "engine", "hooks.py"),
    os.path.join(_PACKAGE, "session", "step_gate.py"),
)
_EXIT = os._exit  # the process's own exit, whatever a run puts in its place


def run_headless(
    script: str,
    argv: Sequence[str] = (),
    *,
    export: str | None = None,
    dot_path: str | None = None,
    fail_on_nan: bool = False,
    as_torch: bool = False,
    device: str | None = None,
    held: Held | None = None,
    policy: Policy | None = None,
    breakpoints: Sequence[Breakpoint] = (),
    post_mortem: bool = False,
) -> int:
    """Run `script`; write the snapshot and DOT files (also when it raised, was interrupted or
    called os._exit); print the summary to the stdout and stderr of the start, whatever the
    script did with sys.stdout. Ctrl-C stops the script at its next engine event and exits 130.
    Paths are used as given: the command makes them absolute (see export_path)."""
    stdout, stderr = sys.stdout, sys.stderr

    def report(record: Record, code: int, notes: list[str]) -> int:
        written, failed = _write(record, export, dot_path, code)
        print_summary(record, Console(file=stdout, emoji=False))
        for line in written + failed + notes:
            print(escaped(line), file=stderr)
        if failed:
            return WRITE_FAILED
        if fail_on_nan and record.has_nonfinite():
            return NAN_EXIT_CODE
        return code

    return run_recorded(
        script,
        argv,
        report,
        as_torch=as_torch,
        device=device,
        policy=policy,
        exports=(("snapshot", export), ("graph", dot_path)),
        held=held,
        breakpoints=breakpoints,
        post_mortem=post_mortem,
    )


def run_recorded(
    script: str,
    argv: Sequence[str],
    report: Report,
    *,
    as_torch: bool = False,
    device: str | None = None,
    echo: bool = True,
    policy: Policy | None = None,
    exports: Exports = (),
    held: Held | None = None,
    breakpoints: Sequence[Breakpoint] = (),
    post_mortem: bool = False,
) -> int:
    """Run `script` under the recorder with no UI on this thread (the main thread: as under plain
    python, its signal handlers work), with a status line on a terminal's stderr; print its
    traceback if it raised, and hand the record to `report(record, exit_code, notes)`, whose
    answer is the exit code. The run ends once, by what comes first: the script's end, Ctrl-C (it
    stops the script at its next engine event: exit 130) or os._exit. `exports`, (what, path)
    pairs, are named on stderr when they could not be written; `held` (its `pressed`) is a Ctrl-C
    that came before the run could act on it. At each of `breakpoints` the stop is printed (and with
    `post_mortem` pdb opens there, and where the script raised)."""
    session = Session(
        script,
        list(argv),
        SessionOptions(
            as_torch=as_torch, device=device, pause=False, break_on_nan=False, echo=echo, policy=policy, steered=False
        ),
    )
    for breakpoint in breakpoints:
        session.add_breakpoint(breakpoint)
    # What only some runs use is loaded only for them: pdb for stops, Rich's live display for a terminal.
    if breakpoints or post_mortem:
        from .headless_stops import StopPrinter

        session.add_listener(StopPrinter(session, sys.stdout, post_mortem))
    terminal = None
    if sys.stderr.isatty():
        from .status_line import StatusLine

        terminal = StatusLine()
    ending = _Ending(session, report, exports, terminal)
    watch = _Watch(session, ending, terminal)
    with _CtrlC(held, watch.ctrl_c) as ctrl_c:  # held to the end: a second Ctrl-C cannot break a write in half
        with terminal or contextlib.nullcontext():
            watch.start()
            if ctrl_c.pressed:
                session.stop()  # Ctrl-C came before the script started: it never runs
            with _OsExit(ending):
                session.run()
            if post_mortem:
                from .headless_stops import post_mortem as post_mortem_at

                post_mortem_at(session.failure)
            ctrl_c.take_back()  # from a script that took Ctrl-C for itself
            watch.ended()
        return ending.script_ended()


class _Ending:
    """The one end of a run, by what comes first: the script's own end, Ctrl-C or os._exit. The
    first reports the record as it stands then (or says why it cannot); a later one waits for it."""

    def __init__(self, session: Session, report: Report, exports: Exports, terminal: StatusLine | None) -> None:
        self.session, self.report, self.terminal = session, report, terminal
        self.exports = [(what, path) for what, path in exports if path]
        self.stderr = sys.stderr  # the run's own lines go here, whatever the script does with sys.stderr
        self.notice = DeathNotice(
            [
                f"graphscope: cannot write {what} {escaped(path)}: the process died before it was written"
                for what, path in self.exports
            ]
        )
        self.over = threading.Event()  # the script has ended (set inside its _finish: in recording code)

        def note_over(state: SessionState) -> None:
            if state.kind.over:
                self.over.set()

        session.add_listener(note_over)
        self.code = 1  # the exit code reported (1 if the report itself failed)
        self._claim = threading.Lock()
        self._reported = threading.Event()

    def script_ended(self) -> int:
        """The script's run returned (on its thread): report the final record; the exit code."""
        if self._claim.acquire(blocking=False):
            self._report_final()
        else:
            self._reported.wait()  # Ctrl-C or os._exit came first: that thread reports
        return self.code

    def interrupted(self) -> None:
        """Ctrl-C while the script runs (the watch thread): stop it at its next engine event (the
        session's stop: no exception is thrown into it from outside, so none lands in the recorder);
        if it does not stop in time, report a cut of the record and end the process without it."""
        hooks.uninstall(self.session.recorder)  # nothing after Ctrl-C is recorded (a script that
        self.session.stop()  # catches the SessionQuit and goes on)
        if self.over.wait(STOP_SECONDS) or not self._claim.acquire(blocking=False):
            return  # it stopped (its end reports), or os._exit is reporting
        self._report_cut(INTERRUPTED, f"the script did not stop within {STOP_SECONDS + CUT_SECONDS:g} s of Ctrl-C")
        if not self.over.is_set():
            _leave(self.code)  # the script runs on: end the process without it

    def os_exit(self, code: int) -> None:
        """The script called os._exit(code), on any of its threads: report what is recorded, then
        exit with the report's code."""
        if self._claim.acquire(blocking=False):
            self._report_cut(code, "os._exit was called while the script's thread was inside the recorder")
        else:
            self._reported.wait()  # its end or Ctrl-C came first
        _leave(self.code)

    def _report_cut(self, code: int, reason: str) -> None:
        """Report the record cut where the script's thread is (or as it ended, if it ended
        meanwhile), or say why it could not be cut."""
        record = self._cut(code)
        if self.over.is_set():
            self._report_final()
        elif record is None:
            self._report(lambda: self._uncut(code, reason))
        else:
            self._report(lambda: self.report(record, code, self.session.recorder.notes))

    def _cut(self, code: int) -> Record | None:
        """The record sealed with `code` once the script's thread is out of code that changes it
        (None if it stays in), or as it ended if it ended meanwhile."""
        recorder = self.session.recorder
        hooks.uninstall(recorder)
        thread = self.session.thread
        deadline = time.monotonic() + CUT_SECONDS
        while thread is not None and (self.session.finishing or _in_recording_code(thread.ident)):
            if self.over.is_set():
                return self.session.record
            if time.monotonic() > deadline:
                return None
            time.sleep(0.01)
        if self.over.is_set():
            return self.session.record
        sealed: Record = recorder.seal(code)
        return sealed

    def _report_final(self) -> None:
        record, code = self.session.record, self.session.state.exit_code

        def final() -> int:
            if record.error is not None and record.error.traceback:
                text = record.error.traceback
                print(text, file=self.stderr, end="" if text.endswith("\n") else "\n")
            return self.report(record, INTERRUPTED if code is None else code, self.session.recorder.notes)

        self._report(final)

    def _uncut(self, code: int, reason: str) -> int:
        failed = [
            f"graphscope: cannot write {what} {path}: {reason} (the script's exit code was {code})"
            for what, path in self.exports
        ]
        for line in failed or [f"graphscope: {reason}"]:
            print(escaped(line), file=self.stderr)
        return WRITE_FAILED if failed else code

    def _report(self, make_report: Callable[[], int]) -> None:
        try:
            if self.terminal is not None:
                self.terminal.close()  # the lines below go to the streams of the start, past its wrapping
            self.code = make_report()
        finally:
            self.notice.settled()
            self._reported.set()


def _write(record: Record, export: str | None, dot_path: str | None, code: int) -> tuple[list[str], list[str]]:
    """Write the exports before anything else can fail; each outcome as a line for stderr. The writers
    load only for a run that asked for a file."""
    if not (export or dot_path):
        return [], []
    from graphscope.trace import snapshot
    from graphscope.trace.report import dot
    from graphscope.trace.snapshot.atomic_file import WriteError

    written: list[str] = []
    failed: list[str] = []
    for path, write, done in (
        (export, snapshot.dump, "snapshot written to"),
        (dot_path, dot.write_dot, "graph written to"),
    ):
        if not path:
            continue
        try:
            write(record, path)
        except WriteError as error:
            failed.append(f"graphscope: {error} (the script's exit code was {code})")
        else:
            written.append(f"{done} {path}")
    return written, failed


def _in_recording_code(ident: int | None) -> bool:
    """Whether the thread `ident` is inside code that changes the record."""
    frame: FrameType | None = sys._current_frames().get(ident) if ident is not None else None
    while frame is not None:
        code = frame.f_code
        file = code.co_filename
        if file.startswith(_RECORDING_CODE):
            return True
        frame = frame.f_back
    return False


def _leave(code: int) -> NoReturn:
    """Exit now, without waiting for threads the script left running (what was printed is flushed)."""
    for stream in {id(s): s for s in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)}.values():
        with contextlib.suppress(Exception):  # a script's stand-in stream, or a closed one: nothing more to show
            if stream is not None:
                stream.flush()
    _EXIT(code)


_CTRL_C, _ENDED = "ctrl-c", "ended"


class _Watch(threading.Thread):
    """Beside the script's thread: draws the status line and acts on Ctrl-C."""

    def __init__(self, session: Session, ending: _Ending, terminal: StatusLine | None) -> None:
        super().__init__(name="graphscope-watch", daemon=True)
        self.session, self.ending, self.terminal = session, ending, terminal
        self.inbox: queue.SimpleQueue[str] = queue.SimpleQueue()  # put() is safe in a signal handler

    def ctrl_c(self) -> None:
        self.inbox.put(_CTRL_C)

    def ended(self) -> None:
        self.inbox.put(_ENDED)

    def run(self) -> None:
        started = time.monotonic()
        while True:
            try:
                message = self.inbox.get(timeout=STATUS_SECONDS)
            except queue.Empty:
                if self.terminal is not None:
                    record = self.session.record
                    self.terminal.status(
                        f"graphscope: running {self.session.source}: {len(record.passes)} passes, "
                        f"{len(record.nodes)} nodes, {time.monotonic() - started:.1f} s"
                    )
                continue
            if message == _CTRL_C:
                self.ending.interrupted()
            return


class _CtrlC:
    """While active (on the main thread), Ctrl-C calls `on_press` instead of raising
    KeyboardInterrupt, which could land inside the recorder and leave the record half changed.
    `held`, if given, is what held Ctrl-C before: a press it saw counts."""

    def __init__(self, held: Held | None, on_press: Callable[[], None]) -> None:
        self.held, self.on_press = held, on_press
        self.pressed = False
        self.previous: Callable[[int, FrameType | None], Any] | int | signal.Handlers | None = None

    def __enter__(self) -> _CtrlC:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._press)
        if self.held is not None and self.held.pressed:
            self._press()
        return self

    def take_back(self) -> None:
        """Handle Ctrl-C again (the script may have installed a handler of its own)."""
        if self.previous is not None:
            signal.signal(signal.SIGINT, self._press)

    def _press(self, *signal_args: object) -> None:
        self.pressed = True
        self.on_press()

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


class _OsExit:
    """While active, os._exit in this process (not in a child it forked) first ends the run:
    what is recorded is reported (exports written, summary printed), then the process exits."""

    def __init__(self, ending: _Ending) -> None:
        self.ending = ending

    def __enter__(self) -> Self:
        pid, ending = os.getpid(), self.ending

        # Named as os._exit's own parameter; Any: whatever the script passes goes on to os._exit.
        def _exit(status: Any) -> NoReturn:
            if os.getpid() == pid and isinstance(status, int) and -(2**31) <= status < 2**31:
                ending.os_exit(status)  # does not return
            _EXIT(status)

        os._exit = _exit
        return self

    def __exit__(self, *exc: object) -> None:
        os._exit = _EXIT
