"""GradFlow: the grads flowing in and out at a node's backward step, and those accumulated into leaves."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from graphscope.trace.summary import TensorSummary, format_number

from .moment import Moment
from .node_label import node_text, shape_text


def _grad_cells(s: TensorSummary | None) -> list[Text]:
    if s is None:
        return [Text("no grad", "dim"), Text(""), Text(""), Text("")]
    bad = "bold red" if s.has_nonfinite else ""
    nonfinite = f"{s.nan_count} nan {s.inf_count} inf" if s.has_nonfinite else ""
    return [Text(shape_text(s)), Text(format_number(s.norm), bad),
            Text(f"{format_number(s.min)} … {format_number(s.max)}"), Text(nonfinite, bad)]


class GradFlow(Static):
    """Row one is the grad this node received (with respect to its output); the others, the grads it
    passed to each input, and what reached a leaf's `.grad`."""

    DEFAULT_CSS = """
    GradFlow { height: auto; padding: 0 1; }
    """

    def show(self, moment: Moment, node_id: int | None) -> None:
        record = moment.record
        node = record.nodes.get(node_id) if node_id is not None else None
        if node is None:
            self.update("")
            return
        index = moment.index
        step = moment.step_of(node_id)
        table = Table(box=None, padding=(0, 1), show_edge=False, expand=False)
        for column in ("", "node", "shape", "norm", "range", ""):
            table.add_column(column, no_wrap=True, style="dim" if column == "" else None)
        parts = []
        if step is not None:
            table.add_row(Text("in  ←", "green"), Text("from the loss"), *_grad_cells(step.grad_output))
            for i, input_id in enumerate(node.inputs):
                grad = step.grad_inputs[i] if i < len(step.grad_inputs) else None
                table.add_row(Text("out →", "yellow"),
                              Text.assemble(node_text(record.nodes.get(input_id)), (f" #{input_id}", "dim")),
                              *_grad_cells(grad))
            for lg in step.leaf_grads:
                table.add_row(Text("leaf +", "cyan"),
                              Text.assemble(node_text(record.nodes.get(lg.node)), (f" #{lg.node}", "dim")),
                              *_grad_cells(lg.grad))
            parts.append(table)
        else:
            grads = moment.leaf_grads(node_id)
            if grads:
                for k, lg in enumerate(grads):
                    table.add_row(Text("leaf +", "cyan"), Text(f"accumulation {k + 1}"), *_grad_cells(lg.grad))
                parts.append(table)
            elif index.step_position(node_id) is not None:
                parts.append(Text("Its backward has not run yet: step to it (n) to see the grads.", "dim"))
            else:
                parts.append(Text("No backward step ran through this node in the record.", "dim"))
        self.update(Group(*parts))
