"""One widget alone in an app, for pilot tests of a widget apart from the debugger."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.message import Message


class WidgetApp(App[None]):
    """Shows `widget` filling the screen and keeps every message its widgets post (in `messages`)."""

    def __init__(self, widget):
        super().__init__()
        self.widget = widget
        self.messages: list[Message] = []

    def compose(self) -> ComposeResult:
        yield self.widget

    def on_message(self, message: Message) -> None:  # bubbled up from the widget
        self.messages.append(message)
