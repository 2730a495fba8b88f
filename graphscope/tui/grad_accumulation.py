"""GradAccumulation: a leaf's `.grad` in this pass: what it held before, what the backward added, what it holds now."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from graphscope.trace.stats.summarize import TensorSummary

from .moment import Moment
from .number_text import fit_number
from .tensor_preview import WHOLE, element_text

LABEL = 24  # the width of a row's words


def values_text(summary: TensorSummary | None, element: int = 0) -> Text:
    """A tensor in a few words: its values when it has at most WHOLE of them (`[-12, -8]`), else the
    element under the cursor and the norm; `None` for a `.grad` that was None."""
    if summary is None:
        return Text("None", "dim")
    values = summary.values
    if values is None:
        return Text(f"norm {fit_number(summary.norm)}  (values not kept)", "dim")
    flat = values.reshape(-1)
    if summary.numel <= WHOLE:
        return Text("[" + ", ".join(fit_number(v) for v in flat.tolist()) + "]")
    element = min(element, summary.numel - 1)
    return Text.assemble(
        f"{element_text(element, summary.shape)} = {fit_number(flat[element].item())}",
        (f"   norm {fit_number(summary.norm)}", "dim"),
    )


def accumulation_rows(moment: Moment, node_id: int) -> list[tuple[str, TensorSummary | None]]:
    """(words, grad) for a leaf whose `.grad` this pass's backward has reached (at the cursor):
    before, added, now; nothing for other nodes."""
    grads = moment.leaf_grads(node_id)
    if not grads:
        return []
    rows = [(".grad before this pass", grads[0].before)]
    rows += [("added", lg.grad) for lg in grads]
    rows.append(("now", grads[-1].now))
    return rows


def accumulation_text(moment: Moment, node_id: int, element: int = 0) -> Text:
    """The rows as lines, with a word on why `now` is not what was added."""
    rows = accumulation_rows(moment, node_id)
    text = Text()
    for words, grad in rows:
        text.append(f"{words:<{LABEL}}", "bold" if words == "now" else "dim")
        text.append_text(values_text(grad, element))
        text.append("\n")
    before = rows[0][1] if rows else None
    if before is not None and before.norm:  # a .grad left from an earlier pass: the sum is on purpose, or a bug
        text.append(
            "backward() adds into .grad: zero it between passes (optimizer.zero_grad()) unless you mean to sum them.",
            "yellow",
        )
    text.rstrip()
    return text


class GradAccumulation(Static):
    """Above a leaf's grad: how its `.grad` came to be (hidden for other nodes)."""

    DEFAULT_CSS = """
    GradAccumulation { height: auto; padding: 0 1 1 1; }
    """

    def show(self, moment: Moment, node_id: int | None, element: int = 0) -> None:
        rows = accumulation_rows(moment, node_id) if node_id is not None else []
        self.display = bool(rows)
        if rows and node_id is not None:  # (rows only for a node)
            self.update(accumulation_text(moment, node_id, element))
