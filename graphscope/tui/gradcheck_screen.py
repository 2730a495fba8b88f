"""GradcheckScreen: one node's backward against central differences: analytic and numeric grads side by side, the
max error and the verdict."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from graphscope.trace.analysis.node_gradcheck import ATOL, RTOL

from .node_label import one_line
from .number_text import fit_number

NUMBER = 11  # the width of a grad or an error


def verdict(result) -> Text:
    """One line: passed, failed (with the worst error), or why it could not be checked."""
    if not result.checked:
        return Text.assemble(("? not checked: ", "bold yellow"), one_line(result.reason))
    worst = fit_number(result.max_error) if result.max_error is not None else "-"
    if result.ok:
        return Text.assemble(
            ("✓ its backward agrees with central differences", "bold green"), (f"  max error {worst}", "dim")
        )
    return Text.assemble(("✗ its backward disagrees with central differences", "bold red"), f"  max error {worst}")


def input_table(check) -> Text:
    """An input's checked elements: analytic | numeric | error, the failing ones in red. Columns of fixed widths
    written as text (a Rich Table of 64 rows was laid out again at each of the dialog's layouts)."""
    shape = check.shape
    rows = []
    for flat, a, n in zip(check.elements, check.analytic, check.numeric):
        where = "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]" if shape else "[]"
        error = abs(a - n)
        bad = error > ATOL + RTOL * abs(n)  # the check's own tolerance (a kink's one-sided match aside)
        rows.append((where, fit_number(a, NUMBER), fit_number(n, NUMBER), fit_number(error, NUMBER), bad))
    first = max([len("element")] + [len(row[0]) for row in rows])
    table = Text(no_wrap=True, overflow="ellipsis")
    headings = "  ".join(f"{h:>{NUMBER}}" for h in ("analytic", "numeric", "error"))
    table.append(f"{'element':<{first}}  {headings}", "dim")
    for where, a, n, error, bad in rows:
        table.append("\n")
        table.append(f"{where:<{first}}", "dim")
        table.append(f"  {a:>{NUMBER}}  {n:>{NUMBER}}  ")
        table.append(f"{error:>{NUMBER}}", "bold red" if bad else "")
    return table


def result_renderable(result, nodes) -> Group:
    """The verdict, then each input: its name, the elements checked and the numbers."""
    parts: list[RenderableType] = [verdict(result)]
    for check in result.inputs:
        source = nodes.get(check.node)
        name = one_line(check.label or (source.op if source is not None else "input"))
        shape = f"shape {'×'.join(map(str, check.shape))}" if check.shape else "a scalar"
        counted = f"{len(check.elements)} of {int(np.prod(check.shape)) if check.shape else 1} elements"
        mark = ("✓", "green") if check.ok else ("✗", "bold red")
        parts.append(
            Text.assemble(
                "\n",
                mark,
                " ",
                (f"input {check.position}: ", "dim"),
                (name, "bold"),
                (f" #{check.node}  {shape}  {counted}  max error {fit_number(check.max_error)}", "dim"),
                (f"  ({check.kinks} at a kink)" if check.kinks else "", "dim"),
            )
        )
        parts.append(input_table(check))
    return Group(*parts)


class GradcheckScreen(ModalScreen[None]):
    """`Debuggee.gradcheck` for one node: open at once, saying the check runs, then its result (`show_result`,
    from the worker that ran it); escape closes it, the check running or not."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,G", "dismiss", "Close")]

    DEFAULT_CSS = """
    GradcheckScreen {
        align: center middle;
        & > Vertical {
            width: 90%;
            max-width: 100;
            height: 90%;
            border: thick $primary;
            background: $surface;
        }
        & VerticalScroll { height: 1fr; padding: 0 1; }
        & #gc-note { height: auto; padding: 0 1; color: $text-muted; }
    }
    """

    def __init__(self, node, record):
        super().__init__()
        self.node = node
        self.record = record
        self.result = None  # the check's result, once it has come
        self._shown: RenderableType = Text(f"Checking the backward of #{node.id} numerically…", "dim")

    def compose(self) -> ComposeResult:
        node = self.node
        with Vertical() as box:
            box.border_title = f"gradcheck: {one_line(node.op)} #{node.id}"
            box.border_subtitle = "escape close"
            with VerticalScroll():
                yield Static(self._shown, id="gc-result")
            site = node.site
            yield Static(
                Text(
                    "Numeric: (f(x+ε) - f(x-ε)) / 2ε in float64, for a fixed random cotangent; "
                    "analytic: what its backward returns for it."
                    + (f"  {one_line(site.file.rsplit('/', 1)[-1])}:{site.line}" if site else "")
                ),
                id="gc-note",
            )

    def show_result(self, result) -> None:
        """The check's result in place of the words that it runs (called on the UI thread, composed or not)."""
        self.result = result
        self._show(result_renderable(result, self.record.nodes))

    def show_failure(self, text: str) -> None:
        """Why the check could not run, in its place."""
        self._show(Text(text, "bold red"))

    def _show(self, renderable: RenderableType) -> None:
        self._shown = renderable  # what compose shows, if it has not run yet
        for static in self.query("#gc-result").results(Static):
            static.update(renderable)
