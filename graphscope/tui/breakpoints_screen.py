"""BreakpointsScreen: the breakpoints, to toggle or remove, and a line to add one by op, module, source line, NaN,
grad norm or the optimizer's step."""

from __future__ import annotations

import dataclasses
import re
from typing import ClassVar, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from graphscope.session import Breakpoint, NodeKey
from graphscope.session.condition import Condition

from .node_label import one_line

KINDS = ("node", "op", "module", "line", "nan", "grad_norm", "step")
_LINE = re.compile(r"^\S+:\d+$")


def parse_breakpoint(text: str, record) -> Breakpoint:
    """`op matmul`, `module model.layers.1`, `line model.py:42` (or just `model.py:42`), `node 12`
    (that node of the record, in every pass), `nan`, `grad_norm 10`, `step` (before each
    optimizer.step()); `created op log` stops where the forward makes the node instead of before
    its backward; `... if value max > 1e3` (or `any if grad norm > 10`) adds a condition; raises
    ValueError saying what is wrong."""
    text, _, condition = text.strip().partition(" if ")
    created = text.startswith("created ")
    bp = _parse_kind(text.removeprefix("created ").strip() if created else text, record, condition.strip())
    return dataclasses.replace(bp, at="forward" if created else bp.at)


def _parse_kind(text: str, record, condition: str) -> Breakpoint:
    if text == "any":
        if not condition:
            raise ValueError("any needs a condition, e.g. any if grad norm > 10")
        return Breakpoint("any", None, condition=Condition.parse(condition))
    if condition:
        return dataclasses.replace(_parse_kind(text, record, ""), condition=Condition.parse(condition))
    if not text:
        raise ValueError("type a breakpoint, e.g. op matmul")
    kind, _, value = text.partition(" ")
    kind = kind.lower().replace("-", "_")
    value = value.strip()
    if kind in ("nan", "step"):
        return Breakpoint(kind=kind, value=None)
    if kind not in KINDS:
        if _LINE.match(text):
            return Breakpoint(kind="line", value=text)
        raise ValueError(f"unknown kind {kind!r}: use one of {', '.join(KINDS)}")
    if not value:
        raise ValueError(f"{kind} needs a value")
    if kind == "node":
        if not value.lstrip("#").isdigit():
            raise ValueError("node needs a node id (a number)")
        node = record.nodes.get(int(value.lstrip("#")))
        if node is None:
            raise ValueError(f"there is no node {value} in the record")
        if node.is_leaf or node.site is None:
            raise ValueError(f"node {value} has no backward step of its own: give the op that uses it")
        return Breakpoint(kind="node", value=NodeKey(node.op, node.site.file, node.site.line, node.module))
    if kind == "grad_norm":
        try:
            threshold = float(value.lstrip("> "))
        except ValueError:
            raise ValueError("grad_norm needs a number (the threshold)") from None
        return Breakpoint(kind="grad_norm", value=threshold)
    if kind == "line" and not _LINE.match(value):
        raise ValueError("line needs file.py:42")
    return Breakpoint(kind=kind, value=value)


class BreakpointsScreen(ModalScreen[None]):
    """Typing adds a breakpoint; in the list (tab), space toggles the highlighted one, d removes it
    and a goes back to the line that adds one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("space,t", "toggle", "Toggle"),
        Binding("d,delete", "remove", "Remove"),
        Binding("a", "add", "Add"),
    ]

    DEFAULT_CSS = """
    BreakpointsScreen {
        align: center middle;
        & > Vertical {
            width: 90%;
            max-width: 90;
            height: auto;
            max-height: 90%;
            border: thick $primary;
            background: $surface;
        }
        & DataTable { height: auto; max-height: 14; }
        & #bp-help { height: auto; padding: 0 1; color: $text-muted; }
        & #bp-error { height: auto; padding: 0 1; color: $error; }
    }
    """

    class Changed(Message):
        """The breakpoints were changed: repaint the markers."""

    def __init__(self, debuggee):
        super().__init__()
        self.debuggee = debuggee

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "breakpoints"
            box.border_subtitle = "tab to the list: space toggle · d remove · escape close"
            table: DataTable[Text] = DataTable(id="bp-table", cursor_type="row")
            table.add_columns("id", "on", "breakpoint")
            yield table
            yield Static(
                Text(
                    "Add: op matmul · module model.layers.1 · line model.py:42 · node 12 "
                    "(in every pass) · nan · grad_norm 10 · step (before each optimizer.step())"
                ),
                id="bp-help",
            )
            yield Input(placeholder="op matmul", id="bp-input")
            yield Static(id="bp-error")

    def on_mount(self) -> None:
        self._fill()
        self.query_one(Input).focus()

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        for bp in self.debuggee.breakpoints:
            table.add_row(
                Text(str(bp.id)),
                Text("●" if bp.enabled else "○", "bold red" if bp.enabled else "dim"),
                Text(one_line(bp.describe())),
                key=str(bp.id),
            )
        if table.row_count:
            table.move_cursor(row=min(max(row, 0), table.row_count - 1))

    def _highlighted_id(self) -> int | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key
        return int(cast(str, key.value))  # every row is added with its breakpoint's id as key

    def action_toggle(self) -> None:  # type: ignore[override]  # the screen's space key, not DOMNode's toggle(attr)
        self._change(self.debuggee.toggle_breakpoint)

    def action_remove(self) -> None:
        self._change(self.debuggee.remove_breakpoint)

    def _change(self, command) -> None:
        """Apply a debuggee command to the highlighted breakpoint's id; refill the list and say so."""
        bp_id = self._highlighted_id()
        if bp_id is not None:
            command(bp_id)
            self._fill()
            self.post_message(self.Changed())

    def action_add(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#bp-input")
    def submitted(self, event: Input.Submitted) -> None:
        error = self.query_one("#bp-error", Static)
        try:
            bp = parse_breakpoint(event.value, self.debuggee.record)
        except ValueError as e:
            error.update(Text(str(e)))
            return
        bp = self.debuggee.add_breakpoint(bp)
        if self.debuggee.unmatched(bp):
            what = "optimizer step is recorded" if bp.pauses_at_step() else f"node matches {bp.describe()}"
            error.update(
                Text(f"no {what} yet: breakpoint {bp.id} is kept, and pauses before the first one that does", "yellow")
            )
        else:
            error.update("")
        event.input.value = ""
        self._fill()
        self.post_message(self.Changed())
