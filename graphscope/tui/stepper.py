"""Stepper: one line saying where the debugger is: running / paused / finished, pass k, step i of N, the loss."""

from __future__ import annotations

import math
import os

from rich.text import Text
from textual.widgets import Static

from graphscope.session import State
from graphscope.trace.keep_option import KEEP_ALL

from .moment import Moment
from .node_label import one_line
from .wording import named_runs

_STYLES = {State.STARTING: "dim", State.RUNNING: "bold green", State.PAUSED: "bold yellow",
           State.FINISHED: "bold blue", State.FAILED: "bold red", State.STOPPED: "bold magenta"}


def describe(moment: Moment, source: str = "") -> Text:
    """The stepper's line for a moment: the same words for the same cursor, live or from a snapshot
    (only the first word, running / paused / finished, and a snapshot's name differ)."""
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
    if kind.over and state.exit_code is not None:
        text.append(f" (exit {state.exit_code})", "dim")
    passes = record.passes
    if kind == State.RUNNING:
        if state.reason == "waiting for input":
            text.append(" · the script waits for input: type it below", "bold yellow")
        done = [p for p in list(passes[-2:]) if p.finished]
        if done:
            text.append(f" · pass {done[-1].index}")
            _loss(text, done[-1].loss)
        return text
    if state.pass_index is not None and state.pass_index < len(passes):
        p = passes[state.pass_index]
        text.append(f" · pass {p.index}")
        if state.step is not None:
            text.append(" · ")
            total = len(p.order)
            text.append(f"step {state.step + 1} of {total}" if state.step < total else f"end of pass ({total} steps)",
                        "bold")
        node = record.nodes.get(state.node) if state.node is not None else None
        if node is not None:
            text.append(" · ")
            text.append(one_line(node.op), "bold")
    if state.reason and state.reason not in ("step", "step back", "goto", "running"):
        text.append(f" · {one_line(state.reason)}", "yellow")  # why it stopped here, before the rest
    if state.pass_index is not None and state.pass_index < len(passes):
        _loss(text, passes[state.pass_index].loss)
        text.append(f" · {plural(len(passes), 'pass', 'passes')}", "dim")
        skipped = not_kept_beside(passes, state.pass_index, state.step)
        if skipped:
            text.append(f" · {named_runs(skipped, 'pass', 'passes')} not kept ({KEEP_ALL})", "yellow")
    return text


def not_kept_beside(passes, position: int, step: int | None) -> list[int]:
    """The passes not kept in detail that a step across this pass's edge jumps over: those just
    before it at its first step, those just after it at its end."""
    order = len(passes[position].order)
    if step is None or 0 < step < order:
        return []
    way = -1 if step == 0 else 1
    skipped, k = [], position + way
    while 0 <= k < len(passes) and not passes[k].detailed:
        skipped.append(passes[k].index)
        k += way
    return skipped


def _loss(text: Text, loss: float | None) -> None:
    if loss is not None:
        text.append(f" · loss {loss:.4g}", "bold red" if not math.isfinite(loss) else "")


def plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


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
