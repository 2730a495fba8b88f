"""Findings: what a user debugging training should look at first (NaN origins, dead ReLUs, bad grads)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, TypeGuard

import numpy as np

from ..record.live_columns import Scan
from ..record.model import (
    ACCUMULATED_GRAD,
    DEAD_RELU,
    EXPLODING_GRAD,
    HAND_UPDATE,
    NAN_GRAD,
    NAN_ORIGIN,
    OPTIMIZER_STEP,
    PARAMETER,
    VANISHING_GRAD,
    Finding,
    Node,
    Record,
    SourceSite,
)
from ..record.node_table import IS_LEAF, NodeColumns
from ..record.optimizer_history import event_kinds
from ..record.pass_history import grad_norms_by_pass, with_steps
from ..record.step_table import step_table
from ..record.tensor_summary import TensorSummary
from ..report.number_text import format_number

# A parameter's grad norm under VANISHING_NORM is vanishing, over EXPLODING_NORM exploding (by default).
VANISHING_NORM, EXPLODING_NORM = 1e-7, 1e3


def find(record: Record, vanishing: float = VANISHING_NORM, exploding: float = EXPLODING_NORM) -> list[Finding]:
    """Every finding in the record, NaN/Inf first."""
    out: list[Finding] = []
    origin = nan_origin(record)
    if origin is not None:
        out.append(origin)
    grad = nan_grad(record)
    if grad is not None:
        out.append(grad)
    out += dead_relus(record)
    out += grad_extremes(record, vanishing, exploding)
    out += accumulated_grads(record)
    return out


def _bad(s: TensorSummary | None) -> TypeGuard[TensorSummary]:
    return s is not None and (s.nan_count > 0 or s.inf_count > 0)


def _counts(s: TensorSummary) -> str:
    parts = []
    if s.nan_count:
        parts.append(f"{s.nan_count:,} NaN")
    if s.inf_count:
        parts.append(f"{s.inf_count:,} Inf")
    return " and ".join(parts) + f" of {s.numel:,} values"


def _what(node: Node) -> str:
    if node.parameter:
        return f"{node.op} {node.parameter}"
    return node.op if not node.module else f"{node.op} in {node.module}"


def _nodes_at(record: Record, scan: Scan | NodeColumns, rows: Iterable[int]) -> list[Node]:
    """The nodes at these rows of a scan of the record's nodes (only they are made into Nodes)."""
    return [record.nodes[int(scan.id[r])] for r in rows]


def nan_origin(record: Record) -> Finding | None:
    """The first node, in creation order, whose value holds a NaN or Inf: where it was born."""
    scan = record.nodes.scan()
    for node in _nodes_at(record, scan, np.flatnonzero(scan.output_nonfinite())[:1].tolist()):
        if _bad(node.output):
            if node.is_leaf:
                text = f"the first NaN/Inf is already in the input {_what(node)}: {_counts(node.output)}"
            else:
                inputs_ok = all(not _bad(record.nodes[k].output) for k in node.inputs if k in record.nodes)
                born = "from finite inputs" if inputs_ok else "first seen here"
                text = f"NaN/Inf born in {_what(node)} ({born}): {_counts(node.output)}"
            return Finding(
                NAN_ORIGIN, f"{text} (pass {node.pass_index})", node.id, node.pass_index, node.parameter, node.site
            )
    return None


def _named_leaves(record: Record, op: str | None = None) -> tuple[dict[str, int], dict[str, int]]:
    """Per parameter name of the leaves (of this op, if given), in creation order: the node id of
    its latest leaf, and the id its identity was first seen as; read from the columns."""
    c = record.nodes.scan()
    named = (c.flags & IS_LEAF).astype(bool) & (c.parameter >= 0)
    if op is not None:
        named &= (c.op == c.strings.index(op)) if op in c.strings else False
    latest: dict[str, int] = {}
    made: dict[str, int] = {}
    strings = c.strings
    for code, nid, leaf in zip(c.parameter[named].tolist(), c.id[named].tolist(), c.leaf[named].tolist()):
        name = strings[code]
        if name:
            latest[name] = nid
            made.setdefault(name, nid if leaf < 0 else leaf)
    return latest, made


def nan_grad(record: Record) -> Finding | None:
    """The first backward step whose grads hold a NaN or Inf."""
    nodes = record.nodes
    for p in with_steps(record.passes):
        output, inputs, leaves = step_table(p.steps).nonfinite()
        for number in np.flatnonzero(output | inputs | leaves)[:1].tolist():  # only that step is made
            step = p.steps[number]
            node = nodes.get(step.node)
            what = _what(node) if node is not None else f"node {step.node}"
            where = f"(pass {p.index}, backward step {number + 1})"
            site = node.site if node is not None else None
            if _bad(step.grad_output):
                return Finding(
                    NAN_GRAD,
                    f"the grad arriving at {what} holds {_counts(step.grad_output)} {where}",
                    step.node,
                    p.index,
                    None,
                    site,
                )
            for i, g in enumerate(step.grad_inputs):
                if _bad(g):
                    return Finding(
                        NAN_GRAD,
                        f"the backward of {what} made a NaN/Inf grad for its input {i}: {_counts(g)} {where}",
                        step.node,
                        p.index,
                        None,
                        site,
                    )
            for lg in step.leaf_grads:
                if _bad(lg.grad):
                    leaf = nodes.get(lg.node)
                    name = leaf.parameter if leaf is not None and leaf.parameter else f"node {lg.node}"
                    return Finding(
                        NAN_GRAD,
                        f"the grad accumulated into {name} holds {_counts(lg.grad)} {where}",
                        lg.node,
                        p.index,
                        name,
                        leaf.site if leaf is not None else site,
                    )
    return None


def dead_relus(record: Record) -> list[Finding]:
    """ReLUs with units that are zero for every example in the batch, latest pass per ReLU."""
    latest: dict[tuple[SourceSite | None, str | None], Node] = {}
    scan = record.nodes.scan()
    for node in _nodes_at(record, scan, sorted(scan.dead)):
        if node.dead_units is not None:
            latest[(node.site, node.module)] = node
    out: list[Finding] = []
    for node in latest.values():
        assert node.dead_units is not None  # as kept above
        dead, units = node.dead_units
        if dead:
            where = f" in {node.module}" if node.module else ""
            out.append(
                Finding(
                    DEAD_RELU,
                    f"{dead} of {units} units of the relu{where} are zero for every "
                    f"example in the batch (pass {node.pass_index})",
                    node.id,
                    node.pass_index,
                    None,
                    node.site,
                )
            )
    return out


def grad_extremes(
    record: Record, vanishing: float = VANISHING_NORM, exploding: float = EXPLODING_NORM
) -> list[Finding]:
    """Parameters whose grad norm fell under `vanishing` or rose over `exploding` in some pass."""
    # (name, kind) -> [first pass, passes, latest norm, latest pass], updated in place: ints and a float
    seen: dict[tuple[str, str], list[Any]] = {}
    for index, norms in grad_norms_by_pass(record.passes):
        for name, norm in norms:
            if not math.isfinite(norm):
                continue
            kind = VANISHING_GRAD if norm < vanishing else EXPLODING_GRAD if norm > exploding else None
            if kind is not None:
                entry = seen.setdefault((name, kind), [index, 0, norm, index])
                entry[1] += 1
                entry[2], entry[3] = norm, index
    total = len(record.passes)
    leaf_of = _named_leaves(record, PARAMETER)[0] if seen else {}
    out: list[Finding] = []
    for (name, kind), (first, count, last_norm, last) in seen.items():
        limit = vanishing if kind == VANISHING_GRAD else exploding
        side = "under" if kind == VANISHING_GRAD else "over"
        word = "vanishing" if kind == VANISHING_GRAD else "exploding"
        node = record.nodes.get(leaf_of.get(name))
        out.append(
            Finding(
                kind,
                f"{word} grad: the grad norm of {name} was {side} {format_number(limit)} in "
                f"{count} of {total} passes (first at pass {first}; {format_number(last_norm)} "
                f"at pass {last})",
                node.id if node is not None else None,
                last,
                name,
                node.site if node is not None else None,
            )
        )
    return out


ACCUMULATION_RUN = 3  # passes adding into one .grad without a reset before it is pointed out
NAMED = 3  # leaves named in one finding; the rest are counted


def accumulated_grads(record: Record) -> list[Finding]:
    """Leaves whose `.grad` took the grads of 3 or more backward passes in a row with no
    zero_grad or grad reset between them, where an optimizer step read the growing sum (or the
    script has no optimizer). Accumulating on purpose (several passes, then one step, then
    zero_grad) is not pointed out. Leaves with the same run share one finding, at the line of
    the step that read the sum (else where the first leaf was made)."""
    resets: list[tuple[int, set[str] | None]] = []
    steps: list[tuple[int, SourceSite | None]] = []
    for kind, passes, site, params in event_kinds(record.optimizer):
        if kind in (OPTIMIZER_STEP, HAND_UPDATE):  # an update by hand reads the grads as a step does
            steps.append((passes, site))
        else:  # a light row lost its parameters: count it as clearing every grad
            resets.append((passes, {c.label for c in params} if params else None))
    runs: dict[str, list[int]] = {}  # label -> the passes of its longest run so far
    current: dict[str, list[int]] = {}
    pending = iter(sorted(resets, key=lambda r: r[0]))
    reset = next(pending, None)
    for index, norms in grad_norms_by_pass(record.passes):
        while reset is not None and reset[0] <= index:  # cleared before this pass began
            if reset[1] is None:
                current.clear()
            else:
                for label in reset[1]:
                    current.pop(label, None)
            reset = next(pending, None)
        for label, _ in norms:
            run = current.get(label)
            if run is None:
                run = current[label] = [index]
            else:
                run.append(index)
            best = runs.get(label)
            if best is None or len(run) > len(best):
                runs[label] = run
    by_run: dict[tuple[int, int], list[str]] = {}
    for label, run in runs.items():
        if len(run) >= ACCUMULATION_RUN:
            by_run.setdefault((run[0], run[-1]), []).append(label)
    # label -> the id of its latest leaf node; -> the id its identity was first seen as
    latest, made = _named_leaves(record) if by_run else ({}, {})
    out: list[Finding] = []
    for (first, last), labels in by_run.items():
        labels.sort(key=lambda label: made.get(label, math.inf))  # in the order the script made them
        midway = [site for passes, site in steps if first < passes <= last]
        if steps and not midway:
            continue  # accumulated on purpose: stepped only after the run
        count = len(runs[labels[0]])
        names = ", ".join(f"`{name}`" for name in labels[:NAMED])
        if len(labels) > NAMED:
            names += f" and {len(labels) - NAMED} more"
        node = record.nodes.get(latest.get(labels[0]))
        out.append(
            Finding(
                ACCUMULATED_GRAD,
                f"grads of {names} accumulated across {count} passes without zeroing "
                f"(passes {first} to {last}): backward() adds into .grad, so each step "
                "used the sum of the grads so far; call optimizer.zero_grad() each "
                "iteration",
                node.id if node is not None else None,
                last,
                labels[0],
                midway[0] if midway else node.site if node is not None else None,
            )
        )
    return out
