"""The expression line (`:`): Python answered at a forward stop, frames moved; a snapshot offers its record."""

import pytest
from textual.widgets import RichLog

from graphscope.session import Breakpoint, Debuggee
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.expression_line import ExpressionInput, ExpressionLine
from graphscope.tui.stepper import Stepper
from tests.tui.tui_live import SAMPLES, live_app, until_paused
from tests.tui.tui_pilot import wait_for


def answers(app) -> str:
    return "\n".join(strip.text.rstrip() for strip in app.query_one(ExpressionLine).query_one(RichLog).lines)


async def typed(pilot, app, text: str, expect: str) -> None:
    line = app.query_one(ExpressionInput)
    line.value = text
    await pilot.press("enter")
    await wait_for(pilot, lambda: expect in answers(app), what=f"the answer to {text!r}")


@pytest.mark.slow
async def test_a_forward_nan_stop_then_python_in_the_scripts_frame():
    with live_app(SAMPLES / "exploding_nan.py", pause=False) as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            stepper = app.query_one(Stepper)._last.plain
            assert "forward of pass" in stepper and "log made at exploding_nan.py:45" in stepper
            await pilot.press("colon")
            line = app.query_one(ExpressionLine)
            assert line.is_open and isinstance(app.focused, ExpressionInput)
            assert str(line.border_title) == "python in gaussian_nll at exploding_nan.py:45 · frame 0 of 2"
            nodes = len(session.record.nodes)
            await typed(pilot, app, "sigma", "Tensor (64,) float32 on cpu (requires grad)")
            assert "finite" in answers(app) or "min" in answers(app)  # its summary, as the Value tab draws it
            await typed(pilot, app, "(sigma <= 0).sum().item()", "› (sigma <= 0).sum().item()")
            await typed(pilot, app, "sigma.nothing", "AttributeError: 'Tensor' object has no attribute 'nothing'")
            await typed(pilot, app, "up", "frame 1 of 2: main at exploding_nan.py:60")
            assert str(line.border_title) == "python in main at exploding_nan.py:60 · frame 1 of 2"
            await typed(pilot, app, "optimizer.param_groups[0]['lr']", "0.3")
            line.query_one(ExpressionInput).value = "opt"
            await pilot.press("tab")  # `optim` and `optimizer` share `optim`
            assert line.query_one(ExpressionInput).value == "optim"
            await pilot.press("tab")
            await wait_for(pilot, lambda: "optim  optimizer" in answers(app), what="the choices")
            await pilot.press("i", "tab")
            assert line.query_one(ExpressionInput).value == "optimizer"
            await pilot.press("up")  # the history: the last line typed
            assert line.query_one(ExpressionInput).value == "optimizer.param_groups[0]['lr']"
            assert len(session.record.nodes) == nodes  # nothing evaluated was recorded
            await pilot.press("escape")
            assert not line.is_open and session.state.kind == "paused"


async def test_a_snapshot_offers_the_record_on_the_line(tmp_path):
    from graphscope.trace.record.model import Record

    record = Record()
    debuggee = Debuggee(record, "run.json")
    debuggee.add_breakpoint(Breakpoint.parse("nan"))
    app = GraphscopeApp(debuggee)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("colon")
        line = app.query_one(ExpressionLine)
        assert str(line.border_title).startswith("snapshot: no live frame")
        await typed(pilot, app, "x.grad", "no live frame in a snapshot: type #id")
