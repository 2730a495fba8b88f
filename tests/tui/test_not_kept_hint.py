"""Where passes were not kept in detail, the passes view and the status line say so and how to keep them;
run with every pass kept, `p` walks back through all of them."""

import pytest

from graphscope.trace.recording.keeping import Policy
from graphscope.tui.passes_view import PassesView
from graphscope.tui.stepper import Stepper
from tests.tui.tui_live import SAMPLES, live_app, until_paused, until_settled
from tests.tui.tui_pilot import wait_for, wait_for_notice, wait_for_text
from tests.tui.tui_screen import screen_text

HINT = "run with --keep all"


def stepper(app) -> str:
    return app.query_one(Stepper)._last.plain


async def continue_to_the_end(pilot, session) -> None:
    await until_paused(pilot, session)
    await pilot.press("c")
    await until_settled(pilot, session, kinds=("finished",))


async def back_to(pilot, session, pass_index: int, step: int) -> None:
    """Press p until the cursor is at (pass_index, step)."""
    while (session.state.pass_index, session.state.step) != (pass_index, step):
        before = (session.state.pass_index, session.state.step)
        await pilot.press("p")
        await wait_for(
            pilot,
            lambda before=before: (
                (session.state.pass_index, session.state.step) != before and pilot.app.moment.state is session.state
            ),
            what="a step back",
        )
        assert session.state.pass_index >= pass_index, "p went past the pass"


@pytest.mark.slow
async def test_the_passes_view_says_which_passes_were_not_kept_and_how_to_keep_them():
    with live_app(SAMPLES / "forgot_zero_grad.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await continue_to_the_end(pilot, session)
            while app.query_one("#views").current != "passes":
                await pilot.press("v")
            await wait_for_text(pilot, "passes 1–12 not kept in detail")
            assert f"loss and grad norms only; {HINT} to keep them" in str(app.query_one("#pass-note").render())
            view, table = app.query_one(PassesView), app.query_one("#pass-table")
            table.focus()
            await wait_for(pilot, lambda: table.has_focus, what="the passes table focused")
            for _ in range(len(view._rows)):  # up from the last pass, where it starts
                if view._rows[table.cursor_row] == ("pass", 5):
                    break
                await pilot.press("up")
            assert view._rows[table.cursor_row] == ("pass", 5), (table.cursor_row, view._rows)
            await pilot.press("enter")
            await wait_for_notice(
                pilot,
                f"Pass 5 was not kept in full: only its loss and grad norms are in the record "
                f"({HINT} to keep every pass).",
            )


@pytest.mark.slow
async def test_the_status_line_says_so_where_p_jumps_over_passes_not_kept():
    with live_app(SAMPLES / "forgot_zero_grad.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await continue_to_the_end(pilot, session)
            await back_to(pilot, session, 13, 0)
            await wait_for(
                pilot,
                lambda: "passes 1–12 not kept (run with --keep all)" in stepper(app),
                what="the hint at the first step after the passes not kept",
            )
            await pilot.press("p")
            await wait_for(pilot, lambda: session.state.pass_index == 0 and "pass 0 · end" in stepper(app))
            assert "passes 1–12 not kept (run with --keep all)" in stepper(app)
            await pilot.press("p")
            await wait_for(pilot, lambda: "pass 0 · step" in stepper(app))
            assert "not kept" not in stepper(app)


@pytest.mark.slow
async def test_with_every_pass_kept_p_reaches_the_passes_where_the_grads_pile_up():
    with live_app(SAMPLES / "forgot_zero_grad.py", policy=Policy(keep_first=0, keep_last=None)) as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await continue_to_the_end(pilot, session)
            assert all(p.detailed for p in session.record.passes)
            await back_to(pilot, session, 13, 0)
            await pilot.press("p")
            await wait_for(pilot, lambda: session.state.pass_index == 12 and "pass 12 · end of pass" in stepper(app))
            assert "not kept" not in stepper(app)
            while app.query_one("#views").current != "passes":
                await pilot.press("v")
            await wait_for_text(pilot, "grad norm")
            assert "not kept" not in screen_text(app)
