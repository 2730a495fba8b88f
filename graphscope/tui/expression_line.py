"""ExpressionLine: the line under the console where Python is typed at a pause, and the answers above it (the
session evaluates; this widget only sends the text and shows what comes back, all as literal text)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, RichLog

from graphscope.session.evaluator import Evaluation
from graphscope.trace.record.literal import visible
from graphscope.trace.report.summary_render import render

if TYPE_CHECKING:
    from graphscope.session import Debuggee

# How many lines of an answer are shown before "… N more lines (type all)".
ANSWER_LINES = 6
# The words the line takes for itself rather than evaluating.
COMMANDS = {"up": "up", "u": "up", "down": "down", "d": "down", "where": "where", "w": "where", "all": "all"}


class ExpressionInput(Input):
    """The typed line: ↑↓ walk the history, tab completes a name in the frame, escape closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "history(-1)", "Earlier", show=False),
        Binding("down", "history(1)", "Later", show=False),
        Binding("tab", "complete", "Complete", show=False),
        Binding("escape", "close", "Close", show=False),
    ]

    def __init__(self, complete: Callable[[str], list[str]], *, id: str | None = None) -> None:
        super().__init__(placeholder="python in the paused frame · up / down · where · all · escape", id=id)
        self.complete = complete
        self.history: list[str] = []
        self.back = 0  # how far back in the history the line is (0: a new line)

    def remember(self, text: str) -> None:
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self.back = 0

    def action_history(self, delta: int) -> None:
        back = max(0, min(self.back - delta, len(self.history)))
        if back == self.back:
            return
        self.back = back
        self.value = self.history[-back] if back else ""
        self.cursor_position = len(self.value)

    def action_close(self) -> None:
        self.post_message(ExpressionLine.Closed())

    def action_complete(self) -> None:
        """The longest beginning the names that could follow share; the choices in the answers."""
        text = self.value
        start = len(text) - len(text.split()[-1]) if text.strip() and not text.endswith(" ") else len(text)
        word = text[start:]
        names = self.complete(word)
        if not names:
            return
        shared = names[0]
        for name in names[1:]:
            while not name.startswith(shared):
                shared = shared[:-1]
        if len(shared) > len(word):
            self.value = text[:start] + shared
            self.cursor_position = len(self.value)
        elif len(names) > 1:
            self.post_message(ExpressionLine.Choices(names))


class ExpressionLine(Vertical):
    """Opened by `:` at a pause; Enter sends the line to the debuggee (a live session evaluates it in
    the script's frame, a snapshot answers from the record), and the answers show above it."""

    DEFAULT_CSS = """
    ExpressionLine { display: none; height: auto; max-height: 16; border-top: solid $accent; }
    ExpressionLine.-open { display: block; }
    ExpressionLine > RichLog { height: auto; max-height: 12; background: $surface; }
    """

    class Closed(Message):
        """Escape closed the line: the keys go back to the debugger."""

    class Choices(Message):
        """The names a tab could complete to (more than one)."""

        def __init__(self, names: list[str]) -> None:
            super().__init__()
            self.names = names

    def __init__(self, debuggee: Debuggee, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.debuggee = debuggee
        self.last: Evaluation | None = None  # the answer `all` shows in full

    def compose(self) -> ComposeResult:
        yield RichLog(id="answers", wrap=False, markup=False, highlight=False, auto_scroll=True, max_lines=2000)
        yield ExpressionInput(self.debuggee.completions, id="expression")

    def open(self) -> None:
        """Show the line, saying which frame it evaluates in, and take the keys."""
        self.add_class("-open")
        self.where(self.frame_words())
        self.query_one(ExpressionInput).focus()

    def frame_words(self) -> str:
        """Which frame the line evaluates in (its title)."""
        if not self.debuggee.live:
            return "snapshot: no live frame · #id or a node's name shows its value and grad"
        frames = self.debuggee.frames()
        if not frames:
            return "python · no frame: the script is not paused"
        level = min(self.debuggee.frame_level, len(frames) - 1)
        return f"python in {frames[level]} · frame {level} of {len(frames) - 1}"

    def close(self) -> None:
        self.remove_class("-open")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def where(self, text: str) -> None:
        self.border_title = Text(visible(text))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        line = self.query_one(ExpressionInput)
        text = event.value.strip()
        line.remember(text)
        line.value = ""
        if text:
            self.run(text, COMMANDS.get(text))

    def run(self, text: str, command: str | None) -> None:
        """Move up or down the frames, list them, show the last answer in full, or evaluate."""
        debuggee = self.debuggee
        if command in ("up", "down"):
            self.note(debuggee.move_frame(1 if command == "up" else -1))
            self.where(self.frame_words())
        elif command == "where":
            frames = debuggee.frames()
            for i, frame in enumerate(frames):
                self.note(f"{'▶' if i == debuggee.frame_level else ' '} {i} {frame}")
            if not frames:
                self.note("no frames: the script is not paused")
        elif command == "all":
            if self.last is not None:
                self.answer(self.last, full=True)
        else:
            self._evaluate(text)

    @work(thread=True, exclusive=True, group="evaluate")
    def _evaluate(self, text: str) -> None:
        """Off the UI thread: the line may run the script's own code for a while."""
        answer = self.debuggee.evaluate(text)
        self.app.call_from_thread(self.answer, answer)

    def on_expression_line_closed(self, _message: ExpressionLine.Closed) -> None:
        self.close()  # and on to the app, which gives the keys back

    def on_expression_line_choices(self, message: ExpressionLine.Choices) -> None:
        self.note("  ".join(message.names[:40]) + ("  …" if len(message.names) > 40 else ""))

    def note(self, text: str, style: str = "dim") -> None:
        """A line of the debugger's own (a frame moved to, the choices of a completion)."""
        self.query_one(RichLog).write(Text(visible(text), style, no_wrap=True))

    def answer(self, evaluation: Evaluation, full: bool = False) -> None:
        """Show an answer: the typed line, then a tensor's summary as the Value tab draws it, or the
        output cut to a few lines (all of them with `full`), an error in red, the names assigned."""
        log = self.query_one(RichLog)
        if not full:
            self.last = evaluation
            log.write(Text(visible(f"› {evaluation.text}"), "bold", no_wrap=True))
        shown: list[RenderableType] = []
        lines = evaluation.output.split("\n") if evaluation.output else []
        cut = lines if full else lines[:ANSWER_LINES]
        style = "red" if evaluation.error else ""
        shown += [Text(visible(line), style, no_wrap=True, overflow="ellipsis") for line in cut]
        if len(lines) > len(cut):
            shown.append(Text(f"… {len(lines) - len(cut)} more lines (type all)", "dim"))
        if evaluation.summary is not None:
            shown.append(render(evaluation.summary))
        if evaluation.assigned:
            shown.append(Text(visible(f"assigned: {', '.join(evaluation.assigned)}"), "yellow"))
        for piece in shown:
            log.write(piece)
