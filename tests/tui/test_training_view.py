"""The training view: the series plotted over the passes, marks where passes went wrong, a pass picked with the keys
or a click moves the debugger's cursor there, keys pick the parameters drawn, and a record without a series says so."""

from dataclasses import replace

import numpy as np
import pytest
from rich.text import Text
from textual.widgets import Static

from graphscope.session import Debuggee, State
from graphscope.trace.record.model import NAN_ORIGIN, Finding
from graphscope.trace.record.training import TrainingSeries
from graphscope.trace.report.line_chart import pass_cell
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.moment import Moment
from graphscope.tui.record_index import RecordIndex
from graphscope.tui.training_plots import GUTTER, MARKS, pass_marks, picture
from graphscope.tui.training_view import EMPTY, TrainingView
from tests.hand_records import mlp_record
from tests.training_records import EXPLODING_PASS, NAN_PASS, PASSES, VANISHING_PASS, training_record, training_series
from tests.tui.tui_live import SCRIPTS, live_app, until_paused, until_settled
from tests.tui.tui_pilot import wait_for, wait_for_notice, wait_for_text
from tests.tui.tui_widget import WidgetApp

SIZE = (120, 40)


async def open_training(pilot, app) -> TrainingView:
    await pilot.press("t")
    view = app.query_one(TrainingView)
    await wait_for(pilot, lambda: app.views.current == "training" and view._picture is not None, what="the charts")
    return view


async def shown_alone(pilot, view: TrainingView, record) -> None:
    """The view by itself, at a snapshot's first cursor, focused."""
    view.show_training(Moment(RecordIndex(record), Debuggee(record).state))
    view.focus()
    await wait_for(pilot, lambda: view._picture is not None or view._shown_key == ("empty",), what="drawn")


def marks_row(view: TrainingView) -> str:
    """The marks row's pass cells (the second line of the view's text)."""
    assert view._picture is not None
    return view._picture.text.plain.splitlines()[1][GUTTER:]


def test_the_marks_say_which_passes_went_wrong_gravest_first():
    record = training_record()
    marks = pass_marks(record.training, record.passes, [])
    assert marks == {NAN_PASS: NAN_ORIGIN, EXPLODING_PASS: "exploding-grad", VANISHING_PASS: "vanishing-grad"}


def test_a_nan_finding_marks_its_pass_and_an_inf_grad_norm_marks_its_own():
    series = training_series()
    series.params["fc2.weight"].grad_norm[1] = np.inf
    record = training_record()
    marks = pass_marks(series, record.passes, [Finding(NAN_ORIGIN, "log of 0", 3, 2)])
    assert marks[1] == NAN_ORIGIN and marks[2] == NAN_ORIGIN and marks[NAN_PASS] == NAN_ORIGIN


def test_the_picture_draws_each_chart_with_the_values_at_the_picked_pass():
    record = training_record()
    marks = pass_marks(record.training, record.passes, [])
    shown = picture(record.training, marks, 0, 2, list(record.training.params), 80, 4).text.plain
    for title in (
        "loss  0.5",
        "grad norm (log)",
        "update / data (log; ┈ 0.001)",
        "learning rate  0.1",
        "dead ReLU / saturated fraction",
        "activation mean",
        "activation std",
        "train/accuracy  0.6",
    ):
        assert f"\n{title}" in shown, title
    assert "━ fc1.weight 0.7  ━ fc1.bias 0.1  ━ fc2.weight 0.1" in shown
    assert "━ model.relu dead 0.2  ━ model.tanh saturated 0.1" in shown
    assert "▸ pass 2 · loss 0.5" in shown and "◆ cursor: pass 0" in shown


def test_a_chart_without_a_value_says_why():
    record = training_record()
    for p in record.training.params.values():
        p.update_ratio[:] = np.nan
    shown = picture(record.training, {}, None, 0, ["fc1.bias"], 80, 3).text.plain
    assert "\nupdate / data (log; ┈ 0.001)\n  no optimizer step or hand update followed a pass\n" in shown


async def test_a_record_without_a_series_says_so():
    view = TrainingView()
    async with WidgetApp(view).run_test(size=SIZE) as pilot:
        await shown_alone(pilot, view, mlp_record())
        await wait_for_text(pilot, EMPTY)
        said = str(view.query_one("#training-plots", Static).render())
        assert "This record holds none: no backward pass has run yet, or the snapshot was written before" in said


async def test_the_view_shows_every_chart_and_marks_the_nan_exploding_and_vanishing_passes():
    view = TrainingView()
    async with WidgetApp(view).run_test(size=SIZE) as pilot:
        await shown_alone(pilot, view, training_record())
        await wait_for_text(pilot, f"{PASSES} passes · all 3 parameters")
        row = marks_row(view)
        width = view._picture.width
        assert row[pass_cell(NAN_PASS, PASSES, width)] == MARKS[NAN_ORIGIN][0] == "×"
        assert row[pass_cell(EXPLODING_PASS, PASSES, width)] == "▲"
        assert row[pass_cell(VANISHING_PASS, PASSES, width)] == "▼"
        assert row[pass_cell(0, PASSES, width)] == "◆"  # the debugger's cursor is in pass 0
        await wait_for_text(pilot, "loss  1.5")


@pytest.mark.slow
async def test_the_arrows_move_the_picked_pass_and_enter_moves_the_cursor_there():
    debuggee = Debuggee(training_record(), "snap.json")
    app = GraphscopeApp(debuggee)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_training(pilot, app)
        assert view.picked == 0
        for _ in range(3):
            await pilot.press("right")
        await pilot.press("left")
        await wait_for_text(pilot, "▸ pass 2 · loss 0.5")
        await pilot.press("enter")
        await wait_for(pilot, lambda: debuggee.state.pass_index == 2, what="the cursor in pass 2")
        assert debuggee.state.step == 0 and app.views.current == "training"
        await wait_for_text(pilot, "◆ cursor: pass 2")
        await pilot.press("shift+right")
        await wait_for_text(pilot, f"▸ pass {PASSES - 1}")  # ten on: held at the last pass


@pytest.mark.slow
async def test_a_click_on_a_chart_moves_the_cursor_to_that_pass():
    debuggee = Debuggee(training_record(), "snap.json")
    app = GraphscopeApp(debuggee)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_training(pilot, app)
        picture_ = view._picture
        line = min(n for n in picture_.pass_lines if n > 2)  # the loss chart's first row
        column = GUTTER + pass_cell(6, PASSES, picture_.width)
        await pilot.click(TrainingView, offset=(1 + column, line))  # the view's left padding
        await wait_for(pilot, lambda: debuggee.state.pass_index == 6, what="the cursor in pass 6")
        assert view.picked == 6


@pytest.mark.slow
async def test_a_pass_not_kept_in_full_is_refused_with_the_reason():
    record = training_record()
    record.passes[4].detailed, record.passes[4].order, record.passes[4].steps = False, (), []
    debuggee = Debuggee(record, "snap.json")
    app = GraphscopeApp(debuggee)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_training(pilot, app)
        view.picked = 4
        await pilot.press("enter")
        await wait_for_notice(pilot, "Pass 4 was not kept in full")
        assert debuggee.state.pass_index == 0


async def test_brackets_draw_one_parameter_at_a_time_and_a_draws_them_all():
    view = TrainingView()
    async with WidgetApp(view).run_test(size=SIZE) as pilot:
        await shown_alone(pilot, view, training_record())
        await pilot.press("right_square_bracket")
        await wait_for_text(pilot, "fc1.weight (1 of 3)")
        await pilot.press("right_square_bracket")
        await wait_for_text(pilot, "fc1.bias (2 of 3)")
        assert "━ fc1.weight" not in view._picture.text.plain
        await pilot.press("left_square_bracket", "left_square_bracket")
        await wait_for_text(pilot, "fc2.weight (3 of 3)")
        await pilot.press("a")
        await wait_for_text(pilot, "all 3 parameters")
        assert "━ fc1.weight" in view._picture.text.plain


async def test_the_view_follows_a_record_that_grows():
    record = training_record()
    record.training = TrainingSeries()
    debuggee = Debuggee(record, "run.py")
    app = GraphscopeApp(debuggee)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("t")
        await wait_for_text(pilot, EMPTY)
        series = record.training = training_series(7)  # what a live run's next pause finds
        app._apply(debuggee.state)
        await wait_for_text(pilot, "7 passes")
        grown = training_series(PASSES)  # the same series object, grown by the recording
        for name in ("passes", "loss", "params", "activations", "scalars"):
            setattr(series, name, getattr(grown, name))
        app._apply(debuggee.state)
        await wait_for_text(pilot, f"{PASSES} passes")


async def test_names_from_the_script_are_shown_as_written():
    record = training_record()
    params = record.training.params
    params["[bold]w[/bold]"] = params.pop("fc1.weight")
    params["[bold]w[/bold]"].name = "[bold]w[/bold]"
    view = TrainingView()
    async with WidgetApp(view).run_test(size=SIZE) as pilot:
        await shown_alone(pilot, view, record)
        await pilot.press("right_square_bracket", "right_square_bracket", "right_square_bracket")
        await wait_for_text(pilot, "[bold]w[/bold] (3 of 3)")
        assert isinstance(view._picture.text, Text)


def test_a_series_of_logged_scalars_alone_is_drawn_on_their_passes():
    series = training_series()
    only = TrainingSeries(scalars=series.scalars)
    shown = picture(only, {}, None, 3, [], 80, 3).text.plain
    assert shown.startswith(f"{PASSES} passes · no parameters")
    assert "\ntrain/accuracy  0.65\n" in shown  # logged after pass 3's backward: 4 passes begun
    assert "\nloss" not in shown and "grad norm" not in shown


@pytest.mark.slow
async def test_a_live_run_shows_its_own_series_and_follows_it_to_the_end():
    with live_app(SCRIPTS / "tiny_mlp.py") as (app, session):
        async with app.run_test(size=SIZE) as pilot:
            await until_paused(pilot, session)
            await pilot.press("t")
            await wait_for(pilot, lambda: app.views.current == "training")
            await pilot.press("c")
            await until_settled(pilot, session, ("finished",))
            series = session.record.training
            await wait_for_text(pilot, EMPTY if series.empty() else f"{series.passes} passes")
            assert app.views.current == "training"


@pytest.mark.slow
async def test_a_pass_chosen_while_the_script_runs_waits_for_a_pause():
    moved = []
    record = training_record()
    app = GraphscopeApp(Debuggee(record, "snap.json"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_training(pilot, app)
        app.views.goto_pass = lambda position: moved.append(position) or True
        running = replace(app.moment.state, kind=State.RUNNING)
        app.views.moment = Moment(app.index, running, (), True)  # as the app's tick sets it while a script runs
        view.post_message(TrainingView.Chosen(3))
        await wait_for_notice(pilot, "The script is running: choose a pass when it pauses.")
        assert moved == []
