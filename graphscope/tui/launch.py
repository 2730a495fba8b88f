"""The `graphscope view` and `graphscope run` entry points: check the input, run the app, return the exit status."""

from __future__ import annotations

import gc
import os
import sys

# How long quitting waits for the script's thread to unwind after the app has closed.
JOIN_TIMEOUT = 5.0


def load_for_viewing(path: str):
    """Read a snapshot (raises SnapshotError), then take its objects out of the garbage collector's
    sight: the record lives as long as the app, and walking 100,000 nodes on every full collection
    while Textual starts up would double the time to the first paint."""
    from graphscope.trace.snapshot import load

    record = load(path)
    gc.freeze()
    return record


def view(path: str) -> int:
    """Open a snapshot in the debugger; an unreadable one is reported (exit 2) before any screen is drawn."""
    from graphscope.trace.snapshot import SnapshotError

    try:
        record = load_for_viewing(path)
    except SnapshotError as e:
        print(f"graphscope: {e}", file=sys.stderr)
        return 2
    from .app import GraphscopeApp
    from .replay import Replay

    GraphscopeApp(Replay(record, path), source=path).run()
    return 0


def run(script: str, argv: list[str] | None = None, *, as_torch: bool = False, device: str | None = None,
        pause: bool = True) -> int:
    """Run `script` under the debugger; returns the script's exit code (130 when the user quit it early)."""
    if not os.path.isfile(script):
        print(f"graphscope: {script}: no such file", file=sys.stderr)
        return 2
    from graphscope.session import Session, SessionOptions

    from .app import GraphscopeApp

    session = Session(script, argv=list(argv or []),
                      options=SessionOptions(as_torch=as_torch, device=device, pause=pause))
    try:
        GraphscopeApp(session, source=script).run()
    finally:
        session.quit()
        session.join(timeout=JOIN_TIMEOUT)
    return exit_status(session.state)


# The session's code for a script the debugger stopped (as for Ctrl-C), used too if it never ended.
STOPPED = 130


def exit_status(state) -> int:
    """The script's exit code (the session reports 130 for a script the user stopped by quitting)."""
    if state is None or state.exit_code is None:
        return STOPPED
    return int(state.exit_code)
