"""Regenerates the README's screenshot of a stop in the forward pass: docs/forward-stop.svg.

Run from the repository root:  python docs/forward_stop_screenshot.py
It runs samples/exploding_nan.py under the debugger (as `graphscope run` does), presses `c` at the
first pause so the default NaN/Inf breakpoint stops where the forward makes the NaN, opens the
expression line with `:`, asks for `sigma` and how many of its values are not positive, and saves
the screen as the app draws it.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from textual.widgets import RichLog

from graphscope.session import Session, SessionOptions
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.expression_line import ExpressionInput, ExpressionLine

ROOT = Path(__file__).resolve().parent.parent
SIZE = (120, 44)
LINES = ("sigma", "(sigma <= 0).sum().item()")


async def until(pilot, condition, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await pilot.pause(0.01)


async def shoot() -> Path:
    session = Session(str(ROOT / "samples" / "exploding_nan.py"), [], SessionOptions())
    app = GraphscopeApp(session)
    app.animation_level = "none"

    def paused() -> bool:
        return session.state is not None and session.state.kind == "paused" and app.moment.state is session.state

    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, paused, "the first pause")
            count = app.updates
            await pilot.press("c")
            await until(pilot, lambda: app.updates > count and paused(), "the NaN's forward stop")
            await pilot.press("colon")
            answers = app.query_one(ExpressionLine).query_one(RichLog)
            for text in LINES:
                written = len(answers.lines)
                app.query_one(ExpressionInput).value = text
                await pilot.press("enter")
                await until(pilot, lambda written=written: len(answers.lines) > written + 1, f"the answer to {text}")
            await pilot.pause(0.3)
            path = app.save_screenshot("forward-stop.svg", str(ROOT / "docs"))
    finally:
        session.quit()
        session.join(timeout=5)
    return Path(path)


if __name__ == "__main__":
    print(asyncio.run(shoot()))
