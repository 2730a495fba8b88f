"""`graphscope run`: the app over a live Session on the samples and small scripts (pilot tests)."""

import os

import pytest

from graphscope.trace import snapshot
from graphscope.tui.ending import ending
from graphscope.tui.export_dialog import ExportDialog
from graphscope.tui.graph_tree import GraphTree
from graphscope.tui.help_screen import HelpScreen
from graphscope.tui.node_details import NodeDetails
from graphscope.tui.stepper import Stepper
from tests.tui.tui_live import SAMPLES, SCRIPTS, live_app, until_paused, until_settled
from tests.tui.tui_pilot import until_still, wait_for, wait_for_notice, wait_for_text
from tests.tui.tui_screen import screen_text
from tests.waiting import ENDED


def selected(app):
    return app.query_one(NodeDetails).node_id


async def test_pauses_at_the_first_backward_node_with_the_loss_selected():
    with live_app(SAMPLES / "training_loop.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            assert session.state.reason == "first backward pass"
            root = session.record.passes[0].root
            await wait_for(pilot, lambda: selected(app) == root)
            assert app.query_one(GraphTree).cursor_item.node == root
            await wait_for_text(pilot, "paused · pass 0 · step 1 of")
            await wait_for_text(pilot, "step 1 of")


async def test_n_steps_one_node_and_follows_it():
    with live_app(SAMPLES / "training_loop.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            await pilot.press("n")
            await wait_for(pilot, lambda: session.state.step == 1 and app.moment.state is session.state)
            second = session.record.passes[0].order[1]
            await wait_for(pilot, lambda: selected(app) == second)
            await wait_for_text(pilot, "step 2 of")
            assert app.moment.stepped(session.record.passes[0].order[0])


async def test_p_travels_back_without_running_the_engine():
    with live_app(SAMPLES / "training_loop.py") as (app, session):
        async with app.run_test() as pilot:
            await until_paused(pilot, session)
            await pilot.press("n", "n")
            await wait_for(pilot, lambda: session.state.frontier == 2)
            await pilot.press("p")
            await wait_for(pilot, lambda: session.state.step == 1 and session.state.frontier == 2)
            await until_settled(pilot, session)


async def test_c_with_no_breakpoint_hit_continues_to_the_end_of_the_run():
    with live_app(SCRIPTS / "tiny_mlp.py") as (app, session):
        async with app.run_test() as pilot:
            await until_paused(pilot, session)
            await pilot.press("c")
            await until_settled(pilot, session, ("finished",))
            await wait_for_text(pilot, "finished (exit 0) · pass 2 · end of pass (6 steps)")


async def test_n_at_the_end_of_a_pass_moves_on_to_the_next_pass_and_p_comes_back():
    with live_app(SCRIPTS / "tiny_mlp.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            total = len(session.record.passes[0].order)
            for _ in range(total):
                await pilot.press("n")
            await wait_for(pilot, lambda: session.state.step == total and app.moment.state is session.state)
            await wait_for_text(pilot, "pass 0 · end of pass")
            await pilot.press("n")
            await wait_for(pilot, lambda: session.state.pass_index == 1 and app.moment.state is session.state)
            await wait_for_text(pilot, "pass 1 · step 1 of")
            await pilot.press("p")
            await wait_for_text(pilot, "pass 0 · end of pass")


@pytest.mark.slow
async def test_a_burst_of_n_presses_takes_every_step():
    with live_app(SCRIPTS / "tiny_mlp.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            await pilot.press(*["n"] * 12)
            # 6 steps and the end of pass 0, then pass 1's first 5 steps
            await wait_for(
                pilot,
                lambda: (session.state.pass_index, session.state.step) == (1, 5) and app.moment.state is session.state,
                what="12 steps taken",
            )
            await wait_for_text(pilot, "pass 1 · step 6 of 6")


async def test_p_at_the_first_step_says_why_it_cannot_go_further():
    with live_app(SCRIPTS / "tiny_mlp.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            await pilot.press("p")
            await wait_for_text(pilot, "nothing earlier in the record")


@pytest.mark.slow
async def test_b_then_c_stops_at_the_breakpoint_in_the_next_pass():
    with live_app(SCRIPTS / "tiny_mlp.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            await pilot.press("B")
            await pilot.press(*"op relu", "enter", "escape")
            await wait_for(pilot, lambda: [b.kind for b in session.breakpoints].count("op") == 1)
            await pilot.press("c")
            await wait_for(
                pilot,
                lambda: (
                    session.state.kind == "paused"
                    and session.state.node is not None
                    and session.record.nodes[session.state.node].op == "relu"
                ),
            )
            await until_settled(pilot, session)
            assert "breakpoint" in session.state.reason


async def test_capital_c_runs_to_the_end_and_the_run_stays_browsable():
    with live_app(SCRIPTS / "tiny_mlp.py") as (app, session):
        async with app.run_test() as pilot:
            await until_paused(pilot, session)
            await pilot.press("C")
            await until_settled(pilot, session, ("finished",))
            await wait_for_text(pilot, "step 2 loss")
            await wait_for(pilot, lambda: app.query_one(GraphTree).rows)
            await pilot.press("down")
            await wait_for(pilot, lambda: selected(app) is not None)
            await pilot.press("q")
            await wait_for(pilot, lambda: not app.is_running, what="the app to leave")
        assert app.ending == ("graphscope: tiny_mlp.py finished (exit code 0)", 0)  # q after the end says so too


async def test_no_pause_runs_straight_through():
    with live_app(SCRIPTS / "tiny_mlp.py", pause=False) as (app, session):
        async with app.run_test() as pilot:
            await until_settled(pilot, session, ("finished",))
            await wait_for_text(pilot, "finished")


async def test_the_exit_code_is_the_scripts():
    with live_app(SCRIPTS / "exits_3.py", pause=False) as (app, session):
        async with app.run_test() as pilot:
            await until_settled(pilot, session, ("finished", "failed"))
    assert ending(session.state, session.record, session.source) == ("graphscope: exits_3.py finished (exit code 3)", 3)


async def test_a_script_error_shows_its_traceback_and_the_graph_stays_browsable():
    with live_app(SCRIPTS / "fails.py", pause=False) as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_settled(pilot, session, ("failed",))
            await wait_for_text(pilot, "script failed")
            await wait_for_text(pilot, "ValueError: shapes [/] do not [bold match [@click=app.quit]x")
            await wait_for_text(pilot, "before the failure [bold] [/]")
            assert app.query_one(GraphTree).rows
            assert app.is_running
            await pilot.press("q")
            await wait_for(pilot, lambda: not app.is_running, what="the app to leave")
    line = "graphscope: fails.py raised ValueError: shapes [/] do not [bold match [@click=app.quit]x at "
    assert app.ending[0].startswith(line) and app.ending[0].endswith("fails.py:9 (exit code 1)")
    assert app.ending[1] == 1


async def test_q_while_paused_ends_the_script_cleanly():
    with live_app(SAMPLES / "training_loop.py") as (app, session):
        async with app.run_test() as pilot:
            await until_paused(pilot, session)
            await pilot.press("q")
            await wait_for(pilot, lambda: not app.is_running)
        assert session.join(timeout=1)
        assert app.ending == (
            "graphscope: training_loop.py stopped by the user at pass 0, step 1 of "
            f"{len(session.record.passes[0].order)} (exit code 0)",
            0,
        )


async def test_q_while_running_ends_the_script_cleanly():
    with live_app(SAMPLES / "training_loop.py", pause=False) as (app, session):
        async with app.run_test() as pilot:
            await wait_for(pilot, lambda: session.state.kind == "running")
            await pilot.press("q")
            await wait_for(pilot, lambda: not app.is_running)
        assert session.join(timeout=2)


async def test_e_exports_the_live_record_while_paused(tmp_path):
    with live_app(SCRIPTS / "tiny_mlp.py") as (app, session):
        async with app.run_test() as pilot:
            await until_paused(pilot, session)
            await pilot.press("n")
            await wait_for(pilot, lambda: session.state.frontier == 1)
            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExportDialog))
            target = tmp_path / "snap.json"
            app.screen.query_one("#export-path").value = str(target)
            await pilot.press("enter")
            await wait_for_notice(pilot, "Snapshot written")
    record = snapshot.load(target)
    first = record.passes[0]
    assert first.steps[0].node == first.order[0] and first.steps[0].grad_inputs  # the step that ran
    assert len(first.steps) <= 2  # and at most the grad the paused node is about to receive


async def test_exclamation_mark_finds_where_the_nan_was_born():
    with live_app(SCRIPTS / "nan_origin.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            await pilot.press("exclamation_mark")
            await wait_for(pilot, lambda: selected(app) is not None and session.record.nodes[selected(app)].op == "log")
            await wait_for_text(pilot, "s = h.log()")


async def test_the_samples_nan_is_caught_by_the_nan_breakpoint():
    with live_app(SAMPLES / "exploding_nan.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            for _ in range(40):
                if "NaN" in session.state.reason:
                    break
                paused_at = session.state
                await pilot.press("c")
                await wait_for(
                    pilot,
                    lambda paused_at=paused_at: session.state is not paused_at,
                    what="the continue to leave the pause",
                )
                await until_settled(pilot, session)
            assert "NaN" in session.state.reason
            await pilot.press("exclamation_mark")
            await wait_for(pilot, lambda: selected(app) is not None and session.record.nodes[selected(app)].op == "log")


@pytest.mark.slow
async def test_the_views_switch_on_a_live_run():
    with live_app(SAMPLES / "training_loop.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            for view in ("modules", "timeline", "passes", "findings", "training", "picture", "graph"):
                await pilot.press("v")
                await wait_for(pilot, lambda view=view: app.query_one("#views").current == view)
            await pilot.press("v", "v")
            await pilot.press("down", "down", "enter")  # the timeline: run to step 3
            await wait_for(pilot, lambda: session.state.step == 2 and session.state.kind == "paused")
            await until_settled(pilot, session)
            assert [b.kind for b in session.breakpoints] == ["nan"]  # the run's breakpoint is gone
            await pilot.press("home", "enter")  # and back in time to step 1
            await wait_for(pilot, lambda: session.state.step == 0 and session.state.frontier == 2)


@pytest.mark.slow
async def test_slash_finds_a_parameter_of_the_live_model():
    with live_app(SAMPLES / "training_loop.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            await pilot.press("slash", *"linear_relu_stack.4.weight", "enter")
            await wait_for(
                pilot,
                lambda: (
                    selected(app) is not None
                    and session.record.nodes[selected(app)].parameter == "linear_relu_stack.4.weight"
                ),
            )


@pytest.mark.slow
async def test_a_tensor_too_big_for_the_record_shows_its_kept_preview_live_as_in_a_snapshot():
    with live_app(SCRIPTS / "big_tensor.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            w = next(n.id for n in session.record.nodes.values() if n.op == "parameter")
            app.query_one(GraphTree).reveal_node(w)
            await wait_for(pilot, lambda: selected(app) == w)
            app.query_one("#detail-tabs").active = "tab-value"  # while stepping, the Rule tab shows first
            await wait_for_text(pilot, "first 64 of 4,000,000 elements")
            assert "2000×2000" in screen_text(app)


def stepper(app) -> str:
    return app.query_one(Stepper)._last.plain


@pytest.mark.slow
async def test_while_running_the_status_bar_follows_the_pass_and_loss_and_esc_interrupts():
    with live_app(SCRIPTS / "long_training.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            await pilot.press("C")
            await wait_for(pilot, lambda: "running · pass" in stepper(app), what="the running pass shown")
            first = int(stepper(app).split("running · pass ")[1].split(" ")[0])
            await wait_for(
                pilot,
                lambda: int(stepper(app).split("running · pass ")[1].split(" ")[0]) > first + 10,
                what="the running pass to move on",
            )
            assert " · loss " in stepper(app)
            await pilot.press("escape")
            await until_settled(pilot, session, ("paused",))
            assert session.state.reason == "interrupted"  # at its next node, or the end of its pass


@pytest.mark.slow
async def test_n_during_a_continue_interrupts_it_at_the_next_node():
    with live_app(SCRIPTS / "long_training.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            await pilot.press("c")
            await wait_for(pilot, lambda: len(session.record.passes) > 20, what="the run to go on")
            await pilot.press("n")
            await until_settled(pilot, session, ("paused",))
            assert session.state.reason == "interrupted" and session.state.pass_index > 20


async def test_q_leaves_at_once_even_when_the_script_sleeps_and_says_where_it_stopped(tmp_path):
    from graphscope.session import Session, SessionOptions
    from graphscope.tui.app import GraphscopeApp

    wake = tmp_path / "wake"
    os.mkfifo(wake)
    session = Session(str(SCRIPTS / "sleeps.py"), [str(wake)], SessionOptions(pause=False))
    app = GraphscopeApp(session)
    async with app.run_test() as pilot:
        await wait_for(
            pilot, lambda: any(line.text == "sleeping" for line in session.record.console), what="the script to sleep"
        )
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, what="the app to leave")
    assert session._thread.is_alive()  # still asleep: the app did not wait for it (a daemon thread)
    assert app.ending == (
        "graphscope: sleeps.py stopped by the user while it ran, after 1 backward pass (exit code 0)",
        0,
    )
    waking = os.open(wake, os.O_WRONLY | os.O_NONBLOCK)  # its reader, the script, still has it open
    os.write(waking, b"x")
    os.close(waking)
    assert session.join(30)  # it wakes, meets the quit, and its observers leave the engine


async def test_q_when_paused_says_the_pass_and_step():
    with live_app(SCRIPTS / "tiny_mlp.py") as (app, session):
        async with app.run_test() as pilot:
            await until_paused(pilot, session)
            await pilot.press("n")
            await until_settled(pilot, session, ("paused",))
            await pilot.press("q")
            await wait_for(pilot, lambda: not app.is_running, what="the app to leave")
        assert app.ending == ("graphscope: tiny_mlp.py stopped by the user at pass 0, step 2 of 6 (exit code 0)", 0)


async def test_the_scripts_input_is_answered_in_the_console_not_from_the_terminal():
    with live_app(SCRIPTS / "asks.py", pause=False) as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            line = app.query_one("#script-input")
            await wait_for(pilot, lambda: line.display and app.focused is line, what="the input line")
            await wait_for_text(pilot, "the script asks: Name?")
            await wait_for_text(pilot, "the script waits for input")
            await pilot.press(*"Ada q", "enter")  # q is text here, not quit
            await until_settled(pilot, session, ("finished",))
            texts = [c.text for c in session.record.console]
            assert texts == ["Name? Ada q", "hello Ada q"]
            assert not line.display


@pytest.mark.slow
async def test_ctrl_q_quits_while_the_script_waits_for_input():
    with live_app(SCRIPTS / "asks.py", pause=False) as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: session.prompt == "Name? ", what="the script to ask")
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: not app.is_running, what="the app to leave")
        assert session.join(5)


async def test_stepping_with_n_to_the_end_of_a_pass_shows_every_leafs_grad():
    with live_app(SAMPLES / "gradients_of_an_equation.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            total = len(session.record.passes[0].order)
            await pilot.press(*["n"] * total)
            await wait_for(pilot, lambda: session.state.step == total and app.moment.state is session.state)
            a = next(n.id for n in session.record.nodes.values() if n.parameter == "a" and n.pass_index == 0)
            app.query_one(GraphTree).reveal_node(a)
            await wait_for(pilot, lambda: selected(app) == a)
            app.query_one("#detail-tabs").active = "tab-grad"
            await wait_for_text(pilot, "[36, 81]")  # a.grad = 9a² for a = [2, 3], as the script prints


async def test_a_run_that_ends_while_a_dialog_is_open_shows_its_end_when_the_dialog_closes(tmp_path):
    """The state changes that come while a dialog covers the panes are shown on them: closing the dialog
    showed the run still running (the changes were dropped, and nothing showed them later)."""
    wake = tmp_path / "wake"
    os.mkfifo(wake)
    with live_app(SCRIPTS / "sleeps.py", [str(wake)], pause=False) as (app, session):
        async with app.run_test() as pilot:

            def sleeping() -> bool:
                return any(line.text == "sleeping" for line in session.record.console)

            await wait_for(pilot, sleeping, what="the script to sleep")
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen")
            waking = os.open(wake, os.O_WRONLY | os.O_NONBLOCK)
            os.write(waking, b"x")
            os.close(waking)
            await until_settled(pilot, session, ENDED)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), what="the help screen to close")
            await until_still(pilot)
            assert app.moment.state is session.state
            assert "finished" in app.query_one(Stepper)._last.plain
