"""The source pane wraps a long line instead of cutting it at the pane's edge."""

from graphscope.trace.record.model import SourceSite
from graphscope.tui.source_view import SourceView
from tests.tui.tui_pilot import wait_for
from tests.tui.tui_screen import screen_text
from tests.tui.tui_widget import WidgetApp

LINE = "loss = criterion(model(inputs), targets) + weight_decay * sum(p.pow(2).sum() for p in params)"


async def every_word_shown(pilot):
    """Each word of the line is on screen (wrapped, possibly, but none cut off at the edge)."""
    await wait_for(pilot, lambda: all(word in screen_text(pilot.app) for word in LINE.split()), what="the whole line")


async def test_a_long_line_of_the_script_wraps(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import graphscope as gs\n\n" + LINE + "\nprint(loss)\n")
    view = SourceView()
    async with WidgetApp(view).run_test(size=(50, 20)) as pilot:
        view.show(SourceSite(str(script), 3, "<module>", LINE))
        await every_word_shown(pilot)


async def test_a_kept_line_wraps_when_the_file_is_gone(tmp_path):
    view = SourceView()
    async with WidgetApp(view).run_test(size=(50, 20)) as pilot:
        view.show(SourceSite(str(tmp_path / "gone.py"), 3, "<module>", LINE))
        await every_word_shown(pilot)
