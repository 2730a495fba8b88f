"""ConsolePane: the script's prints and, when it fails, its traceback, all as literal text."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from graphscope.trace.literal import visible
from graphscope.trace.record import ConsoleLine, ScriptError


class ConsolePane(RichLog):
    """Appends the record's new console lines (each one line the script wrote; stderr in red)."""

    DEFAULT_CSS = """
    ConsolePane {
        height: 6;
        background: $surface;
        border-top: solid $primary-muted;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id, max_lines=5000, wrap=False, markup=False, highlight=False, auto_scroll=True)
        self._seen = 0
        self._error_shown = False
        self.border_title = "console"

    def add_lines(self, lines: list[ConsoleLine], dropped: int = 0) -> None:
        """Show the lines written since the last call: `lines` are the record's console now, after
        `dropped` older ones the recorder let go of (a live record's console only grows)."""
        total = dropped + len(lines)
        new = total - self._seen
        if new <= 0:
            return
        for line in lines[-new:] if new < len(lines) else lines:
            style = "red" if line.stream == "stderr" else ""
            for piece in line.text.rstrip("\n").split("\n"):
                self.write(Text(visible(piece), style, no_wrap=True))
        self._seen = total

    def add_error(self, error: ScriptError | None) -> None:
        """The script's traceback, once, in red."""
        if error is None or self._error_shown:
            return
        self._error_shown = True
        body = error.traceback or f"{error.type}: {error.message}"
        for line in body.rstrip("\n").split("\n"):
            self.write(Text(visible(line), "red", no_wrap=True))
        self.border_title = "console · script failed"
