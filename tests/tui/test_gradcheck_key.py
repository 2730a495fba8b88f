"""G on a node checks its backward numerically, off the UI thread, and shows analytic and numeric side by side."""

import threading

from graphscope.session import Debuggee
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.gradcheck_screen import NUMBER, GradcheckScreen
from graphscope.tui.node_details import NodeDetails
from graphscope.tui.number_text import fit_number
from tests.hand_records import mlp_record
from tests.tui.tui_live import SCRIPTS, live_app, until_paused
from tests.tui.tui_pilot import wait_for, wait_for_notice, wait_for_text
from tests.tui.tui_screen import screen_text


async def test_g_on_a_wrong_custom_function_shows_the_failure_side_by_side():
    with live_app(SCRIPTS / "wrong_cube.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            cube = next(n.id for n in session.record.nodes.values() if n.op == "Cube")
            app.views.reveal(cube)
            await wait_for(pilot, lambda: app.query_one(NodeDetails).node_id == cube, what="the Cube node selected")
            await pilot.press("G")
            await wait_for(pilot, lambda: isinstance(app.screen, GradcheckScreen), what="the gradcheck screen")
            await wait_for_text(pilot, "✗ its backward disagrees with central differences")
            shown = screen_text(app)
            result = app.screen.result
            (check,) = result.inputs
            assert "input 0: x" in shown and "analytic" in shown and "numeric" in shown
            # the worst element, x = -3: analytic 3x·c, numeric 3x²·c, side by side on one line
            worst = max(range(3), key=lambda i: abs(check.analytic[i] - check.numeric[i]))
            assert worst == 2
            row = next(line for line in shown.splitlines() if "[2]" in line).split()
            at = row.index("[2]")
            assert row[at + 1 : at + 4] == [
                fit_number(check.analytic[2], NUMBER),
                fit_number(check.numeric[2], NUMBER),
                fit_number(abs(check.analytic[2] - check.numeric[2]), NUMBER),
            ]
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, GradcheckScreen), what="the screen to close")


async def test_g_on_a_leaf_says_there_is_no_backward_to_check():
    record = mlp_record()
    app = GraphscopeApp(Debuggee(record, "snap.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        leaf = next(n.id for n in record.nodes.values() if n.op == "parameter")
        await wait_for(pilot, lambda: app.updates > 0 and app.moment.state is app.debuggee.state)
        await pilot.pause()
        app._show_details(leaf, force=True)
        await wait_for(pilot, lambda: app.query_one(NodeDetails).node_id == leaf)
        await pilot.press("G")
        await wait_for_notice(pilot, "a leaf has no backward to check")
        assert not isinstance(app.screen, GradcheckScreen)


async def test_escape_right_after_g_closes_the_check_however_long_it_takes():
    """G opens its dialog at once (the check runs behind it): an escape pressed before the check ends closes it,
    and the result arriving later opens nothing over the keys that follow."""
    record = mlp_record()
    debuggee = Debuggee(record, "snap.json")
    finish, finished = threading.Event(), threading.Event()
    check = debuggee.gradcheck

    def slow_gradcheck(node_id):
        finish.wait(10)
        try:
            return check(node_id)
        finally:
            finished.set()

    debuggee.gradcheck = slow_gradcheck
    app = GraphscopeApp(debuggee)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.query_one(NodeDetails).node_id == app.debuggee.state.node)
        await pilot.press("G")
        assert isinstance(app.screen, GradcheckScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, GradcheckScreen)
        finish.set()
        await wait_for(pilot, finished.is_set, what="the check to end")
        await pilot.pause()
        await pilot.pause()
        assert not isinstance(app.screen, GradcheckScreen)
