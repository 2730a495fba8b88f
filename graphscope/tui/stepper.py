"""Stepper: one line saying where the debugger is: pass k of n, step i of N, and running / paused / finished / failed."""

from __future__ import annotations

import os

from rich.text import Text
from textual.widgets import Static

from .moment import Moment
from .node_label import one_line

_STYLES = {"starting": "dim", "running": "bold green", "paused": "bold yellow",
           "finished": "bold blue", "failed": "bold red"}


def describe(moment: Moment, source: str = "") -> Text:
    """The stepper's line for a moment."""
    state = moment.state
    record = moment.record
    text = Text(no_wrap=True, overflow="ellipsis")
    if not moment.live:
        text.append("snapshot ", "dim")
        text.append(one_line(os.path.basename(source) or "(record)"), "bold")
        text.append(" · ", "dim")
    if state is None:
        text.append("starting…", "dim")
        return text
    kind = state.kind
    text.append(f"● {kind}", _STYLES.get(kind, ""))
    node = record.nodes.get(state.node) if state.node is not None else None
    if kind == "paused" and moment.live:
        text.append(" at ")
        text.append(one_line(node.op) if node is not None else "the end of the pass", "bold")
        if state.reason and state.reason != "end of pass":
            text.append(f" ({one_line(state.reason)})", "dim")
    elif kind in ("finished", "failed") and state.exit_code is not None:
        text.append(f" (exit {state.exit_code})", "dim")
    if state.pass_index is not None and state.pass_index < len(record.passes):
        p = record.passes[state.pass_index]
        # Passes are numbered from 0 everywhere (tree, record, summary): say how many there are.
        text.append(f" · pass {p.index} ({len(record.passes)} recorded)")
        if state.step is not None:
            total = len(p.order)
            text.append(" · ")
            text.append(f"step {state.step + 1} of {total}" if state.step < total else f"end of pass ({total} steps)",
                        "bold")
        if p.loss is not None:
            text.append(f" · loss {p.loss:.4g}", "bold red" if p.loss != p.loss or abs(p.loss) == float("inf") else "")
    elif kind == "running":
        text.append(f" · {len(record.passes)} passes")
    if not moment.live and node is not None:
        text.append(" · at ")
        text.append(one_line(node.op), "bold")
    return text


class Stepper(Static):
    """Repainted on every state change and, while the script runs, a few times a second."""

    DEFAULT_CSS = """
    Stepper { height: 1; padding: 0 1; background: $panel; }
    """

    def show(self, moment: Moment, source: str = "") -> None:
        text = describe(moment, source)
        if text != self._last:
            self._last = text
            self.update(text, layout=False)  # always one line: no layout needed

    def on_mount(self) -> None:
        self._last = None
