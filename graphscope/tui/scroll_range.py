"""The scroll range of a line-drawn view set without a layout pass: only its scrollbars change, not its box."""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView


def set_scroll_range(view: ScrollView, size: Size) -> None:
    """Give `view` a new virtual size. Not `view.virtual_size = size`: that reactive lays out the whole
    screen again, though the view's own box does not change (a scrollbar shown or hidden still does)."""
    if size != view.virtual_size:
        view.set_reactive(ScrollView.virtual_size, size)
        view._scroll_update(size)
