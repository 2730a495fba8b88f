"""A live run and that run's snapshot are one debuggee: the same keys show the same stepper, details, console,
passes view and graph tree (expanded the same way after `c` and `!`)."""

import gc
import re
from functools import partial
from pathlib import Path

import pytest

from graphscope.session import Debuggee
from graphscope.trace import snapshot
from graphscope.trace.recording.keeping import Policy
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.console_pane import ConsolePane
from graphscope.tui.graph_tree import GraphTree
from graphscope.tui.node_details import NodeDetails
from graphscope.tui.passes_view import PassesView
from graphscope.tui.stepper import Stepper
from tests.brief_samples import BRIEF_ARGV
from tests.tui.tui_drawn import press, until, until_drawn
from tests.tui.tui_live import SAMPLES, live_app
from tests.tui.tui_screen import screen_text
from tests.waiting import ENDED, STOPPED, session_in

KEYS = ["n"] * 5 + ["p"] * 2 + ["n"] * 3 + ["c", "!"] + ["p"] * 3 + ["n"] * 2 + ["!"]
# Keys that move no cursor: nothing to wait for but the screen.
STILL = ("!",)
TABS = ("tab-value", "tab-grad", "tab-rule")
PARTS = (
    "the stepper",
    "the Value tab",
    "the Grad tab",
    "the Rule tab",
    "the console",
    "the passes view",
    "the graph tree",
)
SIZE = (120, 40)
# The stepper's words for the cursor (the first word, paused / finished, and a snapshot's name differ).
POSITION = re.compile(r"pass \d+ · (step \d+ of \d+|end of pass \(\d+ steps\))|forward of pass \d+ · #\d+ \w+ made")
LOSS = re.compile(r"loss \S+")


def stepper_position(app) -> str:
    """Where the stepper says the cursor is, the node there and the pass's loss."""
    text = app.query_one(Stepper)._last.plain
    found = POSITION.search(text)
    assert found, text
    loss = LOSS.search(text)
    return f"{found.group(0)} · node {app.moment.state.node} · {loss.group(0) if loss else 'no loss'}"


def region_text(screen: list[str], widget) -> str:
    """The part of the screen's lines (`screen_text`, one rendering of the frame) that `widget` covers."""
    x, y, w, h = widget.region
    return "\n".join(line[x : x + w].rstrip() for line in screen[y : y + h])


def session_shown(app, session, kinds) -> bool:
    """Whether the session is in one of `kinds` and the app shows that state."""
    return session_in(session, kinds) and app.moment.state is session.state


def how_far(session) -> tuple[int, int]:
    """How far a live script got (passes and nodes recorded): a wait goes on while this changes."""
    return len(session.record.passes), len(session.record.nodes)


async def capture(pilot, app) -> tuple:
    """(stepper position, details on the Value tab, on the Grad tab, on the Rule tab, the console's
    lines, the passes view, the graph tree's rows with what is expanded and the cursor).

    Two screen changes, not one per part: the tab the key left on screen is read first; the next
    tab is opened with the passes view, the last with the graph view again (the left view does not
    change the details pane, which is checked: same node, same tab). The tab left open is the user's
    choice the next key keeps, the same live and in the snapshot."""
    pane = app.query_one(NodeDetails)
    tabs = pane.query_one("#detail-tabs")
    seen = [stepper_position(app)]
    await until_drawn(pilot)  # the frame the key brought is laid out (the tab's underline a refresh after it)
    shown = tabs.active
    assert shown in TABS, shown
    details = {shown: region_text(screen_text(app).splitlines(), pane)}
    console = "\n".join(strip.text.rstrip() for strip in app.query_one(ConsolePane).lines)
    tree = app.query_one(GraphTree)
    rows = "\n".join(f"{'  ' * r.depth}{r.kind} {r.node} {'open' if r.expanded else ''}" for r in tree.rows)
    cursor = tree.cursor_item
    rows += f"\ncursor on {cursor.kind if cursor else None} {cursor.node if cursor else None}"
    selected = pane.node_id
    second, last = (tab for tab in TABS if tab != shown)
    screen = await switch(pilot, app, second, "passes", selected)
    details[second] = region_text(screen, pane)
    passes = region_text(screen, app.query_one(PassesView))
    details[last] = region_text(await switch(pilot, app, last, "graph", selected), pane)
    return (*seen, *(details[tab] for tab in TABS), console, passes, rows)


async def switch(pilot, app, tab: str, view: str, selected) -> list[str]:
    """Open a details tab and a left view in one screen change; the screen's lines once it is laid out."""
    pane = app.query_one(NodeDetails)
    tabs = pane.query_one("#detail-tabs")
    tabs.active = tab
    await app.views.choose(view, selected)
    await until_drawn(pilot)
    assert (tabs.active, pane.node_id) == (tab, selected), f"{view} changed the details: {tabs.active} {pane.node_id}"
    return screen_text(app).splitlines()


async def step(pilot, app, key: str, settled, progress=None) -> None:
    """Press a key and wait until it took effect (`settled`: the app shows the debuggee's state) and is drawn
    (`progress`: how far a live script got, a wait that moves on as long as it runs)."""
    count = app.updates
    press(app, key)
    if key in STILL:
        await until_drawn(pilot)
        return
    await until(pilot, lambda: app.updates > count and settled(), f"{key} to take effect", progress=progress)


async def live_run(path: Path, export: Path) -> list:
    seen = []
    # Every pass kept: a pass the live run still held at a pause, and let go of later, is not in its
    # snapshot (the replay shows what the record holds, as known at the cursor).
    with live_app(path, BRIEF_ARGV[path.name], policy=Policy(keep_last=None)) as (app, session):
        app.animation_level = "none"  # the tab underline slides otherwise: screens differ by timing
        async with app.run_test(size=SIZE) as pilot:
            ran = partial(how_far, session)
            stopped = partial(session_shown, app, session, STOPPED)
            await until(pilot, stopped, "the session to pause and be shown", progress=ran)
            assert session.state.kind == "paused", session.state
            seen.append(await capture(pilot, app))
            for key in KEYS:
                await step(pilot, app, key, stopped, ran)
                seen.append(await capture(pilot, app))
            press(app, "C")
            ended = partial(session_shown, app, session, ENDED)
            await until(pilot, ended, "the session to end and be shown", progress=ran)
            snapshot.dump(session.record, export)
    return seen


async def view_run(export: Path) -> list:
    record = snapshot.load(export)
    debuggee = Debuggee(record, str(export), break_on_nan=True)
    app = GraphscopeApp(debuggee)
    app.animation_level = "none"
    seen = []
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.moment.state is debuggee.state and app.updates > 0, "the snapshot shown")
        seen.append(await capture(pilot, app))
        for key in KEYS:
            await step(pilot, app, key, lambda: app.moment.state is debuggee.state)
            seen.append(await capture(pilot, app))
    return seen


@pytest.fixture
def no_collections():
    """No cyclic collections while two apps draw: each screen update makes and drops many small objects (a
    Strip and its caches per line), and the young collections that scan and promote them took about a tenth of
    this test's CPU. Reference counting still frees what is dropped; the cycles wait for the next collection."""
    enabled = gc.isenabled()
    gc.disable()
    yield
    if enabled:
        gc.enable()


@pytest.mark.slow
@pytest.mark.usefixtures("no_collections")
@pytest.mark.parametrize("name", [p.name for p in sorted(SAMPLES.glob("*.py"))])
async def test_the_same_keys_show_the_same_thing_live_and_in_the_snapshot(name, tmp_path):
    export = tmp_path / "run.json"
    live = await live_run(SAMPLES / name, export)
    view = await view_run(export)
    for i, (a, b) in enumerate(zip(live, view)):
        keys = " ".join(["(start)", *KEYS[:i]])
        for part, shown_live, shown_view in zip(PARTS, a, b):
            assert shown_live == shown_view, (
                f"after {keys}: {part} differs\nlive:\n{shown_live}\nsnapshot:\n{shown_view}"
            )
    assert len(live) == len(view) == len(KEYS) + 1
