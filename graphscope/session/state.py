"""What a debuggee is doing now: plain data for the TUI."""

from __future__ import annotations

from dataclasses import dataclass

STARTING, RUNNING, PAUSED, FINISHED, FAILED = "starting", "running", "paused", "finished", "failed"
STOPPED = "stopped"  # a snapshot exported before its script ended


@dataclass(frozen=True)
class SessionState:
    """One moment of a session; a new object on every change, so listeners can keep it."""

    kind: str = STARTING
    pass_index: int | None = None  # the backward pass (index into record.passes)
    step: int | None = None  # the cursor: an index into that pass's planned order
    frontier: int | None = None  # how many of the pass's steps have run
    node: int | None = None  # the record id of the node at the cursor (None at the pass's end)
    reason: str = ""  # why it paused, or how it ended
    exit_code: int | None = None
    error: object | None = None  # the record's ScriptError when the script raised
