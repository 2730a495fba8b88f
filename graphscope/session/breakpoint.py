"""Breakpoint: where the debugger pauses, with the one rule (`matches`) a live run and a snapshot share."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol, cast

from .condition import Condition

if TYPE_CHECKING:
    from graphscope.trace import TensorSummary

BREAKPOINT_KINDS = ("node", "op", "module", "line", "any", "nan", "grad_norm", "step")
# Kinds that look at values or events, never at where a node was made.
_NOT_SITES = ("nan", "grad_norm", "step")
# When a breakpoint on a node stops: before its backward runs, or when the forward creates it.
AT = ("backward", "forward")


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
    """What a breakpoint looks at for the node at one backward step, or at its creation in the
    forward (`forward`): the same questions answered from live arrays (a running script) or from
    the record's summaries (a snapshot)."""

    @property
    def forward(self) -> bool: ...
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
    def inputs_nonfinite(self) -> bool: ...
    def summary(self, target: str) -> TensorSummary | None: ...


@dataclass(frozen=True)
class Breakpoint:
    """Pause before a backward step whose node matches: by identity (`NodeKey`), op, module path
    or source line (`model.py:42`), or on a condition: a NaN/Inf in the node's value or incoming
    grad, an incoming grad whose norm is above a threshold (or not finite). A `step` breakpoint
    pauses before `optimizer.step()` instead, at the end of the backward pass it follows.

    With `at="forward"` a breakpoint on a node (node, op, module, line, any) stops when the forward
    creates a matching node instead, the script held inside that op; a NaN/Inf breakpoint stops
    at both: at the op whose output holds a NaN/Inf made of finite inputs, and before a backward
    step as above. A `condition` on the node's value or grad must hold too."""

    kind: str
    value: object = None
    enabled: bool = True
    id: int = 0
    at: str = "backward"
    condition: Condition | None = None

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
        if self.at not in AT:
            raise ValueError(f"a breakpoint stops at {' or '.join(AT)}, got {self.at!r}")
        if self.kind == "any" and self.condition is None:
            raise ValueError("an 'any' breakpoint needs a condition, e.g. any if value max > 1e3")

    @classmethod
    def parse(cls, text: str) -> Breakpoint:
        """A breakpoint as typed after --break: `op:log`, `module:model.fc`, `line:model.py:42`
        (or `model.py:42`), `nan`, `grad_norm:10`, `step`, `any`; a node breakpoint stops where
        the forward creates the node unless `backward:` comes first; `... if max > 1e3` adds a
        condition (see `Condition.parse`)."""
        spec, _, condition_text = text.partition(" if ")
        condition = Condition.parse(condition_text) if condition_text.strip() else None
        at, spec = "forward", spec.strip()
        for word in AT:
            if spec.startswith(word + ":"):
                at, spec = word, spec[len(word) + 1 :]
        kind, _, value = spec.partition(":")
        kind = kind.replace("-", "_")
        if kind in ("nan", "step", "any") and not value:
            return cls(kind, None, at=at, condition=condition)
        if kind == "grad_norm":
            try:
                return cls(kind, float(value), at="backward", condition=condition)
            except ValueError:
                raise ValueError(f"grad_norm needs a number, as grad_norm:10; got {text!r}") from None
        if kind in ("op", "module", "line") and value:
            return cls(kind, value, at=at, condition=condition)
        file, _, line = spec.rpartition(":")
        if file and line.isdigit():
            return cls("line", spec, at=at, condition=condition)
        raise ValueError(
            f"a breakpoint looks like op:log, module:model.fc, line:model.py:42, nan, grad_norm:10, step or "
            f"any, with 'backward:' before it to stop before backward steps and ' if max > 1e3' after it; got {text!r}"
        )

    def describe(self) -> str:
        if self.kind == "nan":
            words = "NaN/Inf"
        elif self.kind == "grad_norm":
            words = f"grad norm > {self.value:g}"
        elif self.kind == "step":
            words = "optimizer step"
        elif self.kind == "any":
            words = "any node"
        else:
            words = f"{self.kind} {self.value}"
        if self.at == "forward" and self.kind not in _NOT_SITES:
            words += ", created"
        return words if self.condition is None else f"{words} if {self.condition}"

    def stops_forward(self) -> bool:
        """Whether it can stop where the forward creates a node."""
        return self.kind == "nan" or (self.at == "forward" and self.kind not in _NOT_SITES)

    def matches(self, facts: Facts) -> bool:
        """Whether the node at this step (or at its creation) hits the breakpoint (enabled or not:
        callers check); a `step` breakpoint matches no node (`pauses_at_step` says where it does)."""
        if facts.forward != (self.at == "forward") and self.kind != "nan":
            return False
        if not self._matches_kind(facts):
            return False
        return self.condition is None or self.condition.holds(facts.summary(self.condition.target))

    def _matches_kind(self, facts: Facts) -> bool:
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
        if kind == "any":
            return True
        if kind == "nan" and facts.forward:  # where a NaN/Inf is born, not where it flows on
            return facts.value_nonfinite() and not facts.inputs_nonfinite()
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
        if self.kind in _NOT_SITES or self.kind == "any":
            return False
        return self._matches_kind(_Where(op, module, file, line))


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
    forward: bool = False

    def value_nonfinite(self) -> bool:
        return False

    def inputs_nonfinite(self) -> bool:
        return False

    def summary(self, target: str) -> TensorSummary | None:
        return None

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
