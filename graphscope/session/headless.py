"""`graphscope run --headless`: run a script under the recorder with no UI, then print its summary
(`run_recorded` is the run itself, which `graphscope explain` shares)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

from rich.console import Console
from rich.live import Live
from rich.text import Text

from graphscope.engine import hooks
from graphscope.trace import dot, snapshot
from graphscope.trace.atomic_file import WriteError
from graphscope.trace.summary_report import print_summary

from .session import Session, SessionOptions
from .state import FAILED, FINISHED

# How often the live status line on a terminal's stderr is redrawn.
STATUS_SECONDS = 0.25
# The exit code of --fail-on-nan when a NaN/Inf appeared (the script's own code otherwise).
NAN_EXIT_CODE = 3
# The exit code when an export could not be written.
WRITE_FAILED = 2
INTERRUPTED = 130
# After Ctrl-C: how long the script thread has to stop at its next engine event, then how long
# it has to leave the recorder's code before the record is cut without it (exit within 2 s).
STOP_SECONDS = 0.8
CUT_SECONDS = 0.5

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Code that changes the record while it runs: the trace layer, the engine's event dispatch,
# and the session's own calls into the recorder.
_RECORDING_CODE = (os.path.join(_PACKAGE, "trace", ""), os.path.join(_PACKAGE, "engine", "hooks.py"),
                   os.path.join(_PACKAGE, "session", "step_gate.py"))
_SESSION = os.path.join(_PACKAGE, "session", "session.py")  # its _finish calls the recorder


def run_headless(script: str, argv=(), *, export: str | None = None, dot_path: str | None = None,
                 fail_on_nan: bool = False, as_torch: bool = False, device: str | None = None,
                 policy=None) -> int:
    """Run `script`; write the snapshot and DOT files (also when it raised or was interrupted);
    print the summary. Ctrl-C stops the script at its next engine event and exits 130."""

    def report(record, code: int, notes: list[str]) -> int:
        written, failed = _write(record, export, dot_path, code)
        print_summary(record)
        for line in written + failed + notes:
            print(line, file=sys.stderr)
        if failed:
            return WRITE_FAILED
        if fail_on_nan and record.has_nonfinite():
            return NAN_EXIT_CODE
        return code

    return run_recorded(script, argv, report, as_torch=as_torch, device=device, policy=policy,
                        exports=(("snapshot", export), ("graph", dot_path)))


def run_recorded(script: str, argv, report, *, as_torch: bool = False, device: str | None = None,
                 echo: bool = True, policy=None, exports=()) -> int:
    """Run `script` under the recorder with no UI (a status line on a terminal's stderr), print its
    traceback if it raised, and hand the record to `report(record, exit_code, notes)`, whose answer
    is the exit code. Ctrl-C stops the script at its next engine event (exit 130); `exports`,
    (what, path) pairs, are named in the error when the record could not be cut."""
    session = Session(script, list(argv), SessionOptions(
        as_torch=as_torch, device=device, pause=False, break_on_nan=False, echo=echo, policy=policy))
    ended = threading.Event()
    session.add_listener(lambda state: state.kind in (FINISHED, FAILED) and ended.set())
    terminal = _Terminal() if sys.stderr.isatty() else None
    with _CtrlC() as interrupt:  # held to the end: a second Ctrl-C cannot break a write in half
        with terminal or _Nothing():
            session.start()
            started = time.monotonic()
            while not ended.wait(STATUS_SECONDS) and not interrupt.is_set():
                if terminal is not None:
                    terminal.status(f"graphscope: running {script}: {len(session.record.passes)} passes, "
                                    f"{len(session.record.nodes)} nodes, {time.monotonic() - started:.1f} s")
            record = _stop(session, ended) if interrupt.is_set() else session.record
        stopped = ended.is_set()
        code = session.state.exit_code if stopped and session.state.exit_code is not None else INTERRUPTED
        if record is None:
            reason = f"the script did not stop within {STOP_SECONDS + CUT_SECONDS:g} s of Ctrl-C"
            failed = [f"graphscope: cannot write {what} {path}: {reason} (the script's exit code was {code})"
                      for what, path in exports if path]
            print("\n".join(failed) or f"graphscope: {reason}", file=sys.stderr)
            _leave(WRITE_FAILED if failed else code)
        if record.error is not None and record.error.traceback:
            text = record.error.traceback
            print(text, file=sys.stderr, end="" if text.endswith("\n") else "\n")
        code = report(record, code, session.recorder.notes)
        if not stopped:
            _leave(code)  # the script thread is still running: exit without it
    return code


def _write(record, export, dot_path, code) -> tuple[list[str], list[str]]:
    """Write the exports before anything else can fail; each outcome as a line for stderr."""
    written, failed = [], []
    for path, write, done in ((export, snapshot.dump, "snapshot written to"),
                              (dot_path, dot.write_dot, "graph written to")):
        if not path:
            continue
        try:
            write(record, path)
        except WriteError as error:
            failed.append(f"graphscope: {error} (the script's exit code was {code})")
        else:
            written.append(f"{done} {path}")
    return written, failed


def _stop(session: Session, ended: threading.Event):
    """Stop the script at its next engine event (the gate's quit: no exception is thrown into
    it from outside, so none lands in the recorder), and return the record: final if the script
    ended, else a cut taken once its thread is out of the recorder; None if it never left."""
    recorder = session.recorder
    hooks.uninstall(recorder)  # nothing after Ctrl-C is recorded (a script that catches the
    session.gate.quit()        # gate's SessionQuit and goes on would fill it meanwhile)
    if ended.wait(STOP_SECONDS):
        return session.record
    deadline = time.monotonic() + CUT_SECONDS
    while _in_recording_code(session._thread.ident):
        if ended.is_set():
            return session.record
        if time.monotonic() > deadline:
            return None
        time.sleep(0.01)
    return recorder.seal(INTERRUPTED)


def _in_recording_code(ident) -> bool:
    """Whether the thread `ident` is inside code that changes the record."""
    frame = sys._current_frames().get(ident)
    while frame is not None:
        code = frame.f_code
        file = code.co_filename
        if file.startswith(_RECORDING_CODE) or (code.co_name == "_finish" and file == _SESSION):
            return True
        frame = frame.f_back
    return False


def _leave(code: int):
    """Exit now, without waiting for threads the script left running."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


class _CtrlC:
    """While active (in the main thread), Ctrl-C sets an event instead of raising
    KeyboardInterrupt: a KeyboardInterrupt raised inside Thread.join can leave the thread
    reported as finished while it still runs (Python 3.11), and the record read mid-change."""

    def __enter__(self) -> threading.Event:
        self.event = threading.Event()
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, lambda signum, frame: self.event.set())
        return self.event

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
        return False


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Terminal:
    """The live status line on a terminal's stderr, kept out of the script's way: it is erased
    before anything is written to stdout or stderr, and not drawn while the script's output
    ends mid-line (an input() prompt) or the script reads stdin."""

    def __init__(self):
        self.lock = threading.RLock()
        self.mid_line = False
        self.reading = 0

    def __enter__(self):
        self.saved = sys.stdout, sys.stderr, sys.stdin
        # Rich draws the line on the real stderr; the script's own writes go through _Watched,
        # not Rich's redirection, which would hold back a partial line (an input() prompt).
        self.live = Live(console=Console(file=sys.stderr), auto_refresh=False, transient=True,
                         redirect_stdout=False, redirect_stderr=False)
        sys.stdout, sys.stderr = _Watched(sys.stdout, self), _Watched(sys.stderr, self)
        if sys.stdin is not None:
            sys.stdin = _WatchedInput(sys.stdin, self)
        return self

    def __exit__(self, *exc):
        self.erase()
        sys.stdout, sys.stderr, sys.stdin = self.saved
        return False

    def status(self, text: str) -> None:
        with self.lock:
            if self.mid_line or self.reading:
                return
            self.live.update(Text(text, no_wrap=True, overflow="ellipsis"), refresh=self.live.is_started)
            self.live.start(refresh=True)

    def erase(self) -> None:
        """Take the line away (a transient Live clears what it drew when it stops)."""
        with self.lock:
            self.live.stop()


class _Watched:
    """stdout or stderr, erasing the status line before each write and noting a partial line."""

    def __init__(self, stream, terminal: _Terminal):
        self._stream, self._terminal = stream, terminal

    def write(self, text: str) -> int:
        terminal = self._terminal
        with terminal.lock:
            terminal.erase()
            if text:
                terminal.mid_line = not text.endswith("\n")
            return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


class _WatchedInput:
    """stdin, noting while the script waits on it."""

    def __init__(self, stream, terminal: _Terminal):
        self._stream, self._terminal = stream, terminal

    def _reading(self, method, *args):
        terminal = self._terminal
        with terminal.lock:
            terminal.erase()
            terminal.reading += 1
        try:
            return method(*args)
        finally:
            with terminal.lock:
                terminal.reading -= 1
                terminal.mid_line = False  # the user's Enter ended the line

    def readline(self, *args):
        return self._reading(self._stream.readline, *args)

    def read(self, *args):
        return self._reading(self._stream.read, *args)

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def __getattr__(self, name):
        return getattr(self._stream, name)
