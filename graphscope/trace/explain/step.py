"""The chain rule of one backward step with its numbers: grad_in = grad_out × local, from the record.

Computed when asked, from what the record holds (the rule texts, the captured values of small
tensors); the local derivatives come from each op's own backward (`Function.local_factors`), so
no derivative formula is written twice.

Over 450 lines on purpose: one step's arithmetic, from the rule's template to the numbers written
into it, reads as one piece; its helpers serve nothing else.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, SupportsFloat, cast

import numpy as np

from graphscope.engine.function import Function

from ..analysis.rebuild import NotRebuilt, argument_value, forward_layout
from ..record.inconsistent import disagreement
from ..record.keep_option import full_values_hint
from ..record.model import LEAF_OPS, BackwardPass, Node, Record, SourceSite, Step
from ..record.naming import CUSTOM_RULE, argument_names, engine_functions
from ..record.step_table import step_table
from ..stats.summarize import TensorSummary

SMALL = 8  # tensors up to this many elements are shown whole; larger ones one element at a time


@dataclass(eq=False, slots=True)
class Term:
    """One tensor input of the step: the grad it receives and how it came about."""

    input: int  # the input's node id
    name: str  # "b", or "pow#4" for an op's output
    grad_out: np.ndarray | None = None  # the grad the step received (None: not recorded)
    local: np.ndarray | None = None  # elementwise ops: d out/d input, in the output's shape
    grad_in: np.ndarray | None = None  # what this input receives (after any broadcast sum)
    local_text: str = ""  # the local factor with the numbers: "2·[6, 4]"
    formula: str = ""  # "[-1, -1] × 2·[6, 4] = [-12, -8]"
    note: str = ""  # "grad summed over dim 0: (64, 4) -> (4,)"
    values: list[str] = field(default_factory=list)  # other numbers the rule uses, one line each


@dataclass(eq=False, slots=True)
class StepExplanation:
    """One backward step explained: its rule, one Term per tensor input, the grad sums it completes."""

    node: int
    op: str
    rule: str  # with the node's own numbers (pow's exponent) substituted
    custom: str | None = None  # a user's autograd.Function: "custom backward: ..."
    site: SourceSite | None = None
    pass_index: int = 0
    step: int = 0
    steps: int = 0
    # The flat element shown of tensors over SMALL elements: of the output for an elementwise op
    # (the same place in every tensor), of each tensor otherwise (clipped to its size).
    element: int | None = None
    terms: list[Term] = field(default_factory=list)
    sums: list[str] = field(default_factory=list)  # "grad(sigma) = from log [..] + from pow [..] = [..]"
    stats: list[str] = field(default_factory=list)  # the full tensors' statistics, beside one element
    notes: list[str] = field(default_factory=list)  # what could not be shown, in words
    operands: list[str] = field(default_factory=list)  # inputs no grad flows to: "constant#4 = [0, 2]"
    seed: str = ""  # the pass's first step: where its grad_out came from


class PassReader:
    """One pass's steps and the nodes they name, each made from the record once, as read: a step's explanation
    reads the steps that passed grads to its node, and a report explains every step of the pass."""

    __slots__ = ("_nodes", "_steps", "pass_", "record")

    def __init__(self, record: Record, pass_: BackwardPass) -> None:
        self.record, self.pass_ = record, pass_
        self._steps: dict[int, Step] = {}
        self._nodes: dict[int, Node | None] = {}

    def step(self, i: int) -> Step:
        s = self._steps.get(i)
        if s is None:
            s = self._steps[i] = self.pass_.steps[i]
        return s

    def node(self, k: int) -> Node | None:
        if k in self._nodes:
            return self._nodes[k]
        n = self._nodes[k] = self.record.nodes.get(k)
        return n


def explain_step(
    record: Record, pass_index: int, step: int, element: int | None = None, reader: PassReader | None = None
) -> StepExplanation:
    """Explain step `step` of backward pass `pass_index` (the node order[step]'s backward);
    InconsistentRecord (a ValueError) when the record's numbers for it disagree. `reader`: the pass's
    PassReader when explaining several of its steps (each step and node is then made once)."""
    p = record.passes[pass_index]
    if not p.detailed:
        raise ValueError(f"pass {pass_index} was not kept in detail: its steps are not in the record")
    if not 0 <= step < len(p.steps):
        raise IndexError(f"pass {pass_index} has {len(p.steps)} recorded steps; step {step} is out of range")
    with disagreement(f"passes[{pass_index}].steps[{step}]"):
        return _explained(reader or PassReader(record, p), pass_index, step, element)


def _explained(reader: PassReader, pass_index: int, step: int, element: int | None) -> StepExplanation:
    """explain_step's work, on a step that exists."""
    record, p = reader.record, reader.pass_
    s = reader.step(step)
    node = reader.node(s.node)
    if node is None:  # trimmed with an older pass (the record only grows, but drops old detail)
        return StepExplanation(
            s.node,
            "",
            "",
            pass_index=pass_index,
            step=step,
            steps=len(p.steps),
            notes=[f"node {s.node} is no longer in the record"],
        )
    rule = record.rules.get(node.op, "")
    custom = rule if rule.startswith(CUSTOM_RULE) else None
    cls = None if custom else engine_functions().get(node.op)  # a user's Function: only its recorded numbers
    args = _arguments(node)
    if cls is not None:
        rule = cls.rule_for(args) or rule
    out = StepExplanation(node.id, node.op, rule, custom, node.site, pass_index, step, len(p.steps))
    if not rule:
        out.notes.append(f"no derivative rule is recorded for {node.op}")
    grad_out = _values(s.grad_output)
    inputs = [reader.node(i) for i in node.inputs]
    values = [_values(n.output) if n is not None else None for n in inputs]
    elementwise = cls is not None and cls.elementwise
    local = _local(cls, node, values) if cls is not None and (elementwise or cls.reduces) else None
    if elementwise:  # one element of the output, the same place in every tensor
        if grad_out is not None and grad_out.size > SMALL:
            out.element = _clip(element or 0, grad_out.size)
    elif element is not None or any(v is not None and v.size > SMALL for v in [grad_out, *values]):
        out.element = max(int(element or 0), 0)  # each big tensor's own flat element (clipped to it)
    pending = not s.grad_inputs and bool(node.inputs)  # paused before this node's backward
    if pending:
        out.notes.append("this step's backward has not run yet: the grads to its inputs come when it runs")
    for k, source in enumerate(inputs):
        if source is None:
            continue
        if not source.requires_grad if pending else k >= len(s.grad_inputs) or s.grad_inputs[k] is None:
            value = values[k]
            if value is not None:  # an operand the rule reads (a target, a mask)
                out.operands.append(f"{_name(source)} (node {source.id}) = {_shown(value, out.element)}")
            continue
        term = _term(node, source, k, s, grad_out, values, local, cls, args, out.element, out.notes)
        out.terms.append(term)
        if term.local is not None and out.element is not None:
            computed = (
                _array_stats(term.grad_in) if term.grad_in is not None else "not computed yet (when this step runs)"
            )
            out.stats.append(f"grad to {term.name}: {computed}")
    if elementwise and out.element is not None and s.grad_output is not None:
        out.stats.insert(0, f"grad_out: {summary_stats(s.grad_output)}")
    if grad_out is None:
        out.notes.append(_missing("grad_out", s.grad_output))
    elif step == 0 and s.node == p.root:
        out.seed = _seed(grad_out, node)
    out.sums = _sums(reader, step)
    return out


def _seed(grad_out: np.ndarray, root: Node) -> str:
    """Where the first step's grad_out came from: backward()'s implicit 1 for a scalar, or its `gradient`."""
    scalar = root.output is not None and root.output.numel == 1
    if scalar and grad_out.size == 1 and grad_out.reshape(-1)[0] == 1:
        return "1 is the implicit seed of backward() on a scalar"
    return "the gradient passed to backward()"


def explain_lines(explanation: StepExplanation) -> list[str]:
    """The explanation as plain text lines (no markup)."""
    e = explanation
    title = f"step {e.step + 1} of {e.steps}: node {e.node} {e.op}"
    if e.site is not None:
        title += f"    {e.site.file}:{e.site.line}" + (f"  {e.site.text}" if e.site.text else "")
    lines = [title]
    rule = e.rule.split("\n") if e.rule else ["(no rule recorded)"]
    lines.append(f"rule: {rule[0]}")
    lines += [f"      {more}" for more in rule[1:]]
    if e.element is not None:
        lines.append(f"element {e.element} (tensors over {SMALL} elements are shown one element at a time)")
    if e.seed or (e.terms and e.terms[0].local is None and e.terms[0].grad_out is not None):
        grad_out = e.terms[0].grad_out if e.terms else None
        lines.append(
            f"grad_out = {_shown(grad_out, e.element) if grad_out is not None else '?'}"
            + (f"  ({e.seed})" if e.seed else "")
        )
    for t in e.terms:
        lines.append(f"{t.name} (node {t.input}):")
        if t.local_text:
            assert t.local is not None  # set with its text
            lines.append(f"  local  d out/d {t.name} = {t.local_text}" + _evaluated(t.local_text, t.local, e.element))
        if t.formula:
            lines.append(f"  grad_in = {t.formula}")
        lines += [f"  {v}" for v in t.values]
        if t.note:
            lines.append(f"  {t.note}")
    lines += e.operands
    lines += e.sums
    lines += e.stats
    lines += e.notes
    return lines


# --- the pieces ----------------------------------------------------------------------------------


def _evaluated(text: str, local: np.ndarray, element: int | None) -> str:
    """What a local factor's formula comes to (" = [12, 8]"), or nothing when the formula is its numbers already."""
    numbers = values_text(local, element)
    first = local.reshape(-1)[0] if local.size else None
    said = text.replace("−", "-")
    if said == numbers or (first is not None and said == number_text(first) and (local == first).all()):
        return ""
    return f" = {numbers}"


def _arguments(node: Node) -> dict[str, Any]:
    """The node's non-tensor arguments as Python values (those the record can give back), by name."""
    values: dict[str, Any] = {}  # Any: the values the script passed
    for key, literal in node.args:
        try:
            values[key] = argument_value(key, literal)
        except NotRebuilt:
            continue
    return values


def _values(summary: TensorSummary | None) -> np.ndarray | None:
    """A summary's captured values (a NumPy array), or None when they were not recorded."""
    return None if summary is None or summary.values is None else np.asarray(summary.values)


def _missing(what: str, summary: TensorSummary | None) -> str:
    if summary is None:
        return f"{what} was not recorded"
    if summary.dropped:
        return f"the values of {what} were dropped by the memory budget; its statistics: {summary_stats(summary)}"
    return (
        f"the values of {what} ({summary.numel:,} elements) were not recorded ({full_values_hint(summary.numel)}); "
        f"its statistics: {summary_stats(summary)}"
    )


def summary_stats(s: TensorSummary) -> str:
    """A tensor's statistics from its summary: shape, the NaN/Inf counts, min/max/mean/std/norm of the finite values."""
    return _stats_text(
        s.shape,
        s.numel,
        s.nan_count,
        s.inf_count,
        [(key, getattr(s, key)) for key in ("min", "max", "mean", "std", "norm")],
    )


def _stats_text(
    shape: Sequence[int], numel: int, nans: int, infs: int, stats: Iterable[tuple[str, float | None]]
) -> str:
    """Statistics that say which values they skipped: "shape (64,), 2 nan; of the 62 finite: min -1, max 9, mean 4"."""
    head = ", ".join(
        [f"shape {tuple(shape)}"] + [f"{count:,} {what}" for count, what in ((nans, "nan"), (infs, "inf")) if count]
    )
    shown = ", ".join(f"{key} {number_text(v)}" for key, v in stats if v is not None)
    if not nans + infs:
        return ", ".join(filter(None, [head, shown]))
    return f"{head}; of the {numel - nans - infs:,} finite: {shown}" if shown else f"{head}, no finite values"


def _local(cls: type[Function], node: Node, values: list[np.ndarray | None]) -> list[np.ndarray | None] | None:
    """Each forward argument's local factor (elementwise and reducing ops), or None when the inputs' values are
    not all recorded (or cannot be rebuilt)."""
    arrays = _forward_arguments(cls, node, values)
    if arrays is None or (cls.reduces and len(arrays) < len(argument_names(cls))):
        return None  # a loss's factor depends on its reduction: none from a record without it (an old snapshot)
    try:
        with np.errstate(all="ignore"):
            factors: list[np.ndarray | None] = cls.local_factors(arrays)
            return factors
    except (TypeError, ValueError, RuntimeError, ArithmeticError, AttributeError, IndexError):
        # an argument the record holds only as text: no numbers, the rule stands
        return None


def _forward_arguments(cls: type[Function], node: Node, values: list[np.ndarray | None]) -> list[object] | None:
    """Forward's positional arguments rebuilt (the inputs' recorded values, the arguments' literals),
    or None when one of them is not in the record."""
    try:
        fixed, positions = forward_layout(cls, node)
    except NotRebuilt:
        return None
    if any(v is None for v in values):
        return None
    slots: list[object] = [None] * (len(fixed) + len(positions))
    for position, value in fixed.items():
        slots[position] = value
    for position, v in zip(positions, values):
        slots[position] = v
    return slots


def _input_positions(cls: type[Function], node: Node) -> list[int]:
    """Where each tensor input goes in forward's call (in order when an argument's place is unknown)."""
    try:
        return forward_layout(cls, node)[1]
    except NotRebuilt:
        return list(range(len(node.inputs)))


def _term(
    node: Node,
    source: Node,
    k: int,
    s: Step,
    grad_out: np.ndarray | None,
    values: list[np.ndarray | None],
    local: list[np.ndarray | None] | None,
    cls: type[Function] | None,
    args: dict[str, Any],
    element: int | None,
    notes: list[str],
) -> Term:
    term = Term(source.id, _name(source), grad_out)
    given = s.grad_inputs[k] if k < len(s.grad_inputs) else None  # none yet: the step has not run
    raw = _values(given)
    shape = tuple(source.output.shape) if source.output is not None else None
    if raw is not None:
        term.grad_in, axes = _summed_to(raw, shape)
        if axes:
            dims = ", ".join(map(str, axes))
            term.note = f"grad summed over dim{'s' if len(axes) > 1 else ''} {dims}: {tuple(raw.shape)} -> {shape}" + (
                "" if element is not None and raw.size > SMALL else f" = {values_text(term.grad_in, None)}"
            )
    elif given is not None:
        notes.append(_missing(f"the grad to {term.name}", given))
    elementwise = cls is not None and cls.elementwise
    position = _input_positions(cls, node)[k] if cls is not None else k
    if local is not None:
        assert cls is not None  # the factors are its
        factor = local[position] if position < len(local) else None
        # a loss's grad_out multiplies its factor elementwise when it is one number or in the factor's shape
        # (cross_entropy's reduction='none' gives one per row: no product to show)
        if factor is not None and (
            not cls.reduces or grad_out is None or grad_out.size == 1 or grad_out.shape == factor.shape
        ):
            term.local = factor
            term.local_text = _fill(cls.local_for(args), position, cls, node, values, factor, element, args)
    elif elementwise:
        notes.append(f"the local factor for {term.name} needs every input's values, which were not all recorded")
    if term.grad_out is not None and term.local is not None and (raw is not None or given is None):
        term.formula = _product(term, raw, element)
        return term
    if term.grad_out is None or raw is None:
        return term
    # Not elementwise: the operand's values, what it receives, and one element's sum where the op has one.
    value = values[k]
    term.values.append(f"value  {_shown(value, element)}" if value is not None else _missing(term.name, source.output))
    assert term.grad_in is not None  # made from raw above
    term.formula = _shown(term.grad_in, element)
    arrays = _forward_arguments(cls, node, values) if cls is not None else None
    if arrays is not None and term.grad_in.size:
        assert cls is not None  # the arguments are its
        worked = _worked_element(cls, position, arrays, grad_out, term.grad_in, element)
        if worked:
            term.values.append(worked)
    return term


def _worked_element(
    cls: type[Function],
    position: int,
    arrays: list[object],
    grad_out: np.ndarray | None,
    grad_in: np.ndarray,
    element: int | None,
) -> str:
    """One element of a sum-of-products grad with its numbers: "dA[0,1] = Σₖ ... = 1·2 + 3·4 = 14"."""
    index = tuple(int(i) for i in np.unravel_index(_clip(element or 0, grad_in.size), grad_in.shape))
    worked = cls.contraction(position, index, arrays, grad_out)
    if worked is None:
        return ""
    text, pairs = worked
    shown = pairs if len(pairs) <= SMALL else pairs[:4]
    sum_text = " + ".join(f"{_factor(x)}·{_factor(y)}" for x, y in shown)
    if len(pairs) > len(shown):
        sum_text += f" + … ({len(pairs) - len(shown)} more)"
    return f"{text} = {sum_text} = {number_text(grad_in[index])}"


def _product(term: Term, raw: np.ndarray | None, element: int | None) -> str:
    """grad_out × local = grad_in, with the numbers (one element's for big tensors); `raw`, the
    grad the step gave (before any broadcast sum), is None while the step has not run."""
    grad_out = values_text(term.grad_out, element)
    local = _grouped(term.local_text)
    if raw is None:
        return f"{grad_out} × {local} = … (when this step runs)"
    if element is None:  # before any broadcast sum, which the note shows
        return f"{grad_out} × {local} = {values_text(raw, None)}"
    return f"{grad_out} × {local} = {number_text(raw.reshape(-1)[element])}" + (
        f"  (this element's share; {term.name}'s grad sums them, see the note)" if term.note else ""
    )


def _shown(values: np.ndarray, element: int | None) -> str:
    """A small tensor whole; a big one's element (`element`, default 0) with its statistics."""
    if values.size <= SMALL:
        return values_text(values, None)
    e = _clip(element or 0, values.size)
    index = ",".join(str(int(i)) for i in np.unravel_index(e, values.shape))
    return f"[{index}] = {number_text(values.reshape(-1)[e])}    ({_array_stats(values)})"


def _factor(v: SupportsFloat) -> str:
    return _signed(number_text(v))


def _signed(text: str) -> str:
    """A negative number in parentheses, as an operand in a formula: "(-0.2)"."""
    return f"({text})" if text.startswith("-") else text


def _fill(
    templates: Sequence[str],
    position: int,
    cls: type[Function],
    node: Node,
    values: list[np.ndarray | None],
    factor: np.ndarray,
    element: int | None,
    args: dict[str, Any],
) -> str:
    """The local factor's template with the numbers: "2·[6, 4]", "1 − (-0.2)²"; the numbers alone
    without one (or when the op cannot give a name's numbers, as a weighted loss)."""
    template = templates[position] if position < len(templates) else ""
    if not template:
        return values_text(factor, element)
    wanted = set(_PLACEHOLDER.findall(template))
    arrays = _forward_arguments(cls, node, values) or []
    known: dict[str, object] = dict(zip(argument_names(cls), arrays))
    if "out" in wanted:
        known["out"] = _values(node.output)
    try:
        if wanted - known.keys():
            known.update(cls.local_values(arrays, args))
        filled = {key: _operand_text(known[key], factor.shape, element) for key in wanted}
    except (KeyError, TypeError, ValueError, RuntimeError, ArithmeticError, AttributeError, IndexError):
        return values_text(factor, element)
    return _PLACEHOLDER.sub(lambda m: _placed(filled[m.group(1)], template, m.start(), m.end()), template)


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _placed(text: str, template: str, start: int, end: int) -> str:
    """A number put in a formula, in parentheses where its minus would read otherwise: "1 − (-0.2)²",
    "2·(-0.5)", but "cos(-0.5)" and "(-0.5 − 1)" as they are."""
    leads = start == 0 or template[start - 1] == "("
    raised = template[end : end + 1] in _RAISED
    return text if leads and not raised else _signed(text)


_RAISED = tuple("^⁰¹²³⁴⁵⁶⁷⁸⁹⁻")  # what follows a number that is raised to a power


def _grouped(text: str) -> str:
    """A factor as one operand of a product: "(1 − 0.2²)" for a formula with an operator outside
    its brackets; "2·[6, 4]" as it is."""
    depth = 0
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == " " and depth == 0:
            return f"({text})"
    return text


def _operand_text(value: object, shape: tuple[int, ...], element: int | None) -> str:
    if value is None:
        return "?"
    if not isinstance(value, np.ndarray):
        return number_text(value) if isinstance(value, (int, float, np.number)) else repr(value)
    if element is not None:
        return number_text(np.broadcast_to(value, shape).reshape(-1)[element])
    return values_text(value, None)


def _summed_to(grad: np.ndarray, shape: tuple[int, ...] | None) -> tuple[np.ndarray, tuple[int, ...]]:
    """`grad` summed down to `shape` as the engine does for a broadcast input, and the dims summed."""
    if shape is None or tuple(grad.shape) == tuple(shape):
        return grad, ()
    extra = grad.ndim - len(shape)
    if extra < 0 or grad.size == 0:
        return grad, ()
    axes = tuple(range(extra)) + tuple(i + extra for i, n in enumerate(shape) if n == 1 and grad.shape[i + extra] != 1)
    summed = grad.sum(axis=axes, keepdims=True) if axes else grad
    return summed.reshape(shape), axes


def _sums(reader: PassReader, step: int) -> list[str]:
    """The grads completed at this step that several consumers added to: the step's own input
    grad (its node's output) and the leaves whose .grad this step finished."""
    s = reader.step(step)
    targets = [s.node] + [lg.node for lg in s.leaf_grads]
    consumers = _consumers(reader.record, reader.pass_)
    lines: list[str] = []
    for target in targets:
        parts: list[tuple[int, str, TensorSummary | None]] = []
        upto = step if target == s.node else step + 1
        for i, k in consumers.get(target, ()):
            other = reader.step(i)
            if i < upto and k < len(other.grad_inputs) and other.grad_inputs[k] is not None:
                parts.append((other.node, _read(reader, other.node).op, other.grad_inputs[k]))
        if len(parts) < 2:
            continue
        ordered = [(op, g) for _, op, g in sorted(parts, key=lambda part: part[0])]  # in the forward's order
        node = _read(reader, target)
        shape = tuple(node.output.shape) if node.output is not None else None
        found = [_values(g) for _, g in ordered]
        if any(a is None for a in found):
            lines.append(
                f"grad({_name(node)}) = the sum of {len(ordered)} consumers' grads ("
                + ", ".join(op for op, _ in ordered)
                + "); their values were not all recorded"
            )
            continue
        arrays = [_summed_to(a, shape)[0] for a in cast(list[np.ndarray], found)]  # none is None: checked above
        total = arrays[0]
        for a in arrays[1:]:
            total = total + a
        element = 0 if total.size > SMALL else None
        lines.append(
            f"grad({_name(node)}) = "
            + " + ".join(f"from {op} {values_text(a, element)}" for (op, _), a in zip(ordered, arrays))
            + f" = {values_text(total, element)}"
            + ("  (element 0)" if element is not None else "")
        )
    return lines


# (pass, its step count, record id, node -> [(step, input position)]): the last one made
_CONSUMED: list[tuple[BackwardPass, int, int, dict[int, list[tuple[int, int]]]] | None] = [None]


def _consumers(record: Record, p: BackwardPass) -> dict[int, list[tuple[int, int]]]:
    """Which steps of pass `p` passed a grad to each node, made once per pass (stepping through a
    big pass explains one step after another)."""
    held = _CONSUMED[0]
    if held is not None and held[0] is p and held[1] == len(p.steps) and held[2] == id(record):
        return held[3]
    index: dict[int, list[tuple[int, int]]] = {}
    nodes = record.nodes
    for i, node in enumerate(step_table(p.steps).node_ids()):  # ids and inputs only: no Step or Node made
        inputs = nodes.inputs_of(node)
        if inputs is not None:
            for k, target in enumerate(inputs):
                index.setdefault(target, []).append((i, k))
    _CONSUMED[0] = (p, len(p.steps), id(record), index)
    return index


def _read(reader: PassReader, k: int) -> Node:
    """Node k, which the record must hold (a KeyError names it otherwise, as the record's own lookup)."""
    node = reader.node(k)
    if node is None:
        raise KeyError(k)
    return node


def _name(node: Node) -> str:
    if node.parameter:
        return node.parameter
    if node.op in LEAF_OPS:
        return f"{node.op}#{node.id}"
    return f"{node.op}#{node.id}"


def _clip(element: int, size: int) -> int:
    return min(max(int(element), 0), max(size - 1, 0))


def values_text(values: np.ndarray | None, element: int | None) -> str:
    """[6, 4] for a small array, one element's number for a big one (element given)."""
    if values is None:
        return "?"
    a = np.asarray(values)
    if element is not None and a.size > 1:
        return number_text(a.reshape(-1)[_clip(element, a.size)])
    if a.ndim == 0:
        return number_text(a.item())
    if a.size > SMALL:
        return f"[{_array_stats(a)}]"
    return _nested(a.tolist())


def _nested(v: Any) -> str:  # Any: what tolist gives, nested lists of Python numbers
    if isinstance(v, list):
        return "[" + ", ".join(_nested(x) for x in v) + "]"
    return number_text(v)


def _array_stats(a: np.ndarray) -> str:
    a = np.asarray(a, dtype=np.float64)
    finite = a[np.isfinite(a)]
    nans = int(np.isnan(a).sum())
    stats = [("min", finite.min()), ("max", finite.max()), ("mean", finite.mean())] if finite.size else []
    return _stats_text(a.shape, a.size, nans, a.size - finite.size - nans, stats)


def number_text(v: SupportsFloat) -> str:
    """-12 for -12.0, 0.333333 for 1/3, True/False for booleans."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    f = float(v)
    if not math.isfinite(f):
        return str(f)
    if f.is_integer() and abs(f) < 1e15:
        return str(int(f))
    return f"{f:.6g}"
