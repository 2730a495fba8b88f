"""ExportDialog: asks where to write the snapshot (a default next to the script) and never overwrites unasked."""

from __future__ import annotations

import os
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


def default_export_path(script: str, taken=os.path.exists) -> str:
    """`<script dir>/<script stem>.snapshot.json`, numbered when that file exists."""
    folder = os.path.dirname(os.path.abspath(script)) if script else os.getcwd()
    stem = os.path.splitext(os.path.basename(script))[0] if script else "graphscope"
    path = os.path.join(folder, f"{stem}.snapshot.json")
    n = 1
    while taken(path):
        path = os.path.join(folder, f"{stem}.snapshot-{n}.json")
        n += 1
    return path


class ExportDialog(ModalScreen[str | None]):
    """Enter accepts the path (twice when the file exists: the second enter overwrites)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel")]

    DEFAULT_CSS = """
    ExportDialog {
        align: center middle;
        & > Vertical {
            width: 90%;
            max-width: 100;
            height: auto;
            border: thick $primary;
            background: $surface;
        }
        & #export-note { height: auto; padding: 0 1; color: $text-muted; }
        & #export-warning { height: auto; padding: 0 1; color: $warning; }
    }
    """

    def __init__(self, default: str):
        super().__init__()
        self.default = default
        self._confirmed: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "export a snapshot"
            yield Static(Text("The record as JSON; open it later with: graphscope view PATH"), id="export-note")
            yield Input(self.default, id="export-path")
            yield Static(id="export-warning")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#export-path")
    def submitted(self, event: Input.Submitted) -> None:
        path = os.path.expanduser(event.value.strip())
        warning = self.query_one("#export-warning", Static)
        if not path:
            warning.update(Text("Type a path, or escape to cancel."))
            return
        if os.path.isdir(path):
            warning.update(Text("That is a folder: type a file name."))
            return
        if os.path.exists(path) and self._confirmed != path:
            self._confirmed = path
            warning.update(Text("That file exists: enter again to overwrite it, or change the path."))
            return
        self.dismiss(path)
