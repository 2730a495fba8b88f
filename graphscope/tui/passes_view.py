"""PassesView: every backward pass with its loss (a sparkline over the run) and the grad norm of each parameter;
the optimizer's events (zero_grad, step, a `.grad` reset) in rows between the passes."""

from __future__ import annotations

import math
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey

from graphscope.trace.record.keep_option import KEEP_ALL
from graphscope.trace.record.model import BackwardPass
from graphscope.trace.report import drawing

from .moment import Moment
from .node_label import keep_tail, one_line
from .number_text import fit_number
from .optimizer_words import STYLE, event_line, event_short, steps_values
from .wording import counted, named_runs

NUMBER = 10  # the width of a loss or a norm in the tables
NAME = 32  # the width of a parameter's name


def loss_sparkline(losses: list[float | None], width: int) -> Text:
    """trace's loss sparkline (the same as the headless summary's): blocks in cyan, a bucket
    holding a NaN or Inf as a red ×, a pass without a loss a gap."""
    text = Text(no_wrap=True)
    for char in drawing.loss_sparkline(losses, width):
        text.append(char, "bold red" if char == drawing.NONFINITE else "cyan")
    return text


def pass_loss(p: BackwardPass, nodes) -> float | None:
    """The pass's loss; while its backward is still running, the value of its root."""
    if p.loss is not None:
        return p.loss
    root = nodes.get(p.root) if p.root is not None else None
    out = root.output if root is not None else None
    if out is None or out.numel != 1:
        return None
    if out.nan_count:
        return math.nan
    if out.inf_count:
        return math.inf if out.max is None or out.max >= 0 else -math.inf
    return float(out.mean) if out.mean is not None else None


def not_kept_note(indices) -> str:
    """Why these passes have no graph, and how to have it: `passes 1–156 not kept in detail (recording
    policy): loss and grad norms only; run with --keep all to keep them`."""
    return (
        f"{named_runs(indices, 'pass', 'passes')} not kept in detail (recording policy): "
        f"loss and grad norms only; {KEEP_ALL} to keep them"
    )


def total_norm(p: BackwardPass) -> float | None:
    """The L2 norm of all the parameters' grads together."""
    if not p.grad_norms:
        return None
    return math.sqrt(sum(v * v for v in p.grad_norms.values()))


class PassesView(Vertical):
    """The loss curve, a table of passes, and the grad norms of the highlighted pass; enter on a pass
    kept in full shows its graph."""

    DEFAULT_CSS = """
    PassesView {
        background: $surface;
        & > #loss-curve { height: 2; padding: 0 1; }
        & > #pass-note { height: auto; max-height: 4; padding: 0 1; color: $text-muted; }
        & > #pass-table { height: 1fr; }
        & > #event-note { height: auto; max-height: 3; padding: 0 1; border-top: solid $primary-muted; }
        & > #norm-table { height: 1fr; border-top: solid $primary-muted; }
    }
    """

    class Chosen(Message):
        """Enter on a pass: show its graph."""

        def __init__(self, position: int):
            super().__init__()
            self.position = position

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.moment: Moment | None = None
        self._key: tuple = ()
        self._highlighted: int | None = None
        # Each row of the table: ("pass", position) or ("event", the OptimizerEvent): Any, as the kind says which.
        self._rows: list[tuple[str, Any]] = []
        self._passes: list[BackwardPass] = []  # the passes known at the moment's cursor

    def compose(self) -> ComposeResult:
        yield Static(id="loss-curve")
        yield Static(id="pass-note")
        table: DataTable[Text] = DataTable(id="pass-table", cursor_type="row", zebra_stripes=True)
        table.add_columns("pass", "detail", "loss", "grad norm", "nodes")  # every pass, kept in detail or not
        yield table
        yield Static(id="event-note")
        norms: DataTable[Text] = DataTable(id="norm-table", cursor_type="row")
        norms.add_column("parameter", width=NAME, key="name")
        norms.add_column("grad norm", width=10, key="value")
        yield norms

    def on_mount(self) -> None:
        self.query_one("#event-note").display = False

    def show_passes(self, moment: Moment) -> None:
        self.moment = moment
        self._passes = passes = moment.known_passes()
        nodes = moment.record.nodes
        losses = [pass_loss(p, nodes) for p in passes]
        events = moment.optimizer_events()
        key = tuple((p.index, loss, p.finished, p.detailed, len(p.grad_norms)) for p, loss in zip(passes, losses)) + (
            len(events),
        )
        self._draw_curve(losses)
        if key == self._key:
            return
        self._key = key
        trimmed = [p.index for p in passes if not p.detailed]
        note = self.query_one("#pass-note", Static)
        note.update(Text(not_kept_note(trimmed) if trimmed else ""))
        note.display = bool(trimmed)
        table = self.query_one("#pass-table", DataTable)
        row = table.cursor_row
        table.clear()
        after: dict[int, list] = {}
        for event in events:
            after.setdefault(event.passes, []).append(event)
        self._rows = [("event", e) for e in after.get(0, [])]
        for position, (p, _loss) in enumerate(zip(passes, losses)):
            self._rows.append(("pass", position))
            self._rows += [("event", e) for e in after.get(p.index + 1, [])]
        for i, (kind, what) in enumerate(self._rows):
            if kind == "event":
                table.add_row(
                    Text(""), Text("↳", "dim"), Text(event_short(what), STYLE), Text(""), Text(""), key=f"e{i}"
                )
                continue
            p, value = passes[what], losses[what]
            loss = Text(fit_number(value, NUMBER), "bold red" if value is not None and not math.isfinite(value) else "")
            norm = total_norm(p)
            table.add_row(
                Text(str(p.index)),
                Text("✓", "green") if p.detailed else Text("·", "dim"),
                loss,
                Text(fit_number(norm, NUMBER), "bold red" if norm is not None and not math.isfinite(norm) else ""),
                Text(f"{p.node_count:,}"),
                key=str(what),
            )
        if passes:
            state = moment.state
            if state is not None and state.pass_index is not None and row <= 0:
                row = self._rows.index(("pass", max(0, min(state.pass_index, len(passes) - 1))))
            table.move_cursor(row=max(0, min(row, len(self._rows) - 1)))
            self._show_row(table.cursor_row)

    def _draw_curve(self, losses: list[float | None]) -> None:
        curve = self.query_one("#loss-curve", Static)
        width = max(curve.size.width - 2, 20)
        known = [v for v in losses if v is not None]
        finite = [v for v in known if math.isfinite(v)]
        count = counted(len(losses), "pass", "passes")
        summary = f"loss {fit_number(finite[0])} → {fit_number(known[-1])}  over {count}" if finite else count
        curve.update(Text.assemble(loss_sparkline(losses, width), "\n", (summary, "dim")))

    def _show_row(self, row: int) -> None:
        """Below the table: the highlighted pass's grad norms, or what the highlighted event changed."""
        at: tuple[str, Any] = self._rows[row] if 0 <= row < len(self._rows) else ("pass", -1)
        kind, what = at
        note = self.query_one("#event-note", Static)
        note.display = kind == "event"
        norms = self.query_one("#norm-table", DataTable)
        norms.clear()
        if kind == "event":
            note.update(event_line(what))
            self._relabel(norms, "‖update‖" if steps_values(what) else "‖.grad‖")
            for change in what.params:
                shown = change.update if steps_values(what) else change.before
                value = shown.norm if shown is not None else None
                norms.add_row(
                    Text(keep_tail(one_line(change.label), NAME)),
                    Text(fit_number(value, NUMBER) if value is not None else "None", "" if shown else "dim"),
                )
            return
        self._relabel(norms, "grad norm")
        if not 0 <= what < len(self._passes):
            return
        p = self._passes[what]
        for name, value in sorted(p.grad_norms.items(), key=lambda kv: -kv[1] if math.isfinite(kv[1]) else -math.inf):
            norms.add_row(
                Text(keep_tail(one_line(name), NAME)),
                Text(fit_number(value, NUMBER), "" if math.isfinite(value) else "bold red"),
            )

    @staticmethod
    def _relabel(norms: DataTable, label: str) -> None:
        column = norms.columns.get(ColumnKey("value"))
        if column is not None and column.label.plain != label:
            column.label = Text(label)
            norms.refresh()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id != "pass-table":
            return
        event.stop()
        self._show_row(event.cursor_row)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id != "pass-table":
            return
        event.stop()
        row = event.cursor_row
        chosen: tuple[str, Any] = self._rows[row] if 0 <= row < len(self._rows) else ("", None)
        kind, what = chosen
        if kind == "pass":
            self.post_message(self.Chosen(what))
