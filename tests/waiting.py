"""Waiting on a Session in the session and TUI tests: poll its state within a timeout, never a fixed sleep."""

from __future__ import annotations

import time

WAIT_SECONDS = 30  # generous: these machines are shared; a hang still fails the test
STOPPED = ("paused", "finished", "failed")  # the script stands still: the state changes only on a command
ENDED = ("finished", "failed")


def session_in(session, kinds=STOPPED) -> bool:
    """Whether the session's state is of one of `kinds`."""
    return session.state.kind in kinds


def wait_until(predicate, what: str, timeout: float = WAIT_SECONDS, detail=lambda: "", every: float = 0.01) -> None:
    """Block until `predicate()` is true, asking `every` seconds; fail naming `what` and `detail()` after `timeout`."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}{detail()}"
        time.sleep(every)
