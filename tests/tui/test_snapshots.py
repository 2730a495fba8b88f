"""Screenshots of the main screens at 80x24 and 120x40 (pytest-textual-snapshot; update with --snapshot-update)."""

import pytest

from graphscope.session import Debuggee
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.graph_picture import GraphPicture
from graphscope.tui.help_screen import HelpScreen
from graphscope.tui.training_view import TrainingView
from tests.hand_records import mlp_record, nan_record
from tests.training_records import training_record
from tests.tui.tui_live import SAMPLES, SCRIPTS, live_app, until_paused, until_settled
from tests.tui.tui_pilot import until_still, wait_for

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


@SIZES
def test_paused_at_the_first_step(snap_compare, size):
    with live_app(SCRIPTS / "tiny_mlp.py") as (app, session):

        async def paused(pilot):
            await until_paused(pilot, session)
            await pilot.wait_for_scheduled_animations()  # the tab underline slides to the Rule tab

        assert snap_compare(app, terminal_size=size, run_before=paused)


@SIZES
def test_the_nan_origin(snap_compare, size):
    with live_app(SCRIPTS / "nan_origin.py") as (app, session):

        async def at_the_origin(pilot):
            await until_paused(pilot, session)
            await pilot.press("exclamation_mark")
            await wait_for(
                pilot,
                lambda: (
                    app.query_one("#details").node_id is not None
                    and session.record.nodes[app.query_one("#details").node_id].op == "log"
                ),
            )
            await pilot.wait_for_scheduled_animations()

        assert snap_compare(app, terminal_size=size, run_before=at_the_origin)


@SIZES
def test_a_finished_run(snap_compare, size):
    with live_app(SCRIPTS / "tiny_mlp.py", pause=False) as (app, session):

        async def finished(pilot):
            await until_settled(pilot, session, ("finished",))
            await pilot.wait_for_scheduled_animations()

        assert snap_compare(app, terminal_size=size, run_before=finished)


@SIZES
def test_the_rule_view_while_stepping(snap_compare, size):
    with live_app(SAMPLES / "gradients_of_an_equation.py") as (app, session):

        async def three_steps_in(pilot):
            await until_paused(pilot, session)
            for _ in range(3):
                count = app.updates
                await pilot.press("n")
                await wait_for(pilot, lambda count=count: app.updates > count)
                await until_settled(pilot, session)
            await pilot.wait_for_scheduled_animations()

        assert snap_compare(app, terminal_size=size, run_before=three_steps_in)


@SIZES
def test_the_help_screen(snap_compare, size):
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))

    async def help_open(pilot):
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))

    assert snap_compare(app, terminal_size=size, run_before=help_open)


@SIZES
def test_the_training_view(snap_compare, size):
    app = GraphscopeApp(Debuggee(training_record(), "snap.json"))

    async def two_passes_on(pilot):
        await pilot.press("t")
        await wait_for(pilot, lambda: app.views.current == "training" and app.query_one(TrainingView).picked == 0)
        await pilot.press("right", "right")
        await wait_for(pilot, lambda: app.query_one(TrainingView).picked == 2)
        await until_still(pilot)

    assert snap_compare(app, terminal_size=size, run_before=two_passes_on)


@SIZES
def test_the_picture_view_at_a_nan(snap_compare, size):
    record = nan_record()
    app = GraphscopeApp(Debuggee(record, "snap.json"))

    async def drawn(pilot):
        await pilot.press("C", "p")  # pass 1's last step: the matmul its NaN came from
        await wait_for(pilot, lambda: app.debuggee.state.node == record.passes[1].order[-1])
        await pilot.press("d")
        await wait_for(pilot, lambda: app.query_one(GraphPicture).cursor == record.passes[1].order[-1])
        await pilot.wait_for_scheduled_animations()

    assert snap_compare(app, terminal_size=size, run_before=drawn)
