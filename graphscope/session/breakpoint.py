"""Breakpoint: where the debugger pauses, with the one rule (`matches`) a live run and a snapshot share."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import NamedTuple, Protocol, cast

BREAKPOINT_KINDS = ("node", "op", "module", "line", "nan", "grad_norm", "step")
# Kinds that look at values or events, never at where a node was made.
_NOT_SITES = ("nan", "grad_norm", "step")


class NodeKey(NamedTuple):
    """A node's identity across passes (iterations): the op, the line that made it, its module.
    A breakpoint on a node holds in every later pass, as a pdb user expects."""

    op: str
    file: str
    line: int
    module: str | None

    def __str__(self) -> str:
        where = f"{os.path.basename(self.file)}:{self.line}" if self.line else "?"
        return f"{self.op} at {where}" + (f" in {self.module}" if self.module else "")


class Facts(Protocol):
    """What a breakpoint looks at for the node at one backward step: the same questions answered
    from live arrays (a running script) or from the record's summaries (a snapshot)."""

    @property
    def op(self) -> str: ...
    @property
    def module(self) -> str | None: ...
    @property
    def file(self) -> str | None: ...
    @property
    def line(self) -> int | None: ...

    def value_nonfinite(self) -> bool: ...
    def grad_nonfinite(self) -> bool: ...
    def grad_norm(self) -> float | None: ...


@dataclass(frozen=True)
class Breakpoint:
    """Pause before a backward step whose node matches: by identity (`NodeKey`), op, module path
    or source line (`model.py:42`), or on a condition: a NaN/Inf in the node's value or incoming
    grad, an incoming grad whose norm is above a threshold (or not finite). A `step` breakpoint
    pauses before `optimizer.step()` instead, at the end of the backward pass it follows."""

    kind: str
    value: object = None
    enabled: bool = True
    id: int = 0

    def __post_init__(self) -> None:
        if self.kind not in BREAKPOINT_KINDS:
            raise ValueError(f"unknown breakpoint kind {self.kind!r}: use one of {', '.join(BREAKPOINT_KINDS)}")
        if self.kind == "line":
            file, _, line = str(self.value).rpartition(":")
            if not file or not line.isdigit():
                raise ValueError(f"a line breakpoint looks like 'model.py:42', got {self.value!r}")
        if self.kind == "grad_norm" and (isinstance(self.value, bool) or not isinstance(self.value, (int, float))):
            raise ValueError(f"a grad_norm breakpoint needs a number, got {self.value!r}")
        if self.kind == "node" and not isinstance(self.value, NodeKey):
            raise ValueError(f"a node breakpoint needs a NodeKey (op, file, line, module), got {self.value!r}")
        if self.kind in ("op", "module") and (not isinstance(self.value, str) or not self.value):
            raise ValueError(f"an {self.kind} breakpoint needs a name, got {self.value!r}")

    def describe(self) -> str:
        if self.kind == "nan":
            return "NaN/Inf"
        if self.kind == "grad_norm":
            return f"grad norm > {self.value:g}"
        if self.kind == "step":
            return "optimizer step"
        return f"{self.kind} {self.value}"

    def matches(self, facts: Facts) -> bool:
        """Whether the node at this step hits the breakpoint (enabled or not: callers check); a
        `step` breakpoint matches no node (`pauses_at_step` says where it does)."""
        kind, value = self.kind, self.value
        if kind == "op":
            return facts.op == value
        if kind == "module":
            module, name = facts.module or "", cast(str, value)  # __post_init__ holds it to a name
            return module == name or module.startswith(name + ".")
        if kind == "line":
            return line_matches(str(value), facts.file, facts.line)
        if kind == "node":
            return (facts.op, facts.file or "", facts.line or 0, facts.module) == value
        if kind == "nan":
            return facts.grad_nonfinite() or facts.value_nonfinite()
        if kind == "grad_norm":
            if facts.grad_nonfinite():
                return True
            norm = facts.grad_norm()
            return norm is not None and norm > cast(float, value)  # __post_init__ holds it to a number
        return False

    def pauses_at_step(self) -> bool:
        """Whether it pauses before an optimizer step (enabled or not: callers check)."""
        return self.kind == "step"

    def matches_site(self, op: str, module: str | None, file: str | None, line: int | None) -> bool:
        """The part of `matches` that needs no values: for marking nodes and for "matches nothing yet"."""
        if self.kind in _NOT_SITES:
            return False
        return self.matches(_Where(op, module, file, line))


def hit_reason(hits: list[Breakpoint]) -> str:
    """Why a stop happened, naming every breakpoint that hit it: `breakpoint 2: op mul`, or
    `breakpoints 1, 2: NaN/Inf; op mul` ("" when none did)."""
    if not hits:
        return ""
    if len(hits) == 1:
        return f"breakpoint {hits[0].id}: {hits[0].describe()}"
    return f"breakpoints {', '.join(str(b.id) for b in hits)}: {'; '.join(b.describe() for b in hits)}"


class _Where(NamedTuple):
    """Facts of a node's site alone: the value questions are never asked of it (see `matches_site`)."""

    op: str
    module: str | None
    file: str | None
    line: int | None

    def value_nonfinite(self) -> bool:
        return False

    def grad_nonfinite(self) -> bool:
        return False

    def grad_norm(self) -> float | None:
        return None


def line_matches(value: str, file: str | None, line: int | None) -> bool:
    """`model.py:42` against a node's file and line: the same line, in a file whose path ends with
    the breakpoint's path on a component boundary (`model.py` is `/home/u/model.py`, not
    `/home/u/my_model.py`; `sub/model.py` is not `/x/other/model.py`)."""
    if file is None or line is None:
        return False
    want_file, _, want_line = str(value).rpartition(":")
    if not want_line.isdigit() or int(want_line) != line:
        return False
    want = os.path.normpath(want_file).replace(os.sep, "/")
    have = os.path.normpath(file).replace(os.sep, "/")
    return have == want or have.endswith("/" + want) or os.path.normpath(os.path.abspath(want_file)) == file
