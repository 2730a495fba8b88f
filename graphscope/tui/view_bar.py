"""ViewBar: the names of the left pane's views, the current one lit (shortened where they do not fit); v cycles
them, a click picks one."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static


class ViewBar(Static):
    """One line above the graph views; a click on a name posts `Chosen` with its view."""

    DEFAULT_CSS = """
    ViewBar { height: 1; padding: 0 0 0 1; background: $panel; }
    """

    class Chosen(Message):
        """A view's name was clicked: show that view."""

        def __init__(self, view: str):
            super().__init__()
            self.view = view

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self._spans: list[tuple[int, int, str]] = []  # (first column, past the last, view)
        self._shown: tuple = ((), {}, "", None)

    def show(
        self, views: tuple[str, ...], titles: dict[str, str], current: str, short: dict[str, str] | None = None
    ) -> None:
        """Name the views, `current` lit: by `titles`, or by `short` where those do not fit."""
        self._shown = (views, titles, current, short)
        width = self.content_region.width
        if short is not None and width and sum(len(titles[v]) + 1 for v in views) - 1 > width:
            titles = short
        at = views.index(current) if current in views else 0
        first, last = shown_window([len(titles[v]) for v in views], at, width)
        text = Text(no_wrap=True, overflow="ellipsis")
        self._spans = []
        if first:
            text.append("… ", "dim")
        for i in range(first, last):
            view = views[i]
            if i > first:
                text.append(" ")
            start = text.cell_len
            text.append(titles[view], "bold reverse" if view == current else "dim")
            self._spans.append((start, text.cell_len, view))
        if last < len(views):
            text.append(" …", "dim")
        self.update(text)

    def on_resize(self) -> None:
        if self._shown[0]:
            self.show(*self._shown)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for start, end, view in self._spans:
            if start <= offset.x < end:
                event.stop()
                self.post_message(self.Chosen(view))
                return


def shown_window(lengths: list[int], current: int, width: int) -> tuple[int, int]:
    """The views [first, last) shown in `width` columns: all when they fit, else as many as fit from the
    first, moved right until the current one is among them ("…" marks those left out on either side)."""
    if not width or sum(lengths) + len(lengths) - 1 <= width:
        return 0, len(lengths)

    def fits(first: int, last: int) -> bool:
        marks = (2 if first else 0) + (2 if last < len(lengths) else 0)
        return sum(lengths[first:last]) + (last - first - 1) + marks <= width

    first = 0
    while True:
        last = first + 1
        while last < len(lengths) and fits(first, last + 1):
            last += 1
        if current < last or first == current:
            return first, last
        first += 1
