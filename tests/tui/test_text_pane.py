"""TextPane: wrapped literal text that fits the width it can show, beside its scrollbar too."""

from rich.text import Text

from graphscope.tui.text_pane import TextPane
from tests.tui.tui_pilot import wait_for
from tests.tui.tui_widget import WidgetApp


async def test_text_that_grows_a_scrollbar_is_wrapped_again_beside_it():
    pane = TextPane()
    async with WidgetApp(pane).run_test(size=(40, 10)) as pilot:
        pane.set_text(Text("short"))
        await pilot.pause()
        assert not pane.show_vertical_scrollbar
        long = " ".join(f"{i}.25" for i in range(100))
        pane.set_text(Text(long))
        await wait_for(pilot, lambda: pane.show_vertical_scrollbar, what="the scrollbar shown")
        width = pane.scrollable_content_region.width
        assert max(len(line.rstrip()) for line in pane.lines) <= width
        assert " ".join(" ".join(pane.lines).split()) == long  # no number cut


async def test_text_that_loses_its_scrollbar_is_wrapped_to_the_whole_width():
    pane = TextPane()
    async with WidgetApp(pane).run_test(size=(40, 10)) as pilot:
        pane.set_text(Text(" ".join(["word"] * 200)))
        await wait_for(pilot, lambda: pane.show_vertical_scrollbar, what="the scrollbar shown")
        pane.set_text(Text(" ".join(["word"] * 14)))
        await wait_for(pilot, lambda: not pane.show_vertical_scrollbar, what="the scrollbar gone")
        assert pane.lines[0].rstrip() == " ".join(["word"] * 7)
