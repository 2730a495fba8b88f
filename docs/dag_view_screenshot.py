"""Regenerates the README's screenshot of the dag view: docs/dag-view.svg.

Run from the repository root:  python docs/dag_view_screenshot.py
It runs samples/exploding_nan.py under the debugger (as `graphscope run` does), continues to the NaN
(`c` twice: the forward's stop where log made it, then the loss's backward step), jumps to where the
NaN was born (`!`), widens the left pane (`>`) and draws the graph around the node (`d`), as a user would.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from rule_view_screenshots import ROOT, SIZE, settle  # docs/rule_view_screenshots.py, beside this file

from graphscope.session import Session, SessionOptions
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.graph_picture import GraphPicture

NAME = "dag-view.svg"


async def shoot() -> Path:
    session = Session(str(ROOT / "samples" / "exploding_nan.py"), [], SessionOptions())
    app = GraphscopeApp(session)
    app.animation_level = "none"
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app, session, "the first pause")
            for stop in ("the forward's stop at the NaN", "the NaN loss's step"):
                count = app.updates
                await pilot.press("c")
                while app.updates == count:
                    await pilot.pause(0.01)
                await settle(pilot, app, session, stop)
            await pilot.press("exclamation_mark", *[">"] * 7, "d")
            picture = app.query_one(GraphPicture)
            while picture.cursor is None or app.views.current != "picture":
                await pilot.pause(0.01)
            await pilot.pause(0.3)
            path = app.save_screenshot(NAME, str(ROOT / "docs"))
    finally:
        session.quit()
        session.join(timeout=5)
    return Path(path)


if __name__ == "__main__":
    print(asyncio.run(shoot()))
