"""HelpScreen: every key of the debugger (from the key table), grouped, and what the graph views' markers mean."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from .keys import help_groups
from .moment import BREAKPOINT, CURRENT, FAILED, NONFINITE, PARAMETER, STEPPED

MARKERS = (
    (CURRENT, "bold yellow", "the current backward step"),
    (STEPPED, "green", "stepped: its grads are known"),
    (BREAKPOINT, "bold red", "a breakpoint"),
    (NONFINITE, "bold red", "holds a NaN or an Inf (value or grad)"),
    (FAILED, "bold red", "the node being stepped when the script failed"),
    (
        PARAMETER,
        "cyan",
        "a leaf that requires grad (a parameter, or a tensor made with requires_grad=True): "
        "backward adds into its .grad",
    ),
    ("↪", "dim", "a link to a node shown elsewhere in the tree (the graph is a DAG)"),
)


def help_renderable() -> Group:
    parts: list[RenderableType] = [Text("graphscope: step through a neural network's backward pass", "bold")]
    for title, rows in help_groups():
        table = Table(
            box=None, show_header=False, padding=(0, 2), title=title, title_justify="left", title_style="bold blue"
        )
        table.add_column(style="bold yellow", no_wrap=True, width=9)
        table.add_column()
        for key, what in rows:
            table.add_row(Text(key), Text(what))  # Text: "[ ]" in a line must not read as markup
        parts += [Text(""), table]
    markers = Table(
        box=None,
        show_header=False,
        padding=(0, 2),
        title="Markers in the graph views",
        title_justify="left",
        title_style="bold blue",
    )
    markers.add_column(no_wrap=True, width=9)
    markers.add_column()
    for mark, style, what in MARKERS:
        markers.add_row(Text(mark, style), Text(what))
    parts += [Text(""), markers]
    return Group(*parts)


class HelpScreen(ModalScreen[None]):
    """Escape or ? closes it; q quits the app, as everywhere (the footer says so)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark", "dismiss", "Close", priority=True),
        Binding("q", "app.quit", "Quit", priority=True),
    ]

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > VerticalScroll {
            width: 90%;
            max-width: 96;
            height: 90%;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
    }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll() as body:
            body.border_title = "help"
            body.border_subtitle = "escape to close · q to quit"
            yield Static(help_renderable())
