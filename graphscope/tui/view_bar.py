"""ViewBar: the names of the left pane's views, the current one lit (v cycles them)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class ViewBar(Static):
    """One line above the graph views."""

    DEFAULT_CSS = """
    ViewBar { height: 1; padding: 0 1; background: $panel; }
    """

    def show(self, views: tuple[str, ...], titles: dict[str, str], current: str) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        for i, view in enumerate(views):
            if i:
                text.append(" ")
            text.append(titles[view], "bold reverse" if view == current else "dim")
        self.update(text)
