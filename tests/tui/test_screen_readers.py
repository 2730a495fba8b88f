"""The tests' readers of the screen agree with Textual's screenshot: the same text, and a frame that looks
the same reads the same (so that `until_still` can tell a still screen without drawing an SVG)."""

import io

from rich.console import Console

from graphscope.session import Debuggee
from graphscope.tui.app import GraphscopeApp
from tests.hand_records import mlp_record
from tests.tui.tui_pilot import until_still
from tests.tui.tui_screen import screen_drawn, screen_text


def screenshot_text(app) -> str:
    """The text of the screen as Textual's `export_screenshot` prints it, before it becomes an SVG."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def test_the_screen_text_is_the_screenshots_text_with_a_dialog_over_the_app_too():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        for key in ("n", "n", "G"):  # G: the gradcheck screen over the app, drawn with the app under it
            await pilot.press(key)
            await until_still(pilot)
            assert screen_text(app) == screenshot_text(app), key


async def test_a_frame_reads_the_same_until_the_screen_changes():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        await until_still(pilot)
        before = screen_drawn(app)
        assert screen_drawn(app) == before
        await pilot.press("n")
        await until_still(pilot)
        assert screen_drawn(app) != before
