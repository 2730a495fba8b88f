"""Regenerates the README's screenshot of the training view: docs/training-view.svg.

Run from the repository root:  python docs/training_view_screenshot.py
It opens the tests' training record (tests/training_records.py: eight passes of a small MLP with a NaN
loss, an exploding and a vanishing grad norm, two modules' activations and a logged scalar) as
`graphscope view` opens a snapshot, presses `t`, moves the picked pass two passes on with `→` and
saves the screen as the app draws it.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
import time
from pathlib import Path

from graphscope.session import Debuggee
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.training_view import TrainingView

ROOT = Path(__file__).resolve().parent.parent

SIZE = (120, 44)


async def until(pilot, condition, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await pilot.pause(0.01)


async def shoot() -> Path:
    sys.path.insert(0, str(ROOT))  # the tests' record, loaded by name (the tests are not a package mypy checks)
    training_record = importlib.import_module("tests.training_records").training_record
    app = GraphscopeApp(Debuggee(training_record(), "run.json"))
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("t")
        view = app.query_one(TrainingView)
        await until(pilot, lambda: view.picked == 0, "the training view")
        await pilot.press("right", "right")
        await until(pilot, lambda: view.picked == 2, "the pick two passes on")
        await pilot.pause(0.3)
        path = app.save_screenshot("training-view.svg", str(ROOT / "docs"))
    return Path(path)


if __name__ == "__main__":
    print(asyncio.run(shoot()))
