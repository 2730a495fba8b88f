"""ConsolePane: the script's prints and, when it fails, its traceback, as known at the cursor, all as literal text."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from graphscope.trace.record.literal import visible
from graphscope.trace.record.model import ConsoleLine, ScriptError


class ConsolePane(RichLog):
    """The console lines known at the cursor (each one line the script wrote; stderr in red)."""

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

    def show(self, lines: list[ConsoleLine], dropped: int = 0, error: ScriptError | None = None) -> None:
        """Show the console as known at the cursor: `lines` are the record's first lines written
        by then, after `dropped` older ones the recorder let go of, then the script's traceback
        when it has failed by then. New lines are appended; fewer (the cursor went back in time)
        are drawn again."""
        total = dropped + len(lines)
        if total < self._seen or (self._error_shown and error is None):
            self.clear()
            self._seen, self._error_shown = 0, False
            self.border_title = "console"
        new = total - self._seen
        if new > 0:
            for line in lines[-new:] if new < len(lines) else lines:
                style = "red" if line.stream == "stderr" else ""
                for piece in line.text.rstrip("\n").split("\n"):
                    self.write(Text(visible(piece), style, no_wrap=True))
            self._seen = total
        if error is not None and not self._error_shown:
            self._add_error(error)

    def _add_error(self, error: ScriptError) -> None:
        """The script's traceback, in red."""
        self._error_shown = True
        body = error.traceback or f"{error.type}: {error.message}"
        for line in body.rstrip("\n").split("\n"):
            self.write(Text(visible(line), "red", no_wrap=True))
        self.border_title = "console · script failed"
