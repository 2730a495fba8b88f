"""Forward stepping in the app: a breakpoint on a node's creation, then `n` op by op through the first forward
pass of samples/training_loop.py and into its backward, `p` back through the ops made."""

import pytest

from graphscope.session import Breakpoint
from graphscope.tui.node_details import NodeDetails
from graphscope.tui.stepper import Stepper
from tests.tui.tui_live import SAMPLES, live_app, until_paused, until_settled
from tests.tui.tui_pilot import wait_for


async def press(pilot, app, session, key: str) -> str:
    count = app.updates
    await pilot.press(key)
    await wait_for(pilot, lambda: app.updates > count, what=f"{key} to take effect")
    await until_settled(pilot, session)
    return app.query_one(Stepper)._last.plain


@pytest.mark.slow
async def test_n_steps_op_by_op_through_the_first_forward_and_into_its_backward():
    with live_app(SAMPLES / "training_loop.py", ["1"], pause=False) as (app, session):
        session.add_breakpoint(Breakpoint.parse("op:linear"))
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            first = app.query_one(Stepper)._last.plain
            assert "relu made" in await press(pilot, app, session, "n")
            assert await press(pilot, app, session, "p") == first.replace(" · breakpoint 2: op linear, created", "")
            shown = [first]
            while "forward of pass 0" in shown[-1]:
                assert app.query_one(NodeDetails).node_id == session.state.created  # the new node selected
                shown.append(await press(pilot, app, session, "n"))
            made = [line.split(" · ")[2].split(" made")[0] for line in shown[:-1]]
            ops = [text.split(" ", 1)[1] for text in made]
            assert ops == ["linear", "relu", "linear", "relu", "linear", "cross_entropy"]
            assert "pass 0 · step 1 of" in shown[-1] and "cross_entropy" in shown[-1]  # the loss's backward
