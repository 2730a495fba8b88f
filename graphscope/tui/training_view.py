"""TrainingView: the record's training series plotted over the passes (training_plots draws them); ← → pick a
pass and enter (or a click on a chart) moves the debugger's cursor there; [ ] and a pick the parameters drawn."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from graphscope.trace.record.training import TrainingSeries
from graphscope.trace.report.line_chart import pass_at

from .moment import Moment
from .training_plots import GUTTER, Chart, Picture, Plot, axis_length, drawn_plots, pass_marks, picture

EMPTY = "No training series in this record."
EMPTY_WHY = (
    "The training view plots each pass's loss, grad norms, update-to-data ratios, learning rates, "
    "activations and logged scalars. This record holds none: no backward pass has run yet, or the "
    "snapshot was written before they were recorded."
)
SHORT, TALL = 20, 34  # the view's height under which a chart is 3 rows tall, 4 rows; from TALL on, 6


class TrainingView(VerticalScroll, can_focus=True):
    """The charts of `training_plots`, kept while only the cursor or the pick moves."""

    DEFAULT_CSS = """
    TrainingView {
        background: $surface;
        padding: 0 0 0 1;
        scrollbar-size-vertical: 1;
        & > #training-plots { width: 1fr; height: auto; }
        &:focus { background-tint: $foreground 3%; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "pick(-1)", "Earlier pass", show=False),
        Binding("right", "pick(1)", "Later pass", show=False),
        Binding("shift+left", "pick(-10)", "10 passes earlier", show=False),
        Binding("shift+right", "pick(10)", "10 passes later", show=False),
        Binding("enter", "choose", "Go to pass", show=False),
        Binding("left_square_bracket", "parameter(-1)", "Previous parameter", show=False),
        Binding("right_square_bracket", "parameter(1)", "Next parameter", show=False),
        Binding("a", "all_parameters", "All parameters", show=False),
    ]

    class Chosen(Message):
        """A pass was chosen (enter, or a click on a chart): move the debugger's cursor to it."""

        def __init__(self, position: int):
            super().__init__()
            self.position = position

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.moment: Moment | None = None
        self.picked: int | None = None  # the pass position the keys move (the pick), shown by its column
        self.parameter: int | None = None  # the one parameter drawn (its place in series.params); None: all
        self._cursor: int | None = None  # the debugger's cursor pass when last shown: the pick follows it
        self._shown_key: tuple = ()
        self._drawn_key: tuple = ()
        self._drawn: list[tuple[Plot, Chart]] = []
        self._marks_key: tuple = ()
        self._marks: dict[int, str] = {}
        self._picture: Picture | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="training-plots")

    def show_training(self, moment: Moment) -> None:
        """Draw the record's series at the moment's cursor (again only when something drawn changed)."""
        self.moment = moment
        record = moment.record
        series = record.training
        plots = self.query_one("#training-plots", Static)
        if series.empty():
            self._picture = None
            if self._shown_key != ("empty",):
                self._shown_key = ("empty",)
                plots.update(Text.assemble((EMPTY, "bold"), "\n\n", (EMPTY_WHY, "dim")))
            return
        count = max(axis_length(series), 1)
        state = moment.state
        cursor = state.pass_index if state is not None and state.pass_index is not None else None
        if cursor != self._cursor or self.picked is None:
            self._cursor = cursor
            self.picked = cursor if cursor is not None else count - 1
        self.picked = max(0, min(self.picked, count - 1))
        width = self.scrollable_content_region.width - 1  # the vertical scrollbar's column, there or not
        if width <= 0:
            self.call_after_refresh(self._show_again)  # not laid out yet
            return
        height = self.size.height
        plot_height = 3 if height < SHORT else 4 if height < TALL else 6
        shown = self._shown(series)
        grown = (id(series), series.passes, sum(len(s.value) for s in series.scalars.values()))
        drawn_key = (*grown, tuple(shown), width, plot_height)
        if drawn_key != self._drawn_key:
            self._drawn_key = drawn_key
            self._drawn = drawn_plots(series, shown, width, plot_height)
        marks_key = (*grown, len(record.passes), len(record.findings))
        if marks_key != self._marks_key:
            self._marks_key = marks_key
            self._marks = pass_marks(series, record.passes, record.findings)
        key = (drawn_key, marks_key, cursor, self.picked)
        if key == self._shown_key:
            return
        self._shown_key = key
        numbers = [p.index for p in record.passes]
        before = self._picture
        self._picture = picture(
            series, self._marks, cursor, self.picked, shown, width, plot_height, numbers, self._drawn
        )
        # A new pass under the cursor redraws the same lines: the screen is laid out again only when
        # their number changes (the charts never wrap: each line is cut to the width).
        plots.update(self._picture.text, layout=before is None or _rows(before) != _rows(self._picture))

    def set_moment(self, moment: Moment) -> None:
        self.show_training(moment)

    def _show_again(self) -> None:
        if self.moment is not None and self.scrollable_content_region.width > 0:
            self.show_training(self.moment)

    def on_resize(self) -> None:
        self._show_again()

    def _shown(self, series: TrainingSeries) -> list[str]:
        names = list(series.params)
        if self.parameter is None or not names:
            return names
        return [names[self.parameter % len(names)]]

    def action_pick(self, delta: int) -> None:
        if self.moment is None or self.picked is None:
            return
        self.picked += delta
        self.show_training(self.moment)

    def action_choose(self) -> None:
        if self.picked is not None and self._picture is not None:
            self.post_message(self.Chosen(self.picked))

    def action_parameter(self, delta: int) -> None:
        if self.moment is None:
            return
        count = len(self.moment.record.training.params)
        if not count:
            return
        if self.parameter is None:
            self.parameter = 0 if delta > 0 else count - 1
        else:
            self.parameter = (self.parameter + delta) % count
        self.show_training(self.moment)

    def action_all_parameters(self) -> None:
        self.parameter = None
        if self.moment is not None:
            self.show_training(self.moment)

    def on_click(self, event: events.Click) -> None:
        """A click on a chart (or the marks or the axis) at a pass's column chooses that pass."""
        shown = self._picture
        offset = event.get_content_offset(self)
        if shown is None or offset is None:
            return
        line, column = offset.y + round(self.scroll_y), offset.x
        if line not in shown.pass_lines or column < GUTTER:
            return
        cell = column - GUTTER
        if cell >= shown.width:
            return
        event.stop()
        self.picked = pass_at(cell, shown.count, shown.width)
        if self.moment is not None:
            self.show_training(self.moment)
        self.post_message(self.Chosen(self.picked))


def _rows(shown: Picture) -> int:
    return shown.text.plain.count("\n") + 1
