"""Regenerates the README's screenshot of the training view: docs/training-view.svg.

Run from the repository root:  python docs/training_view_screenshot.py
It records samples/spiral_classifier.py (a tanh MLP learning three spirals with SGD) as
`graphscope run --headless --export` does, opens the snapshot as `graphscope view` does, presses `t`,
moves the picked pass forty passes on with `→` (four shift+→) and saves the screen as the app draws it.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from graphscope.session import Debuggee
from graphscope.trace.snapshot import load
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
    with tempfile.TemporaryDirectory() as folder:
        snapshot = Path(folder) / "run.json"
        script = ROOT / "samples" / "spiral_classifier.py"
        command = [sys.executable, "-m", "graphscope", "run", "--headless", "--export", str(snapshot), str(script)]
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
        record = load(snapshot)
    app = GraphscopeApp(Debuggee(record, "run.json"))
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("t")
        view = app.query_one(TrainingView)
        await until(pilot, lambda: view.picked == 0, "the training view")
        await pilot.press("shift+right", "shift+right", "shift+right", "shift+right")
        await until(pilot, lambda: view.picked == 40, "the pick forty passes on")
        await pilot.pause(0.3)
        path = app.save_screenshot("training-view.svg", str(ROOT / "docs"))
    return Path(path)


if __name__ == "__main__":
    print(asyncio.run(shoot()))
