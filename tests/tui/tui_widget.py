"""One widget alone in an app, for pilot tests of a widget apart from the debugger."""

from __future__ import annotations

from textual.app import App, ComposeResult


class WidgetApp(App[None]):
    """Shows `widget` filling the screen."""

    def __init__(self, widget):
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget
