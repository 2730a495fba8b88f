"""ScriptInput: the line where the user answers the script's input(), so the script never reads the app's terminal."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import Input

from graphscope.trace.record.literal import visible


class ScriptInput(Input):
    """Shown, with the script's prompt as its title, while the script waits in input(); Enter sends
    the line. Escape gives the keys back to the debugger (Ctrl+Q quits from here too)."""

    DEFAULT_CSS = """
    ScriptInput { display: none; height: 3; border: tall $warning; }
    ScriptInput.-asking { display: block; }
    """

    class Answered(Message):
        """The user typed a line for the script."""

        def __init__(self, text: str):
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None):
        super().__init__(placeholder="type the script's input and press Enter", id=id)
        self.prompt: str | None = None

    def ask(self, prompt: str | None) -> None:
        """Show the line for `prompt` (None: hide it)."""
        if prompt == self.prompt:
            return
        self.prompt = prompt
        self.set_class(prompt is not None, "-asking")
        if prompt is not None:
            self.border_title = Text(
                f"the script asks: {visible(prompt)}" if prompt.strip() else "the script waits for input"
            )
            self.value = ""
            self.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Answered(event.value))
