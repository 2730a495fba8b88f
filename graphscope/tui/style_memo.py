"""StyleMemo: a line-drawn widget's Rich styles worked out from the CSS once per focus state, not once per line."""

from __future__ import annotations

from rich.style import Style
from textual.widget import Widget


class StyleMemo:
    """The widget's own style and its components' styles, remembered until its styles change (the
    widget calls `clear` from `notify_style_update`): render_line asks on every line, and working one
    out from the CSS (the ancestors' backgrounds) costs more than drawing the line."""

    def __init__(self, widget: Widget) -> None:
        self.widget = widget
        self._seen: dict[tuple[str, bool], Style] = {}

    def get(self, component: str = "") -> Style:
        """A component's style ("" for the widget's own)."""
        key = (component, self.widget.has_focus)
        style = self._seen.get(key)
        if style is None:
            widget = self.widget
            style = widget.get_component_rich_style(component) if component else widget.rich_style
            self._seen[key] = style
        return style

    def clear(self) -> None:
        self._seen = {}
