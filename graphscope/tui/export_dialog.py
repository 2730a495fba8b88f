"""ExportDialog: asks where to write the snapshot (a default in the current directory) and never overwrites unasked."""

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
    """`./<script stem>-snapshot.json` in the current directory (not beside the script: no surprise
    files in the user's repository), numbered `-2`, `-3`... when that file exists."""
    stem = os.path.splitext(os.path.basename(script))[0] if script else "graphscope"
    if not stem.endswith("-snapshot"):
        stem += "-snapshot"
    path = os.path.join(".", f"{stem}.json")
    n = 2
    while taken(path):
        path = os.path.join(".", f"{stem}-{n}.json")
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
            yield Static(
                Text("The record as JSON; open it later with: graphscope view PATH\nEnter writes it, Escape cancels."),
                id="export-note",
            )
            yield Input(self.default, id="export-path")
            yield Static(id="export-warning")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#export-path")
    def submitted(self, event: Input.Submitted) -> None:
        path = os.path.expanduser(event.value.strip())
        warning = self.query_one("#export-warning", Static)
        if not path:
            warning.update(Text("Type a path, or Escape to cancel."))
            return
        if os.path.isdir(path):
            warning.update(Text("That is a folder: type a file name."))
            return
        if os.path.exists(path) and self._confirmed != path:
            self._confirmed = path
            warning.update(Text("That file exists: Enter again overwrites it; or change the path, or Escape."))
            return
        self.dismiss(path)
