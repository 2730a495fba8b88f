"""TensorView: one tensor summary in full: its own stats rendering, a histogram and a preview of the values."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from graphscope.trace.record.tensor_summary import TensorSummary
from graphscope.trace.report.summary_render import render

from .histogram import Histogram
from .tensor_preview import TensorPreview


class TensorView(VerticalScroll):
    """The summary drawn as `graphscope summary` draws it (`summary_render`); the preview shows only
    the window on screen, so a 10^8-element tensor costs what a small one does."""

    DEFAULT_CSS = """
    TensorView {
        height: 1fr;
        & > #stats { height: 8; padding: 0 1; }
        & > #empty { height: 3; padding: 1 1; color: $text-muted; }
    }
    """

    def __init__(self, what: str, *, id: str | None = None):
        super().__init__(id=id)
        self.what = what
        self._shown: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="empty")
        yield Static(id="stats")
        yield Histogram()
        yield TensorPreview()

    def show(self, summary: TensorSummary | None, node_id: int | None, absent: str = "", element: int = 0) -> None:
        """Show a summary, or the reason there is none, with the cursor on `element` (nothing is
        redrawn when it is the same)."""
        key = (id(summary), node_id, absent, element)
        if key == self._shown:
            return
        self._shown = key
        empty = self.query_one("#empty", Static)
        stats = self.query_one("#stats", Static)
        histogram = self.query_one(Histogram)
        preview = self.query_one(TensorPreview)
        has = summary is not None
        if empty.display != (not has):
            empty.display = not has
        if stats.display != has:
            stats.display = has
        if histogram.display != has:
            histogram.display = preview.display = has
        if not has:
            empty.update(Text(absent), layout=False)
        stats.update(
            render(summary) if summary is not None else "", layout=False
        )  # a summary is always 8 lines at most
        histogram.summary = summary
        preview.show(summary, node_id, self.what, element)
