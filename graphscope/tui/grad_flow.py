"""GradFlow: the grads flowing in and out at a node's backward step.

Each consumer's contribution and their sum, what the node passed to its inputs, what reached a leaf's `.grad`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from graphscope.trace.record.model import CONSTANT
from graphscope.trace.stats.summarize import TensorSummary

from .moment import Moment
from .node_label import node_text, one_line, shape_text
from .number_text import fit_number

# Column widths: direction, norm, each end of the range; the node column takes what is left and
# is never narrower than NODE_MIN (the range goes first when the pane is narrow).
DIRECTION, NORM, END, NODE_MIN, SHAPE_MAX = 6, 9, 9, 14, 14
RANGE = 2 * END + 4  # ` min … max`: a space apart from the norm


@dataclass(frozen=True, slots=True)
class FlowRow:
    """One grad: which way it flows, whom it names (`from sub #8`), and its summary."""

    direction: str  # "in ←", "=", "out →", "leaf +"
    style: str
    words: str  # before the node: "from", "to"; or the whole label
    node: int | None = None
    note: str = ""  # after the node: "as input 1"
    grad: TensorSummary | None = None


def contributions(moment: Moment, node_id: int) -> list[FlowRow]:
    """A row for each grad a consumer passed to this node in its pass's backward (so far, at the
    cursor): the consumer's step's `grad_inputs[k]` for each `k` where its `inputs[k]` is this node."""
    index = moment.index
    record = index.record
    node = record.nodes[node_id]
    position = index.pass_list_index(node.pass_index)
    rows = []
    for consumer_id in dict.fromkeys(index.consumers().get(node_id, ())):
        found = index.step_position(consumer_id)
        step = moment.step_of(consumer_id)
        if found is None or found[0] != position or step is None or not step.grad_inputs:
            continue  # not in this pass's backward, or its step has not run (or finished) yet
        inputs = record.nodes[consumer_id].inputs
        slots = [k for k, i in enumerate(inputs) if i == node_id]
        for k in slots:
            grad = step.grad_inputs[k] if k < len(step.grad_inputs) else None
            rows.append(FlowRow("in ←", "green", "from", consumer_id, f"as input {k}" if len(slots) > 1 else "", grad))
    return rows


def flow_rows(moment: Moment, node_id: int) -> list[FlowRow]:
    """Every grad through the node as known at the cursor, in the order it flows: in (and their
    sum), out, into leaves."""
    index = moment.index
    record = index.record
    node = record.nodes[node_id]
    step = moment.step_of(node_id)
    rows = contributions(moment, node_id)
    received = step.grad_output if step is not None else None
    leaf = moment.leaf_grads(node_id) if step is None else []
    if step is not None and not rows:
        position = index.pass_list_index(node.pass_index)
        seed = position is not None and record.passes[position].root == node_id
        rows.append(FlowRow("in ←", "green", "backward() seed" if seed else "received", grad=received))
    elif len(rows) > 1 and (step is not None or leaf):
        total = received if step is not None else leaf[-1].grad
        rows.append(FlowRow("=", "bold", "sum: its grad" if step is not None else "sum: its .grad", grad=total))
    if step is None:
        if not rows:  # contributions not in the record: what reached `.grad` is
            rows += [FlowRow("leaf +", "cyan", "into .grad", grad=lg.grad) for lg in leaf]
        return rows
    if not step.grad_inputs:  # paused at it: its backward has not computed them yet
        return rows
    nodes = record.nodes
    for k, input_id in enumerate(node.inputs):
        if input_id in nodes and nodes[input_id].op == CONSTANT:
            continue  # an old snapshot's Python value: an argument, not an edge
        grad = step.grad_inputs[k] if k < len(step.grad_inputs) else None
        twice = node.inputs.count(input_id) > 1
        rows.append(FlowRow("out →", "yellow", "to", input_id, f"as input {k}" if twice else "", grad))
    rows += [FlowRow("leaf +", "cyan", "", lg.node, ".grad", lg.grad) for lg in step.leaf_grads]
    return rows


class FlowTable:
    """The rows as a table fitted to the width it is drawn in: the direction, node, shape and norm
    always; the range and NaN/Inf counts when there is room."""

    def __init__(self, rows: list[FlowRow], nodes):
        self.rows = rows
        self.nodes = nodes

    def __rich_console__(self, console, options):
        width = options.max_width
        shape = min(SHAPE_MAX, max([5] + [len(shape_text(r.grad)) for r in self.rows]))
        fixed = DIRECTION + 1 + shape + 1 + NORM
        bad = [r.grad is not None and r.grad.has_nonfinite for r in self.rows]
        counts = max([0] + [len(_nonfinite(r.grad)) for r, b in zip(self.rows, bad) if b])
        show_range = width - fixed - 1 - RANGE - 1 >= NODE_MIN
        show_counts = counts and width - fixed - 1 - (RANGE + 1 if show_range else 0) - counts - 1 >= NODE_MIN
        room = width - fixed - 1 - (RANGE + 1 if show_range else 0) - (counts + 1 if show_counts else 0)
        natural = max(self._who(r, None).cell_len for r in self.rows)
        who = max(min(NODE_MIN, natural), min(room, natural))
        table = Table(
            box=None,
            padding=(0, 1),
            collapse_padding=True,
            pad_edge=False,
            show_edge=False,
            expand=False,
            header_style="dim",
        )
        table.add_column("", width=DIRECTION, no_wrap=True)
        table.add_column("node", width=who, no_wrap=True, overflow="ellipsis")
        table.add_column("shape", width=shape, no_wrap=True, overflow="ellipsis")
        table.add_column("norm", width=NORM, no_wrap=True, justify="right")
        if show_range:
            table.add_column(" range", width=RANGE, no_wrap=True)
        if show_counts:
            table.add_column("", width=counts, no_wrap=True)
        for row, nonfinite in zip(self.rows, bad):
            s = row.grad
            cells = [Text(row.direction, row.style), self._who(row, who)]
            if s is None:
                cells += [Text("no grad", "dim"), Text("")]
            else:
                cells += [Text(shape_text(s)), Text(_norm(s), "bold red" if nonfinite else "")]
            if show_range:
                cells.append(Text(f" {fit_number(s.min, END)} … {fit_number(s.max, END)}" if s is not None else ""))
            if show_counts:
                cells.append(Text(_nonfinite(s) if nonfinite else "", "bold red"))
            table.add_row(*cells)
        yield table

    def _who(self, row: FlowRow, width: int | None) -> Text:
        if row.node is None:
            return Text(row.words)
        number = f" #{row.node}"
        words = row.words + " " if row.words else ""
        note = " " + row.note if row.note else ""
        room = None if width is None else width - len(words) - len(number) - len(note)
        return Text.assemble(
            words,
            node_text(self.nodes.get(row.node), None, self.nodes, room, with_shape=False),
            (number, "dim"),
            (note, "dim"),
        )


def _norm(s: TensorSummary) -> str:
    """The L2 norm of the whole grad: NaN when one of its values is, infinite when one is."""
    if s.nan_count:
        return "nan"
    if s.inf_count:
        return "inf"
    return fit_number(s.norm, NORM)


def _nonfinite(s: TensorSummary | None) -> str:
    return "" if s is None else f"{s.nan_count} nan {s.inf_count} inf"


class GradFlow(Static):
    """The grads this node received, one row per consumer that passed it one, and their sum; then
    the grads it passed to each input, and what reached a leaf's `.grad`."""

    DEFAULT_CSS = """
    GradFlow { height: auto; padding: 0 1; }
    """

    def show(self, moment: Moment, node_id: int | None) -> None:
        record = moment.record
        node = record.nodes.get(node_id) if node_id is not None else None
        if node is None or node_id is None:
            self.update("")
            return
        index = moment.index
        rows = flow_rows(moment, node_id)
        parts: list[RenderableType] = []
        if rows:
            parts.append(FlowTable(rows, record.nodes))
        step = moment.step_of(node_id)
        if step is None and index.step_position(node_id) is not None:
            parts.append(Text("Its backward has not run yet: step to it (n) to see the grads it passes on.", "dim"))
        elif step is not None and not step.grad_inputs and node.inputs:
            parts.append(Text("Its backward runs at the next step (n): then the grads it passes on show here.", "dim"))
        elif not rows:
            parts.append(Text("No backward step ran through this node in the record.", "dim"))
        if node.op == CONSTANT:
            parts = [Text(f"A Python value passed to an op ({one_line(node.name)}): it has no grad.", "dim")]
        self.update(Group(*parts))
