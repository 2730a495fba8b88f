"""The app's screen as plain text, the way the SVG screenshot sees it (for assertions on what is shown), and as
drawn, styles included (to tell when it stops changing)."""

from __future__ import annotations

from rich.segment import Segment


def _lines(app) -> list[list[Segment]]:
    """The whole screen rendered afresh, as a screenshot renders it: its segments line by line (cursor moves,
    which carry no text, left out)."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return [[segment for strip in line for segment in strip if not segment.control] for line in update.strips]


def screen_text(app) -> str:
    """The screen's characters, line by line (what the screenshot's console would export as text)."""
    return "\n".join("".join(segment.text for segment in line) for line in _lines(app))


def screen_drawn(app) -> list[list[tuple]]:
    """The screen as drawn: each character with its style (colours, attributes, links); two frames that look
    the same are equal, and telling so costs no SVG."""
    return [[(segment.text, segment.style) for segment in line] for line in _lines(app)]
