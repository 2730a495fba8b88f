"""AgainstView: the selected node beside its match in the run held against this one (`view --against`)."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from graphscope.trace.record.comparison import Against
from graphscope.trace.record.model import Node
from graphscope.trace.record.tensor_summary import TensorSummary
from graphscope.trace.report.number_text import format_number
from graphscope.trace.report.run_diff_report import difference_text
from graphscope.trace.report.summary_render import preview_text

from .node_label import node_text

# The statistics compared, row by row: label, and the summary's figure as text.
_ROWS = (
    ("min", lambda s: format_number(s.min)),
    ("max", lambda s: format_number(s.max)),
    ("mean", lambda s: format_number(s.mean)),
    ("std", lambda s: format_number(s.std)),
    ("norm", lambda s: format_number(s.norm)),
    ("zeros", lambda s: f"{s.zero_fraction:.1%}"),
    ("NaN / Inf", lambda s: f"{s.nan_count} / {s.inf_count}"),
)


class AgainstView(Static):
    """How the node differs from its match (or that it agrees, or has none), then both side by side."""

    DEFAULT_CSS = """
    AgainstView { padding: 0 1; }
    """

    def show(self, against: Against, node: Node | None) -> None:
        self.update(against_text(against, node))


def _figures(s: TensorSummary | None) -> list[str]:
    if s is None:
        return ["not kept"] * len(_ROWS)
    if s.min is None:  # no finite value: only the counts say anything
        return ["—"] * (len(_ROWS) - 1) + [_ROWS[-1][1](s)]
    return [figure(s) for _, figure in _ROWS]


def against_text(against: Against, node: Node | None) -> Group | Text:
    """The comparison of one node with its match in `against`: a verdict line, then a table of the
    statistics with a column per run (the figures that differ in yellow), then each run's first values."""
    if node is None:
        return Text("")
    other = against.other(node.id)
    if other is None:
        return Text.assemble("No node of ", (against.name, "bold"), " matches this one (same pass, op, module, line).")
    difference = against.diff.nodes.get(node.id)
    if difference is None:
        verdict = Text(f"≈ the same within rtol {against.diff.rtol:g}, atol {against.diff.atol:g}", "green")
    else:
        verdict = Text.assemble(
            ("≠ ", "bold magenta"), difference_text(difference.difference, node.output, other.output)
        )
    table = Table(box=None, padding=(0, 2), show_edge=False)
    table.add_column("")
    table.add_column(Text("this run", "bold"))
    table.add_column(Text(against.name, "bold"))
    table.add_row("", node_text(node), node_text(other))
    for (label, _), mine, theirs in zip(_ROWS, _figures(node.output), _figures(other.output)):
        table.add_row(Text(label, "dim"), mine, Text(theirs, "yellow" if theirs != mine else ""))
    values = [
        Text.assemble((f"{name}: ", "dim"), preview_text(s) if s is not None else "not kept")
        for name, s in (("this run", node.output), (against.name, other.output))
    ]
    return Group(verdict, Text(""), table, Text(""), *values)
