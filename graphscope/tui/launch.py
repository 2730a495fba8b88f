"""The `graphscope view` and `graphscope run` entry points: check the input, run the app, return the exit status."""

from __future__ import annotations

import gc
import os
import sys

# How long leaving waits for the script's thread after the app has closed (the app's own quit
# already waited for it): a daemon thread that will not unwind ends with the process.
QUIT_WAIT = 0.1


def load_for_viewing(path: str):
    """Read a snapshot (raises SnapshotError), then take its objects out of the garbage collector's
    sight: the record lives as long as the app, and walking 100,000 nodes on every full collection
    while Textual starts up would double the time to the first paint."""
    from graphscope.trace.snapshot import load

    record = load(path)
    gc.freeze()
    return record


def view(path: str, against: str | None = None) -> int:
    """Open a snapshot in the debugger, with another run held against it when `against` names one; an
    unreadable one is reported (exit 2) before any screen is drawn."""
    from graphscope.trace.analysis.run_diff import diff
    from graphscope.trace.record.comparison import Against
    from graphscope.trace.snapshot import SnapshotError

    try:
        record = load_for_viewing(path)
        other = load_for_viewing(against) if against is not None else None
    except SnapshotError as e:
        print(f"graphscope: {e}", file=sys.stderr)
        return 2
    from graphscope.session import Debuggee

    from .app import GraphscopeApp

    held = Against(against, other, diff(record, other)) if against is not None and other is not None else None
    GraphscopeApp(Debuggee(record, path, break_on_nan=True), against=held).run()
    return 0


def run(
    script: str,
    argv: list[str] | None = None,
    *,
    as_torch: bool = False,
    device: str | None = None,
    pause: bool = True,
    policy=None,
    breakpoints=(),
) -> int:
    """Run `script` under the debugger; say on stderr how it ended and return its exit status (the
    script's own when it ended by itself, 0 when the user stopped it: see `ending`)."""
    if not os.path.isfile(script):
        print(f"graphscope: {script}: no such file", file=sys.stderr)
        return 2
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("graphscope run needs a terminal; use --headless", file=sys.stderr)
        return 2
    from graphscope.session import Session, SessionOptions

    from .app import GraphscopeApp
    from .ending import ending

    session = Session(
        script,
        argv=list(argv or []),
        options=SessionOptions(as_torch=as_torch, device=device, pause=pause, policy=policy),
    )
    for breakpoint in breakpoints:  # --break: listed in the app with the NaN/Inf one
        session.add_breakpoint(breakpoint)
    app = GraphscopeApp(session)
    try:
        app.run()
    finally:
        # The app's quit said how the run ended; an app that left otherwise, where the script was.
        line, status = app.ending or ending(session.state, session.record, script)
        session.quit()
        session.join(timeout=QUIT_WAIT)
    print(line, file=sys.stderr)
    return status
