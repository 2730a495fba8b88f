"""An optimizer step's numbers for one parameter: value before, the update rule with the element's numbers, value after.

Worked out when asked, from what the record holds (the values before and after, the grad the step
read, the optimizer's settings and its state after the step), in plain text lines: the CLI prints
them, the TUI wraps them.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, cast

from ..record.inconsistent import disagreement
from ..record.model import (
    GRAD_RESET,
    HAND_UPDATE,
    OPTIMIZER_STEP,
    ZERO_GRAD,
    OptimizerEvent,
    ParamChange,
    Record,
)
from ..stats.summarize import TensorSummary
from .step import SMALL, number_text


@dataclass
class ChangeNumbers:
    """One element's numbers in an optimizer step, and the rule they follow (None where unknown)."""

    rule: str  # "sgd", "momentum", "nesterov", "adam", "adamw", or "" (not explained)
    before: float | None = None
    grad: float | None = None  # the .grad the step read
    g: float | None = None  # what the rule uses: the grad, negated under maximize, plus weight decay
    settings: dict[str, Any] = field(default_factory=dict)  # Any: the script's settings, read back as literals
    buf: float | None = None  # SGD momentum: the buffer after the step...
    buf_before: float | None = None  # ...and before it (None on the first step)
    m: float | None = None  # Adam: the moving averages after the step, and before
    v: float | None = None
    m_before: float | None = None
    v_before: float | None = None
    t: int | None = None  # Adam: the step count
    m_hat: float | None = None
    v_hat: float | None = None
    update: float | None = None  # worked out by the rule (the recorded one is after - before)
    after: float | None = None


def explain_change(record: Record, event: OptimizerEvent, change: ParamChange, element: int | None = None) -> list[str]:
    """Plain text lines for one parameter of an optimizer event: before, the rule with the numbers, after;
    InconsistentRecord (a ValueError) when the record's numbers for it disagree."""
    at = next((i for i, e in enumerate(record.optimizer) if e is event), None)
    with disagreement(f"optimizer[{at}], parameter {change.label[:80]!r}"):
        return _change_lines(record, event, change, element)


def _change_lines(record: Record, event: OptimizerEvent, change: ParamChange, element: int | None) -> list[str]:
    """explain_change's work."""
    if event.kind in (ZERO_GRAD, GRAD_RESET):
        return _explain_reset(event, change, element)
    summary = change.before or change.after
    numel = summary.numel if summary is not None else 0
    i = _element_index(element, numel)
    lines = [_title(event, change)]
    for word, s in (("before", change.before), ("update", change.update), ("after", change.after)):
        if s is not None and 1 < s.numel <= SMALL and (whole := _whole(s)) is not None:
            lines.append(f"{word:<7}{_list(whole)}")
    if summary is not None and numel > 1:  # (a summary has elements)
        lines.append(f"element {i} of {numel:,} (shape {_shape(summary)})")
    n = _as_applied(change_numbers(record, event, change, i), _at(change.update, i))
    lines.append(f"value before    {_num(n.before)}")
    if n.grad is not None:
        lines.append(f"grad            {_num(n.grad)}")
    if event.kind == OPTIMIZER_STEP:
        lines += _rule_lines(n)
    else:
        lines.append("update = after - before (its rule is the script's line)")
    if n.after is not None and n.before is not None:
        applied = n.update if n.update is not None else n.after - n.before
        lines.append(f"value after     {_num(n.before)} + {_term(applied)} = {_num(n.after)}")
    elif n.after is not None:
        lines.append(f"value after     {_num(n.after)}")
    if n.before is None or n.after is None:
        lines.append("(values of this element were not recorded: a large tensor keeps only its first elements)")
    return lines


def _as_applied(n: ChangeNumbers, recorded: float | None) -> ChangeNumbers:
    """The numbers with the update the parameter received (in its own dtype) in place of the rule's
    float64 one where the two agree to that dtype's precision: one update, one rendering on every line."""
    if recorded is None and n.before is not None and n.after is not None:
        recorded = n.after - n.before
    if recorded is None or n.update is None or not math.isclose(recorded, n.update, rel_tol=1e-5, abs_tol=1e-12):
        return n
    return replace(n, update=recorded)


def change_numbers(record: Record, event: OptimizerEvent, change: ParamChange, element: int = 0) -> ChangeNumbers:
    """The numbers of `explain_change` for one element, by the optimizer's own update rule."""
    settings = _settings(event)
    rule = _rule(event.optimizer, settings)
    n = ChangeNumbers(rule, _at(change.before, element), _at(change.grad, element), settings=settings)
    n.after = _at(change.after, element)
    state = dict(change.state)
    if n.grad is None or n.before is None or not rule:
        return n
    g = -n.grad if settings.get("maximize") else n.grad
    decay = settings.get("weight_decay") or 0.0
    if decay and rule != "adamw":
        g = g + decay * n.before
    n.g = g
    lr = cast(float, settings.get("lr"))  # a number: _rule found one
    if rule in ("sgd", "momentum", "nesterov"):
        direction = g
        if rule != "sgd":
            n.buf = _at(_tensor(state.get("momentum_buffer")), element)
            momentum, dampening = settings.get("momentum", 0.0), settings.get("dampening", 0.0)
            previous = _previous_state(record, event, change, "momentum_buffer")
            if previous is not None:
                n.buf_before = _at(previous, element)
            elif n.buf is not None and not _first_step(record, event, change):
                n.buf_before = (n.buf - (1 - dampening) * g) / momentum  # worked back from the state
            if n.buf is not None:
                direction = g + momentum * n.buf if rule == "nesterov" else n.buf
        n.update = -lr * direction
        return n
    beta1, beta2 = settings.get("betas", (0.9, 0.999))
    eps = settings.get("eps", 1e-8)
    n.m = _at(_tensor(state.get("exp_avg")), element)
    n.v = _at(_tensor(state.get("max_exp_avg_sq" if settings.get("amsgrad") else "exp_avg_sq")), element)
    step = state.get("step")
    n.t = int(step) if isinstance(step, str) and step.isdigit() else None
    if n.m is None or n.v is None or n.t is None:
        return n
    n.m_before = _state_before(record, event, change, "exp_avg", element, n.t, (n.m - (1 - beta1) * g) / beta1)
    if not settings.get("amsgrad"):
        n.v_before = _state_before(
            record, event, change, "exp_avg_sq", element, n.t, (n.v - (1 - beta2) * g * g) / beta2
        )
    n.m_hat = n.m / (1 - beta1**n.t)
    n.v_hat = n.v / (1 - beta2**n.t)
    n.update = -lr * n.m_hat / (math.sqrt(n.v_hat) + eps)
    if rule == "adamw" and decay:
        n.update -= lr * decay * n.before
    return n


# --- the lines of each rule -------------------------------------------------------------------


def _rule_lines(n: ChangeNumbers) -> list[str]:
    s = n.settings
    if not n.rule:
        return ["its update rule is not explained here: update = after - before"]
    if n.g is None:
        return ["(the grad this step read was not recorded)"]
    assert n.grad is not None  # g is worked out from it
    lines: list[str] = []
    if s.get("maximize"):
        lines.append(f"maximize: g = -grad = {_num(-n.grad)}")
    decay = s.get("weight_decay") or 0.0
    base = -n.grad if s.get("maximize") else n.grad
    if decay and n.rule != "adamw":
        lines.append(
            f"weight decay: g = grad + weight_decay·p = {_term(base)} + {_term(decay)}·{_term(n.before)} = {_num(n.g)}"
        )
    g = "g" if lines else "grad"
    lr = _term(s.get("lr"))
    if n.rule == "sgd":
        lines.append(f"update = -lr × {g} = -{lr} × {_term(n.g)} = {_num(n.update)}")
        return lines
    if n.rule in ("momentum", "nesterov"):
        momentum, dampening = s.get("momentum", 0.0), s.get("dampening", 0.0)
        if n.buf is None:
            return [*lines, "(the momentum buffer was not recorded)"]
        if n.buf_before is None:
            lines.append(f"buf = {g} (the first step) = {_num(n.buf)}")
        else:
            damp = f"(1-{_num(dampening)})·" if dampening else ""
            lines.append(
                f"buf = momentum·buf + {damp}{g} = {_term(momentum)}·{_term(n.buf_before)} + "
                f"{damp}{_term(n.g)} = {_num(n.buf)}"
            )
        if n.rule == "nesterov":
            lines.append(
                f"update = -lr × ({g} + momentum·buf) = -{lr} × ({_term(n.g)} + {_term(momentum)}·"
                f"{_term(n.buf)}) = {_num(n.update)}"
            )
        else:
            lines.append(f"update = -lr × buf = -{lr} × {_term(n.buf)} = {_num(n.update)}")
        return lines
    if n.m_hat is None:
        return [*lines, "(the optimizer's state was not recorded)"]
    beta1, beta2 = s.get("betas", (0.9, 0.999))
    eps = s.get("eps", 1e-8)
    t = n.t
    lines.append(
        f"m = β1·m + (1-β1)·{g} = {_term(beta1)}·{_term(n.m_before)} + {_term(1 - beta1)}·{_term(n.g)} = {_num(n.m)}"
    )
    if n.v_before is not None:
        lines.append(
            f"v = β2·v + (1-β2)·{g}² = {_term(beta2)}·{_term(n.v_before)} + {_term(1 - beta2)}·"
            f"{_term(n.g)}² = {_num(n.v)}"
        )
    else:
        lines.append(f"v = max(v, β2·v + (1-β2)·{g}²) = {_num(n.v)} (amsgrad)")
    lines.append(f"m̂ = m/(1-β1ᵗ) = {_term(n.m)}/(1-{_term(beta1)}^{t}) = {_num(n.m_hat)}")
    lines.append(f"v̂ = v/(1-β2ᵗ) = {_term(n.v)}/(1-{_term(beta2)}^{t}) = {_num(n.v_hat)}")
    adam = f"{lr} × {_term(n.m_hat)}/(√{_term(n.v_hat)}+{_term(eps)})"
    if n.rule == "adamw" and decay:
        lines.append(
            f"update = -lr·weight_decay·p - lr × m̂/(√v̂+ε) = -{lr}·{_term(decay)}·{_term(n.before)} - {adam} "
            f"= {_num(n.update)}"
        )
    else:
        lines.append(f"update = -lr × m̂/(√v̂+ε) = -{adam} = {_num(n.update)}")
    return lines


def _explain_reset(event: OptimizerEvent, change: ParamChange, element: int | None) -> list[str]:
    """zero_grad or a grad reset: the grad it cleared, and what is there after."""
    what = {ZERO_GRAD: f"{event.optimizer}.zero_grad()", GRAD_RESET: "grad reset by the script"}.get(
        event.kind, event.kind
    )
    lines = [f"{change.label}: {what} after backward pass {event.passes - 1}"]
    before = change.before
    if before is not None:
        i = _element_index(element, before.numel)
        whole = _whole(before) if before.numel <= SMALL else None
        shown = _list(whole) if whole is not None else f"element {i}: {_num(_at(before, i))}"
        lines.append(f".grad before   {shown}")
    lines.append(".grad after    " + ("zeros" if change.after is not None else "None"))
    return lines


# --- reading the record -----------------------------------------------------------------------


def _settings(event: OptimizerEvent) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, text in event.settings:
        try:
            out[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            out[key] = text
    return out


def _rule(optimizer: str, settings: dict[str, Any]) -> str:
    if optimizer == "SGD" and isinstance(settings.get("lr"), (int, float)):
        if not settings.get("momentum"):
            return "sgd"
        return "nesterov" if settings.get("nesterov") else "momentum"
    if optimizer in ("Adam", "AdamW") and isinstance(settings.get("lr"), (int, float)):
        return optimizer.lower()
    return ""


def _previous_state(record: Record, event: OptimizerEvent, change: ParamChange, key: str) -> TensorSummary | None:
    """The state `key` of the same parameter after the same optimizer's previous step, if kept."""
    earlier = _earlier_steps(record, event)
    for e in earlier:
        for c in e.params:
            if c.leaf == change.leaf:
                return _tensor(dict(c.state).get(key))
        if not e.params:
            return None  # a light row: the step is there, its values are not
    return None


def _state_before(
    record: Record, event: OptimizerEvent, change: ParamChange, key: str, element: int, t: int, worked_back: float
) -> float:
    """A moving average before this step: the previous step's state where kept, zero before the
    first step, else worked back from the state after it."""
    if t == 1:
        return 0.0
    previous = _at(_previous_state(record, event, change, key), element)
    return worked_back if previous is None else previous


def _first_step(record: Record, event: OptimizerEvent, change: ParamChange) -> bool:
    """Whether no earlier step of this optimizer can have updated the parameter."""
    for e in _earlier_steps(record, event):
        if not e.params or any(c.leaf == change.leaf for c in e.params):
            return False
    return True


def _earlier_steps(record: Record, event: OptimizerEvent) -> Iterator[OptimizerEvent]:
    """The same optimizer's step events before `event`, latest first."""
    events = record.optimizer
    found = False
    for e in reversed(events):
        if e is event:
            found = True
            continue
        if found and e.kind == OPTIMIZER_STEP and e.optimizer == event.optimizer:
            yield e


def _tensor(value: object) -> TensorSummary | None:
    return value if isinstance(value, TensorSummary) else None


def _at(s: TensorSummary | None, i: int) -> float | None:
    """Element `i` (flat) of a summary, where its values or preview hold it."""
    if s is None or s.dropped or i >= s.numel:
        return None
    if s.values is not None:
        return float(s.values.reshape(-1)[i])
    return float(s.preview[i]) if i < len(s.preview) else None


def _whole(s: TensorSummary) -> list[float] | None:
    if s.values is not None:
        values: list[float] = s.values.reshape(-1).tolist()
        return values
    if len(s.preview) != s.numel:
        return None
    preview: list[float] = s.preview.tolist()
    return preview


def _element_index(element: int | None, numel: int) -> int:
    if element is None:
        return 0
    if not 0 <= element < max(numel, 1):
        raise ValueError(f"element {element} is out of range: the parameter has {numel:,} elements")
    return element


def _title(event: OptimizerEvent, change: ParamChange) -> str:
    """The parameter, the optimizer and its settings that matter (lr, and those not off); or the
    script's line that updated it by hand."""
    if event.kind == HAND_UPDATE:
        line = f" at line {event.site.line}: {event.site.text.strip()}" if event.site is not None else ""
        return f"{change.label}: updated by the script after backward pass {event.passes - 1}{line}"
    settings = ", ".join(f"{k}={v}" for k, v in event.settings if k == "lr" or v not in _OFF)
    return f"{change.label}: {event.optimizer} step after backward pass {event.passes - 1} ({settings})"


_OFF = ("0", "0.0", "False", "None")


def _shape(s: TensorSummary) -> str:
    return "(" + ", ".join(map(str, s.shape)) + ("," if len(s.shape) == 1 else "") + ")"


def _num(x: float | None) -> str:
    return "?" if x is None else number_text(x)


def _term(x: float | None) -> str:
    """A number as an operand: a negative one in parentheses."""
    text = _num(x)
    return f"({text})" if text.startswith("-") else text


def _list(values: Iterable[float]) -> str:
    return "[" + ", ".join(_num(float(v)) for v in values) + "]"
