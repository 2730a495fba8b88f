"""`graphscope view a.json --against b.json`: differing nodes marked ≠, both values side by side, bad input refused."""

import dataclasses

import numpy as np
import pytest
from textual.widgets import TabbedContent

from graphscope.session import Debuggee
from graphscope.trace import snapshot
from graphscope.trace.analysis.run_diff import diff
from graphscope.trace.record.comparison import Against
from graphscope.trace.stats.summarize import summarize
from graphscope.tui import launch
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.node_details import NodeDetails
from tests.hand_records import mlp_record
from tests.tui.tui_pilot import wait_for, wait_for_text
from tests.tui.tui_screen import screen_text

RELU = 8  # the first pass's relu in mlp_record: the node the other run changes
SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


def other_run():
    """mlp_record with the first pass's relu output doubled."""
    b = mlp_record()
    relu = b.nodes[RELU]
    b.nodes[RELU] = dataclasses.replace(relu, output=summarize(np.asarray(relu.output.values) * 2))
    return b


def against_app():
    a, b = mlp_record(), other_run()
    return GraphscopeApp(Debuggee(a, "a.json"), against=Against("b.json", b, diff(a, b)))


def show_against(app):
    app.query_one("#detail-tabs", TabbedContent).active = "tab-against"


async def test_a_node_that_agrees_says_so_and_one_that_differs_shows_both_values():
    app = against_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.query_one(NodeDetails).node_id is not None)
        show_against(app)
        await wait_for_text(pilot, "≈ the same within rtol 1e-05")  # the loss (mean): the change is not in it
        await pilot.press("n", "n", "n", "n")  # mean, mul, sub, matmul: then the relu's step
        await wait_for(pilot, lambda: app.query_one(NodeDetails).node_id == RELU)
        show_against(app)
        await wait_for_text(pilot, "≠ values differ (compared by values)")
        text = screen_text(app)
        assert "this run" in text and "b.json" in text
        assert "≠" in text.split("≠ values differ")[0]  # the relu's row in the tree carries the mark


async def test_without_against_there_is_no_against_tab():
    app = GraphscopeApp(Debuggee(mlp_record(), "a.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.query_one(NodeDetails).node_id is not None)
        assert not app.query("#tab-against")
        assert "≠" not in screen_text(app)


@SIZES
def test_the_against_tab_on_a_node_that_differs(snap_compare, size):
    app = against_app()
    app.animation_level = "none"  # the tab underline slides otherwise: the screen would depend on timing

    async def at_the_relu(pilot):
        await pilot.press("n", "n", "n", "n")
        await wait_for(pilot, lambda: app.query_one(NodeDetails).node_id == RELU)
        show_against(app)
        await wait_for_text(pilot, "≠ values differ")
        await pilot.wait_for_scheduled_animations()

    assert snap_compare(app, terminal_size=size, run_before=at_the_relu)


def test_an_unreadable_against_file_says_so_and_returns_2(tmp_path, capsys):
    good = tmp_path / "a.json"
    snapshot.dump(mlp_record(), good)
    assert launch.view(str(good), against=str(tmp_path / "nope.json")) == 2
    captured = capsys.readouterr()
    assert "nope.json" in captured.err and captured.out == ""
