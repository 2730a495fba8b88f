"""TextPane: a scrolling pane of wrapped literal text that redraws without a layout pass (the Rule tab changes on
every step)."""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .scroll_range import set_scroll_range
from .style_memo import StyleMemo


class TextPane(ScrollView, can_focus=True):
    """Holds one Text, wrapped to its width into lines when set or resized; only the lines on screen
    are drawn, and a new text changes its virtual size, never the screen's layout."""

    DEFAULT_CSS = """
    TextPane { height: 1fr; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.text = Text()
        self._lines: list[Strip] = []
        self._width = 0
        self._style = StyleMemo(self)

    def set_text(self, text: Text) -> None:
        if text.plain == self.text.plain and text.spans == self.text.spans:
            return
        self.text = text
        self._wrap()

    @property
    def lines(self) -> list[str]:
        """The wrapped lines as shown (tests read them)."""
        return [strip.text for strip in self._lines]

    def _wrap(self) -> None:
        # Wrapped once more when the new length shows or hides the scrollbar, which changes the width to wrap at.
        for _ in range(3):
            self._wrap_at(self.scrollable_content_region.width)
            if self.scrollable_content_region.width == self._width:
                break
        self.refresh()

    def _wrap_at(self, width: int) -> None:
        self._width = width
        if width <= 0:
            self._lines = []
        else:
            console = self.app.console
            options = console.options.update_width(width)
            self._lines = [Strip(line) for line in console.render_lines(self.text, options, pad=False)]
        set_scroll_range(self, Size(width, len(self._lines)))

    def on_resize(self, _event: events.Resize) -> None:
        if self.scrollable_content_region.width != self._width:
            self._wrap()

    def notify_style_update(self) -> None:
        self._style.clear()
        super().notify_style_update()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = y + self.scroll_offset.y
        style = self._style.get()
        if row >= len(self._lines):
            return Strip.blank(width, style)
        strip = self._lines[row]
        return (
            Strip(Segment.apply_style(strip, post_style=None, style=style), strip.cell_length)
            .extend_cell_length(width, style)
            .crop(0, width)
        )
