"""What a debuggee is doing now: plain data for the TUI."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class State(StrEnum):
    """The kinds of moment a debuggee is in (a str, so they print and compare as their names)."""

    STARTING = "starting"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"
    FAILED = "failed"
    STOPPED = "stopped"  # a snapshot exported before its script ended

    @property
    def over(self) -> bool:
        """The script has ended (finished or failed): nothing more will run."""
        return self in (State.FINISHED, State.FAILED)

    @property
    def busy(self) -> bool:
        """The script is writing the record (starting or running): read it only for prints."""
        return self in (State.STARTING, State.RUNNING)


class Mode(StrEnum):
    """Where a run goes on to: the next stop the script is held at."""

    STEP = "step"  # before the next node, or at the end of the pass
    CONTINUE = "continue"  # before a node that hits an enabled breakpoint
    RUN = "run"  # nowhere


@dataclass(frozen=True)
class SessionState:
    """One moment of a session; a new object on every change, so listeners can keep it."""

    kind: State = State.STARTING
    pass_index: int | None = None  # the backward pass (index into record.passes)
    step: int | None = None  # the cursor: an index into that pass's planned order
    frontier: int | None = None  # how many of the pass's steps have run
    node: int | None = None  # the record id of the node at the cursor (None at the pass's end)
    reason: str = ""  # why it paused, or how it ended
    exit_code: int | None = None
    error: object | None = None  # the record's ScriptError when the script raised
    created: int | None = None  # at a stop in the forward: the node whose creation it is held in (also `node`)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", State(self.kind))  # a plain "paused" becomes State.PAUSED
