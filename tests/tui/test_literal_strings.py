"""Script strings are shown literally: `[/]`, `[bold`, `[@click=app.quit]x` neither crash, style nor act."""

import pytest

from graphscope.session import Debuggee
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.breakpoints_screen import BreakpointsScreen
from graphscope.tui.console_pane import ConsolePane
from graphscope.tui.find_dialog import FindDialog
from graphscope.tui.graph_tree import GraphTree
from graphscope.tui.node_details import NodeDetails
from tests.hand_records import HOSTILE, hostile_record
from tests.tui.tui_live import SCRIPTS, live_app, until_settled
from tests.tui.tui_pilot import wait_for, wait_for_text
from tests.tui.tui_screen import screen_text

ACTION = "[@click=app.quit]x"
SOURCE = "runs/[bold]snap[@click=app.quit]x.json"


def make_app():
    return GraphscopeApp(Debuggee(hostile_record(), SOURCE))


async def click_every(pilot, text: str) -> int:
    """Click each place `text` is shown; returns how many there were."""
    clicks = 0
    for y, line in enumerate(screen_text(pilot.app).splitlines()):
        x = line.find(text)
        while x != -1:
            await pilot.click(offset=(x + 1, y))
            clicks += 1
            x = line.find(text, x + 1)
    return clicks


async def test_names_ops_and_modules_show_literally_in_the_graph_and_details():
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        tree = app.query_one(GraphTree)
        await wait_for(pilot, lambda: tree.rows)
        for node_id in app.debuggee.record.nodes:
            tree.reveal_node(node_id)
        await pilot.pause()
        text = screen_text(app)
        for s in HOSTILE:
            assert f"op{s}" in text
        assert "model.[" in text


async def test_the_console_and_the_traceback_show_literally():
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press("C")  # to the end of the run, where it failed: the traceback is known there
        await wait_for_text(pilot, "Traceback [/]")
        shown = [strip.text.rstrip() for strip in app.query_one(ConsolePane).lines]  # scrolled or not
        assert shown == ["print [/]", "print [bold", f"print {ACTION}", "Traceback [/]", "[bold]", ACTION]


async def test_the_snapshot_name_shows_literally_in_the_stepper():
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_for_text(pilot, "snapshot [bold]snap[@click=app.quit]x.json")


@pytest.mark.parametrize("view", ["modules", "timeline", "passes"])
async def test_every_view_shows_the_names_literally(view):
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        while app.query_one("#views").current != view:
            await pilot.press("v")
        if view == "modules":
            await pilot.press("home", "enter", "down", "enter")
        await pilot.pause()
        text = screen_text(app)
        assert "[/]" in text and "[bold" in text and ACTION in text


async def test_the_details_tabs_show_names_literally():
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        record = app.debuggee.record
        tabs = app.query_one("#detail-tabs")
        for tab, wanted in (("tab-flow", "op["), ("tab-saved", "["), ("tab-source", ".py:")):
            tabs.active = tab
            await pilot.pause()
            assert wanted in screen_text(app)
        assert app.query_one(NodeDetails).node_id in record.nodes


@pytest.mark.slow
async def test_clicking_a_name_that_looks_like_a_click_action_does_nothing():
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_for_text(pilot, ACTION)
        assert await click_every(pilot, ACTION) > 0
        await pilot.pause()
        assert app.is_running


@pytest.mark.slow
async def test_find_shows_and_finds_hostile_names():
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press("slash", *"[@click")
        await wait_for(pilot, lambda: isinstance(app.screen, FindDialog))
        await wait_for_text(pilot, "match")
        assert ACTION in screen_text(app)
        await click_every(pilot, ACTION)
        assert app.is_running


async def test_a_breakpoint_on_a_hostile_op_is_listed_literally():
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press("B")
        await wait_for(pilot, lambda: isinstance(app.screen, BreakpointsScreen))
        await pilot.press(*"op [bold", "enter")
        await wait_for_text(pilot, "op [bold")
        await pilot.press("escape")
        assert app.is_running


async def test_a_live_script_with_hostile_modules_prints_and_stderr():
    with live_app(SCRIPTS / "hostile_names.py", pause=False) as (app, session):
        async with app.run_test(size=(140, 45)) as pilot:
            await until_settled(pilot, session, ("finished", "failed"))
            await wait_for_text(pilot, "print [/] [bold [@click=app.quit]x")
            await wait_for_text(pilot, "err [/] [@click=app.quit]x")
            await pilot.press("v", "home", "enter")
            await wait_for_text(pilot, "[bold")
            await click_every(pilot, ACTION)
            assert app.is_running
