"""A live run and that run's snapshot are one debuggee: the same keys show the same stepper and details."""

import re
from pathlib import Path

import pytest
from brief_samples import BRIEF_ARGV
from tui_live import SAMPLES, live_app, until_paused, until_settled
from tui_pilot import wait_for
from tui_screen import screen_text

from graphscope.session import Debuggee
from graphscope.trace import snapshot
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.node_details import NodeDetails
from graphscope.tui.stepper import Stepper

KEYS = ["n"] * 5 + ["p"] * 2 + ["n"] * 3 + ["c"] + ["p"] * 3 + ["n"] * 2
SIZE = (120, 40)
# The stepper's words for the cursor (the first word, paused / finished, and a snapshot's name differ).
POSITION = re.compile(r"pass \d+ · (step \d+ of \d+|end of pass \(\d+ steps\))")
LOSS = re.compile(r"loss \S+")


def stepper_position(app) -> str:
    """Where the stepper says the cursor is, the node there and the pass's loss."""
    text = app.query_one(Stepper)._last.plain
    found = POSITION.search(text)
    assert found, text
    loss = LOSS.search(text)
    return f"{found.group(0)} · node {app.moment.state.node} · {loss.group(0) if loss else 'no loss'}"


async def capture(pilot, app) -> tuple:
    """(stepper position, details on the Value tab, on the Grad tab, on the Rule tab)."""
    pane = app.query_one(NodeDetails)
    tabs = pane.query_one("#detail-tabs")
    seen = [stepper_position(app)]
    for tab in ("tab-value", "tab-grad", "tab-rule"):
        tabs.active = tab
        await pilot.pause()
        await pilot.pause()
        x, y, w, h = pane.region
        lines = screen_text(app).splitlines()[y:y + h]
        seen.append("\n".join(line[x:x + w].rstrip() for line in lines))
    tabs.active = "tab-value"
    await pilot.pause()
    return tuple(seen)


async def live_run(path: Path, export: Path) -> list:
    seen = []
    with live_app(path, BRIEF_ARGV[path.name]) as (app, session):
        app.animation_level = "none"  # the tab underline slides otherwise: screens differ by timing
        async with app.run_test(size=SIZE) as pilot:
            await until_paused(pilot, session)
            seen.append(await capture(pilot, app))
            for key in KEYS:
                count = app.updates
                await pilot.press(key)
                await wait_for(pilot, lambda: app.updates > count, what=f"{key} to take effect")
                await until_settled(pilot, session)
                seen.append(await capture(pilot, app))
            await pilot.press("C")
            await until_settled(pilot, session, ("finished", "failed"))
            snapshot.dump(session.record, export)
    return seen


async def view_run(export: Path) -> list:
    record = snapshot.load(export)
    debuggee = Debuggee(record, str(export), break_on_nan=True)
    app = GraphscopeApp(debuggee)
    app.animation_level = "none"
    seen = []
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.moment.state is debuggee.state and app.updates > 0)
        seen.append(await capture(pilot, app))
        for key in KEYS:
            count = app.updates
            await pilot.press(key)
            await wait_for(pilot, lambda: app.updates > count and app.moment.state is debuggee.state,
                           what=f"{key} to take effect")
            seen.append(await capture(pilot, app))
    return seen


@pytest.mark.parametrize("name", [p.name for p in sorted(SAMPLES.glob("*.py"))])
async def test_the_same_keys_show_the_same_thing_live_and_in_the_snapshot(name, tmp_path):
    export = tmp_path / "run.json"
    live = await live_run(SAMPLES / name, export)
    view = await view_run(export)
    for i, (a, b) in enumerate(zip(live, view)):
        keys = " ".join(["(start)", *KEYS[:i]])
        assert a[0] == b[0], f"after {keys}: the stepper says {a[0]!r} live, {b[0]!r} in the snapshot"
        assert a[1] == b[1], f"after {keys}: the Value tab differs\nlive:\n{a[1]}\nsnapshot:\n{b[1]}"
        assert a[2] == b[2], f"after {keys}: the Grad tab differs\nlive:\n{a[2]}\nsnapshot:\n{b[2]}"
        assert a[3] == b[3], f"after {keys}: the Rule tab differs\nlive:\n{a[3]}\nsnapshot:\n{b[3]}"
    assert len(live) == len(view) == len(KEYS) + 1
