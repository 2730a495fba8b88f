"""What a step redraws: only what changed. A step that changes no pane's size lays nothing out (a layout
pass redraws the whole screen), and the graph tree repaints only the rows whose markers or cursor moved."""

import pytest
from textual.screen import Screen

from graphscope.session import Debuggee
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.graph_tree import GraphTree
from tests.hand_records import mlp_record
from tests.tui.tui_pilot import until_still, wait_for
from tests.tui.tui_screen import screen_text

# Wide and tall enough that the first steps' headers and chain rules fit without a scrollbar.
SIZE = (160, 50)
# mlp_record's first steps walk down the tree's rows already open: none expands a row or scrolls.
PLAIN_STEPS = 3


async def step(pilot, app) -> None:
    """Press n and wait until the step is shown and the screen is still."""
    before = app.debuggee.state
    await pilot.press("n")
    await wait_for(pilot, lambda: app.debuggee.state is not before and app.moment.state is app.debuggee.state)
    await until_still(pilot)


@pytest.mark.slow
async def test_a_step_that_changes_no_size_lays_out_nothing(monkeypatch):
    layouts = []
    lay_out = Screen._refresh_layout

    def counted(screen, *args, **kwargs):
        layouts.append(screen)
        return lay_out(screen, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.updates > 0)
        await until_still(pilot)
        for _ in range(PLAIN_STEPS):
            layouts.clear()
            await step(pilot, app)
            assert layouts == [], f"step {app.debuggee.state.step} laid out the screen"


@pytest.mark.slow
async def test_a_step_repaints_only_the_tree_rows_it_changes():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.updates > 0)
        await until_still(pilot)
        tree = app.query_one(GraphTree)
        drawn: list[int] = []
        draw = tree.render_line
        tree.render_line = lambda y: (drawn.append(y), draw(y))[1]  # type: ignore[method-assign]
        for _ in range(PLAIN_STEPS):
            left = tree.cursor
            drawn.clear()
            await step(pilot, app)
            # The row the cursor left (its ▶ now ✓) and the one it reached; the other rows are as they were.
            assert set(drawn) == {left, tree.cursor}


def tree_on_screen(app, tree) -> list[str]:
    """The tree's rows as the screen shows them."""
    x, y, width, height = tree.scrollable_content_region
    lines = screen_text(app).splitlines()[y : y + height]
    return [line[x : x + width].rstrip() for line in lines]


def tree_drawn_afresh(tree) -> list[str]:
    """The tree's rows drawn now from its rows and the moment."""
    return [tree.render_line(y).text.rstrip() for y in range(tree.scrollable_content_region.height)]


@pytest.mark.slow
async def test_the_tree_on_screen_is_the_tree_drawn_afresh_after_every_step_shown_or_hidden():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.updates > 0)
        await until_still(pilot)
        tree = app.query_one(GraphTree)
        for _ in range(len(app.debuggee.record.passes[0].order)):  # the whole pass: leaves get their ✓ too
            await step(pilot, app)
            assert tree_on_screen(app, tree) == tree_drawn_afresh(tree)
        await app.views.choose("timeline", None)  # the tree hidden while the cursor moves on
        await until_still(pilot)
        for _ in range(2):
            await step(pilot, app)
        await app.views.choose("graph", None)
        await until_still(pilot)
        assert tree_on_screen(app, tree) == tree_drawn_afresh(tree)
