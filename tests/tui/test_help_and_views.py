"""The help screen's q quits as the footer says and its legend says what each marker marks; the view names
respond to a click, and shorten where they do not fit."""

import io

import pytest
from rich.console import Console

from graphscope.trace.record.model import PARAMETER, Node
from graphscope.tui.help_screen import HelpScreen, help_renderable
from graphscope.tui.moment import PARAMETER as PARAMETER_MARK
from graphscope.tui.node_label import node_text
from graphscope.tui.view_bar import ViewBar
from graphscope.tui.views import SHORT_TITLES, VIEW_TITLES, VIEWS
from tests.tui.tui_pilot import wait_for
from tests.tui.tui_widget import WidgetApp


def test_the_legend_says_what_the_diamond_marks_every_leaf_that_requires_grad():
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(help_renderable())
    legend = next(line for line in console.export_text().splitlines() if PARAMETER_MARK in line)
    assert "a leaf that requires grad" in legend and "requires_grad=True" in legend
    leaf = Node(0, PARAMETER, "x", requires_grad=True, is_leaf=True)  # `gs.tensor(..., requires_grad=True)`
    assert node_text(leaf).plain.startswith(PARAMETER_MARK)


async def test_q_in_the_help_screen_quits_the_app():
    app = WidgetApp(ViewBar())
    async with app.run_test() as pilot:
        app.push_screen(HelpScreen())
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, what="the app to quit")


@pytest.mark.parametrize("key", ["escape", "question_mark"])
async def test_escape_and_question_mark_close_the_help(key):
    app = WidgetApp(ViewBar())
    async with app.run_test() as pilot:
        app.push_screen(HelpScreen())
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press(key)
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
        assert app.is_running


class ChoosingApp(WidgetApp):
    def __init__(self):
        super().__init__(ViewBar())
        self.chosen: list[str] = []

    def on_view_bar_chosen(self, message: ViewBar.Chosen) -> None:
        self.chosen.append(message.view)


@pytest.mark.parametrize("view", VIEWS)
async def test_a_click_on_a_view_name_chooses_that_view(view):
    app = ChoosingApp()
    async with app.run_test(size=(60, 5)) as pilot:
        bar = app.query_one(ViewBar)
        bar.show(VIEWS, {v: v for v in VIEWS}, "graph")
        await pilot.pause()
        column = 1 + " ".join(VIEWS).index(view) + 2  # the bar's padding, then into the name
        await pilot.click(ViewBar, offset=(column, 0))
        await wait_for(pilot, lambda: app.chosen == [view])


@pytest.mark.parametrize("view", VIEWS)
async def test_where_the_names_do_not_fit_they_are_shortened_and_a_click_still_chooses(view):
    app = ChoosingApp()
    async with app.run_test(size=(31, 5)) as pilot:  # the left pane at 80 columns
        bar = app.query_one(ViewBar)
        bar.show(VIEWS, VIEW_TITLES, view, short=SHORT_TITLES)  # the current view is always in sight
        await pilot.pause()
        shown = str(bar.render()).rstrip()
        assert shown in ("graph mod time pass find …", "… mod time pass find train dag")
        await pilot.click(ViewBar, offset=(1 + shown.index(SHORT_TITLES[view]) + 1, 0))
        await wait_for(pilot, lambda: app.chosen == [view])


async def test_a_click_between_names_chooses_nothing():
    app = ChoosingApp()
    async with app.run_test(size=(60, 5)) as pilot:
        bar = app.query_one(ViewBar)
        bar.show(VIEWS, {v: v for v in VIEWS}, "graph")
        await pilot.pause()
        await pilot.click(ViewBar, offset=(1 + len("graph"), 0))
        await pilot.click(ViewBar, offset=(58, 0))
        await pilot.pause()
        assert app.chosen == []


@pytest.mark.parametrize(
    ("width", "current", "shown"),
    [
        (40, 0, (0, 7)),  # all fit
        (30, 0, (0, 5)),  # from the first, "…" for the rest
        (30, 6, (1, 7)),  # moved right until the current one is in
        (30, 5, (1, 7)),
        (3, 3, (3, 4)),  # too narrow for two: the current one alone
    ],
)
def test_the_view_bar_keeps_the_current_view_in_sight(width, current, shown):
    from graphscope.tui.view_bar import shown_window

    lengths = [len(t) for t in ("graph", "mod", "time", "pass", "find", "train", "dag")]
    assert shown_window(lengths, current, width) == shown
