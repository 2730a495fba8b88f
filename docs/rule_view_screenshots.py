"""Regenerates the README's two screenshots of the Rule tab: docs/rule-view-equation.svg and -fit-a-line.svg.

Run from the repository root:  python docs/rule_view_screenshots.py
Each runs a sample under the debugger (as `graphscope run` does), steps a few nodes into its first
backward pass with the keys a user would press, and saves the screen as the app draws it.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from graphscope.session import Session, SessionOptions
from graphscope.tui.app import GraphscopeApp

ROOT = Path(__file__).resolve().parent.parent
SIZE = (120, 34)
# (sample, steps to take, keys then, screenshot): where the examples show
SHOTS = (
    # the step just taken, b**2: [-1, -1] × 2·[6, 4] = [-12, -8]
    ("gradients_of_an_equation.py", 3, (), "rule-view-equation.svg"),
    # up the graph to `+ b`, which has run: one element of 100, b's grad summed over the batch
    ("fit_a_line.py", 4, ("up",), "rule-view-fit-a-line.svg"),
)


async def settle(pilot, app, session, what: str, timeout: float = 30.0) -> None:
    """Until the session is paused and the app shows that state."""
    deadline = time.monotonic() + timeout
    while not (session.state is not None and session.state.kind == "paused" and app.moment.state is session.state):
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await pilot.pause(0.01)


async def shoot(sample: str, steps: int, keys: tuple[str, ...], name: str) -> Path:
    session = Session(str(ROOT / "samples" / sample), [], SessionOptions())
    app = GraphscopeApp(session)
    app.animation_level = "none"
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app, session, "the first pause")
            for _ in range(steps):
                count = app.updates
                await pilot.press("n")
                while app.updates == count:
                    await pilot.pause(0.01)
                await settle(pilot, app, session, "a step")
            await pilot.press(*keys)
            await pilot.pause(0.2)
            path = app.save_screenshot(name, str(ROOT / "docs"))
    finally:
        session.quit()
        session.join(timeout=5)
    return Path(path)


def main() -> None:
    for sample, steps, keys, name in SHOTS:
        print(asyncio.run(shoot(sample, steps, keys, name)))


if __name__ == "__main__":
    main()
