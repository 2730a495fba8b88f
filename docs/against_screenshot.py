"""Regenerates the README's screenshot of two runs compared: docs/against.svg.

Run from the repository root:  python docs/against_screenshot.py
It records samples/fit_a_line.py twice with every pass kept, the second time with its learning rate
0.5 instead of 0.1 (a copy edited on that one line), opens the first run with the second held against
it (as `graphscope view before.json --against after.json` does), steps to the second pass's loss (the
first the learning rate changed), shows the Against tab and saves the screen as the app draws it.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from textual.widgets import TabbedContent

from graphscope.session import Debuggee
from graphscope.trace.analysis.run_diff import diff
from graphscope.trace.record.comparison import Against
from graphscope.trace.snapshot import load
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.node_details import NodeDetails

ROOT = Path(__file__).resolve().parent.parent
SIZE = (120, 36)


def record(folder: Path, name: str, source: str) -> Path:
    script, snapshot = folder / f"{name}.py", folder / f"{name}.json"
    script.write_text(source)
    command = [sys.executable, "-m", "graphscope", "run", "--headless", "--keep", "all", "--export", snapshot.name]
    subprocess.run([*command, script.name], cwd=folder, check=True, capture_output=True)
    return snapshot


async def shoot() -> Path:
    source = (ROOT / "samples" / "fit_a_line.py").read_text()
    with tempfile.TemporaryDirectory() as folder:
        before = load(record(Path(folder), "fit_a_line", source))
        faster = source.replace("learning_rate = 0.1", "learning_rate = 0.5")
        after = load(record(Path(folder), "fit_a_line_fast", faster))
    held = Against("after.json", after, diff(before, after))
    loss = before.passes[1].root
    app = GraphscopeApp(Debuggee(before, "before.json"), against=held)
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        deadline = time.monotonic() + 30
        while app.query_one(NodeDetails).node_id is None and time.monotonic() < deadline:
            await pilot.pause(0.01)
        while app.query_one(NodeDetails).node_id != loss and time.monotonic() < deadline:
            await pilot.press("n")
            await pilot.pause(0.1)
        app.query_one("#detail-tabs", TabbedContent).active = "tab-against"
        await pilot.pause(0.3)
        path = app.save_screenshot("against.svg", str(ROOT / "docs"))
    return Path(path)


if __name__ == "__main__":
    print(asyncio.run(shoot()))
