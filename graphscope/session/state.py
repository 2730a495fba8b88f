"""What a session is doing now, and the breakpoints it pauses on: plain data for the TUI."""

from __future__ import annotations

from dataclasses import dataclass

STARTING, RUNNING, PAUSED, FINISHED, FAILED = "starting", "running", "paused", "finished", "failed"

BREAKPOINT_KINDS = ("node", "op", "module", "line", "nan", "grad_norm")


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


@dataclass(frozen=True)
class Breakpoint:
    """Pause before a backward node that matches: by node id, op, module path or source line,
    or on a condition: a NaN/Inf in a grad or value, a grad norm above a threshold."""

    kind: str
    value: object = None
    enabled: bool = True
    id: int = 0

    def __post_init__(self):
        if self.kind not in BREAKPOINT_KINDS:
            raise ValueError(
                f"unknown breakpoint kind {self.kind!r}: use one of {', '.join(BREAKPOINT_KINDS)}"
            )
        if self.kind == "line":
            file, _, line = str(self.value).rpartition(":")
            if not file or not line.isdigit():
                raise ValueError(f"a line breakpoint looks like 'model.py:42', got {self.value!r}")
        if self.kind == "grad_norm" and not isinstance(self.value, (int, float)):
            raise ValueError(f"a grad_norm breakpoint needs a number, got {self.value!r}")
        if self.kind == "node" and not isinstance(self.value, int):
            raise ValueError(f"a node breakpoint needs a record node id (int), got {self.value!r}")

    def describe(self) -> str:
        if self.kind == "nan":
            return "NaN/Inf"
        if self.kind == "grad_norm":
            return f"grad norm > {self.value:g}"
        return f"{self.kind} {self.value}"
