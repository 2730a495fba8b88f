"""`graphscope diff`'s report: where two runs part (the first node, the first backward step), then parameters."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..record.comparison import Difference, NodeDifference, RunDiff, StepDifference
from ..record.model import PARAMETER, Node
from ..record.tensor_summary import TensorSummary
from .literal import literal
from .number_text import format_number
from .summary_render import preview_text

SHOWN_NODES = 5  # nodes named of those found in one run only
SHOWN_PARAMETER_ROWS = 20


def _node_text(node: Node) -> Text:
    name = node.parameter if node.op == PARAMETER and node.parameter else node.op
    text = Text.assemble(literal(name, "bold"), f" #{node.id}", f"  pass {node.pass_index}")
    if node.module:
        text.append_text(Text.assemble("  in ", literal(node.module, "cyan")))
    site = node.site
    if site is not None:
        text.append_text(Text.assemble("  ", literal(f"{site.file}:{site.line}", "cyan")))
        if site.text:
            text.append_text(Text.assemble("  ", literal(site.text, "dim")))
    return text


def _summary_text(label: str, s: TensorSummary | None) -> Text:
    if s is None:
        return Text(f"    {label}: not kept", "dim")
    shape = "×".join(str(d) for d in s.shape) if s.shape else "scalar"
    text = Text(f"    {label}: {shape} {s.dtype}  ")
    if s.min is not None:
        text.append(f"min {format_number(s.min)}  max {format_number(s.max)}  mean {format_number(s.mean)}  ")
    if s.nan_count or s.inf_count:
        text.append(f"{s.nan_count} NaN {s.inf_count} Inf  ", "red")
    text.append(preview_text(s, 6), "dim")
    return text


def difference_text(d: Difference, a: TensorSummary | None, b: TensorSummary | None) -> Text:
    """How two tensors differ, in one line: what, on which basis, the largest gap and the first element apart."""
    text = Text(f"{d.what} (compared by {d.basis})", "yellow")
    if d.max_abs is not None:
        text.append(f": max |a − b| {format_number(d.max_abs)}", "yellow")
    if d.element is not None:
        x, y = _element(a, d.element), _element(b, d.element)
        if x is not None and y is not None:  # to 8 digits: two values a tolerance apart may agree in 4
            text.append(f"; first at element {d.element}: a {x:.8g}, b {y:.8g}", "yellow")
    return text


def _element(s: TensorSummary | None, k: int) -> float | None:
    if s is None:
        return None
    flat = s.values.ravel() if s.values is not None else s.preview
    return float(flat[k]) if k < flat.size else None


def _first_node(d: NodeDifference) -> Group:
    a, b = d.a.output, d.b.output
    return Group(
        Text("first node whose value differs (in creation order):", "bold"),
        Text.assemble("  ", _node_text(d.a), "" if d.a.id == d.b.id else f"  (b: #{d.b.id})"),
        _summary_text("a", a),
        _summary_text("b", b),
        Text.assemble("    ", difference_text(d.difference, a, b)),
    )


def _first_step(s: StepDifference) -> Group:
    return Group(
        Text("first backward step whose grad differs:", "bold"),
        Text(f"  pass {s.pass_index}, step {s.position}: node #{s.a_node} (b: #{s.b_node}), the {s.grad}"),
        _summary_text("a", s.a),
        _summary_text("b", s.b),
        Text.assemble("    ", difference_text(s.difference, s.a, s.b)),
    )


def _parameters(d: RunDiff) -> Table:
    table = Table(title="parameters where the grad norm or the value differs", title_justify="left", box=None)
    for column in ("pass", "parameter", "grad norm a", "grad norm b", "value: max |a − b|"):
        table.add_column(column, justify="left" if column == "parameter" else "right")
    for row in d.parameters[:SHOWN_PARAMETER_ROWS]:
        value = (
            ""
            if row.value is None
            else format_number(row.value.max_abs)
            if row.value.max_abs is not None
            else row.value.what
        )
        table.add_row(
            str(row.pass_index),
            literal(row.name),
            Text(format_number(row.grad_norm_a), "yellow" if row.grad_norm_differs else ""),
            Text(format_number(row.grad_norm_b), "yellow" if row.grad_norm_differs else ""),
            value,
        )
    if len(d.parameters) > SHOWN_PARAMETER_ROWS:
        table.add_row("", Text(f"… {len(d.parameters) - SHOWN_PARAMETER_ROWS} more rows", "dim"), "", "", "")
    return table


def _only(label: str, nodes: list[Node]) -> Group:
    lines: list[RenderableType] = [
        Text(f"{len(nodes):,} node{'s' if len(nodes) != 1 else ''} only in {label}:", "bold")
    ]
    lines += [Text.assemble("  ", _node_text(n)) for n in nodes[:SHOWN_NODES]]
    if len(nodes) > SHOWN_NODES:
        lines.append(Text(f"  … {len(nodes) - SHOWN_NODES:,} more", "dim"))
    return Group(*lines)


def render(d: RunDiff, a_name: str, b_name: str) -> Group:
    """The report as one Rich renderable; the record's strings shown literally."""
    tolerance = f"rtol {d.rtol:g}, atol {d.atol:g}"
    counts = f"{d.matched:,} nodes matched; passes: {d.passes[0]} in a, {d.passes[1]} in b"
    note: list[RenderableType] = []
    if len(d.detailed) < min(d.passes):
        shown = ", ".join(str(i) for i in d.detailed[:8]) + (" …" if len(d.detailed) > 8 else "")
        note.append(
            Text(
                f"  values and steps compared in the passes both kept in detail ({shown or 'none'}); "
                "record with --keep all to compare every pass",
                "dim",
            )
        )
    if d.agree:
        return Group(
            Text.assemble(literal(a_name, "bold"), " and ", literal(b_name, "bold"), (" agree", "green")),
            Text(f"  {counts}; every value, grad, loss and grad norm within {tolerance}", "green"),
            *note,
        )
    parts: list[RenderableType] = [
        Text.assemble(("a ", "dim"), literal(a_name, "bold"), ("  b ", "dim"), literal(b_name, "bold"), "  differ"),
        Text(f"  {counts}; {len(d.nodes):,} matched nodes differ beyond {tolerance}"),
        *note,
    ]
    if d.loss is not None:
        index, x, y = d.loss
        parts += [Text(""), Text(f"first pass whose loss differs: pass {index}, a {x!r}, b {y!r}", "bold")]
    first = d.first_node
    if first is not None:
        parts += [Text(""), _first_node(first)]
    if d.step is not None:
        parts += [Text(""), _first_step(d.step)]
    if d.parameters:
        parts += [Text(""), _parameters(d)]
    for label, nodes in (("a", d.only_a), ("b", d.only_b)):
        if nodes:
            parts += [Text(""), _only(label, nodes)]
    return Group(*parts)


def print_diff(d: RunDiff, a_name: str, b_name: str, console: Console | None = None) -> None:
    """Print the report (to stdout unless a console is given)."""
    (console or Console()).print(render(d, a_name, b_name))
