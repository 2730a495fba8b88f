"""Two runs compared: their nodes matched by what made them (not by id), then values, grads and parameters.

Two runs of one script make the same ops from the same lines in the same order, but their node ids
need not agree (a run that records more or less before has other ids). A node is matched by its pass,
op, module, parameter name, the line and function that made it, and its occurrence among the nodes of
that pass with the same of these: so a script edited on one line (another constant, another learning
rate) still matches line for line, and the first node whose value differs is where the runs part.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from ..record.comparison import (
    SUMMARY,
    VALUES,
    Difference,
    NodeDifference,
    ParameterDifference,
    RunDiff,
    StepDifference,
)
from ..record.model import PARAMETER, Node, Record, Step
from ..record.tensor_summary import TensorSummary

RTOL = 1e-5  # numpy.isclose's defaults: what float32 arithmetic done in another order can move
ATOL = 1e-8

NodeKey = tuple[int, str, str, str, int, str, int]  # pass, op, module, parameter, line, function, occurrence


def _keys(record: Record) -> Iterator[tuple[NodeKey, Node]]:
    """Each node with its matching key, in creation order."""
    seen: dict[tuple[int, str, str, str, int, str], int] = {}
    for node in record.nodes.values():
        site = node.site
        base = (
            node.pass_index,
            node.op,
            node.module or "",
            node.parameter or "",
            site.line if site is not None else -1,
            site.function if site is not None else "",
        )
        occurrence = seen.get(base, 0)
        seen[base] = occurrence + 1
        yield (*base, occurrence), node


def _close_numbers(a: float | int | None, b: float | int | None, rtol: float, atol: float) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=rtol, abs_tol=atol) or a == b


def _first_apart(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> tuple[int | None, float | None]:
    """The first element where two arrays of one shape are apart (NaN matching NaN, inf matching the
    same inf), and the largest |a − b| over the elements finite in both."""
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    apart = ~np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
    finite = np.isfinite(x) & np.isfinite(y)
    max_abs = float(np.max(np.abs(x[finite] - y[finite]))) if finite.any() else None
    first = int(np.argmax(apart)) if apart.any() else None
    return first, max_abs


def compare(
    a: TensorSummary | None, b: TensorSummary | None, rtol: float = RTOL, atol: float = ATOL
) -> Difference | None:
    """How two summaries of one tensor differ, or None when they agree within the tolerance.

    With every element kept on both sides the elements are compared; otherwise the first elements
    (the preview) and the statistics (min, max, mean, std, norm, zero fraction), which agree for equal
    tensors and rarely for unequal ones: the basis says which was used."""
    if a is None or b is None:
        return None if a is None and b is None else Difference("kept in one run only", VALUES)
    if a.shape != b.shape:
        return Difference(f"shape {_shape(a)} against {_shape(b)}", VALUES)
    if a.dtype != b.dtype:
        return Difference(f"dtype {a.dtype} against {b.dtype}", VALUES)
    if a.values is not None and b.values is not None:
        first, max_abs = _first_apart(a.values, b.values, rtol, atol)
        return None if first is None else Difference("values differ", VALUES, max_abs, first)
    if (a.nan_count, a.inf_count) != (b.nan_count, b.inf_count):
        return Difference(f"{a.nan_count} NaN, {a.inf_count} Inf against {b.nan_count} NaN, {b.inf_count} Inf", SUMMARY)
    first, max_abs = (None, None)
    if a.preview.size == b.preview.size and a.preview.size:
        first, max_abs = _first_apart(a.preview, b.preview, rtol, atol)
    statistics = ("min", "max", "mean", "std", "norm", "zero_fraction")
    apart = [s for s in statistics if not _close_numbers(getattr(a, s), getattr(b, s), rtol, atol)]
    if first is None and not apart:
        return None
    gaps = [
        abs(getattr(a, s) - getattr(b, s)) for s in apart if getattr(a, s) is not None and getattr(b, s) is not None
    ]
    widest = max([g for g in (*gaps, max_abs) if g is not None and math.isfinite(g)], default=None)
    what = "values differ" if first is not None else f"{', '.join(apart)} differ"
    return Difference(what, SUMMARY, widest, first)


def _shape(s: TensorSummary) -> str:
    return "×".join(str(d) for d in s.shape) if s.shape else "scalar"


def _step_difference(
    pass_index: int, steps_a: list[Step], steps_b: list[Step], b_of: dict[int, int], rtol: float, atol: float
) -> StepDifference | None:
    """The first of a's steps (in the order they ran) whose grads differ from its match's in b."""
    by_node = {s.node: s for s in steps_b}
    for position, step in enumerate(steps_a):
        other = by_node.get(b_of.get(step.node, -1))
        if other is None:
            continue
        pairs = [("grad received", step.grad_output, other.grad_output)]
        pairs += [(f"grad to input {k}", x, y) for k, (x, y) in enumerate(zip(step.grad_inputs, other.grad_inputs))]
        for grad, x, y in pairs:
            difference = compare(x, y, rtol, atol)
            if difference is not None:
                return StepDifference(pass_index, position, step.node, other.node, grad, x, y, difference)
    return None


def diff(a: Record, b: Record, rtol: float = RTOL, atol: float = ATOL) -> RunDiff:
    """Compare run `a` with run `b`: every matched node's value, the backward steps, the parameters."""
    result = RunDiff(rtol, atol, (len(a.passes), len(b.passes)))
    in_b = dict(_keys(b))
    used: set[NodeKey] = set()
    for key, node in _keys(a):
        other = in_b.get(key)
        if other is None:
            result.only_a.append(node)
            continue
        used.add(key)
        result.b_of[node.id] = other.id
        difference = compare(node.output, other.output, rtol, atol)
        if difference is not None:
            result.nodes[node.id] = NodeDifference(node, other, difference)
    result.matched = len(used)
    result.only_b = [node for key, node in in_b.items() if key not in used]
    result.detailed = tuple(p.index for p, q in zip(a.passes, b.passes) if p.detailed and q.detailed)
    result.loss = next(
        (
            (p.index, p.loss, q.loss)
            for p, q in zip(a.passes, b.passes)
            if not _close_numbers(p.loss, q.loss, rtol, atol)
        ),
        None,
    )
    for pass_a, pass_b in zip(a.passes, b.passes):
        if result.step is None and pass_a.detailed and pass_b.detailed:
            result.step = _step_difference(
                pass_a.index, list(pass_a.steps), list(pass_b.steps), result.b_of, rtol, atol
            )
    result.parameters = _parameter_differences(a, b, result, rtol, atol)
    return result


def _parameter_differences(
    a: Record, b: Record, result: RunDiff, rtol: float, atol: float
) -> list[ParameterDifference]:
    """Per pass both runs have, per parameter either names: its grad norms and its values' difference,
    for the parameters where either differs."""
    values: dict[tuple[int, str], Difference] = {}
    for d in result.nodes.values():
        if d.a.op == PARAMETER and d.a.parameter:
            values[(d.a.pass_index, d.a.parameter)] = d.difference
    rows = []
    for pass_a, pass_b in zip(a.passes, b.passes):
        names = list(pass_a.grad_norms) + [n for n in pass_b.grad_norms if n not in pass_a.grad_norms]
        names += [n for (i, n) in values if i == pass_a.index and n not in names]
        for name in names:
            norm_a, norm_b = pass_a.grad_norms.get(name), pass_b.grad_norms.get(name)
            norms_differ = not _close_numbers(norm_a, norm_b, rtol, atol)
            value = values.get((pass_a.index, name))
            if norms_differ or value is not None:
                rows.append(ParameterDifference(name, pass_a.index, norm_a, norm_b, norms_differ, value))
    return rows
