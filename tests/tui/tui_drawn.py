"""Waiting until the app has drawn what it was asked: every message handled and the screen laid out, with no
sleep and no round of messages to each widget (a pilot pause costs a few milliseconds of CPU and 20 of waiting)."""

from __future__ import annotations

import asyncio
import time
import unicodedata

from textual import events

from tests.tui.tui_pilot import FIRST_ASK, MOST_BETWEEN_ASKS
from tests.tui.tui_screen import screen_text
from tests.waiting import WAIT_SECONDS

# A hang still fails: the app keeps asking for work (a running script's tick does not count: it asks every 0.25 s).
MOST_ROUNDS = 100_000


def pumps(app) -> list:
    """The app, its screen and every widget on it: what handles messages."""
    return [app, *app.screen.walk_children(with_self=True)]


def busy(handlers) -> bool:
    """Whether a message sent to one of `handlers` waits to be handled, or a callback waits for its next idle
    moment."""
    return any(pump._message_queue.qsize() or pump._next_callbacks for pump in handlers)


def to_draw(screen) -> bool:
    """Whether the screen has a layout, a scroll, a repaint or dirty widgets waiting, or callbacks for after it."""
    return bool(
        screen._layout_required
        or screen._scroll_required
        or screen._repaint_required
        or screen._recompose_required
        or screen._dirty_widgets
        or screen._callbacks
    )


async def until_drawn(pilot) -> None:
    """Until every message is handled and the screen shows what they changed, as a pilot pause ends (the screen
    is refreshed now, not at its timer); again while the refresh itself sends messages (a widget resized)."""
    app = pilot.app
    handlers, quiet = pumps(app), 0
    for _ in range(MOST_ROUNDS):
        await asyncio.sleep(0)
        screen = app.screen
        if busy(handlers):
            quiet = 0
        elif to_draw(screen):
            quiet = 0
            screen._on_timer_update()
        elif busy(handlers := pumps(app)):  # a widget mounted meanwhile has its own messages
            quiet = 0
        else:  # twice in a row: a handler that awaited (a mount) has had its turn to send more
            quiet += 1
            if quiet == 2:
                return
    raise AssertionError(f"the app did not settle\n{screen_text(app)}")


def press(app, key: str) -> None:
    """Send a key press the way the pilot does (a character's key name, as Textual names it), without its waits."""
    name = key if len(key) != 1 or key.isalnum() else unicodedata.name(key).lower().replace("-", "_").replace(" ", "_")
    app._driver.send_message(events.Key(name, key if len(key) == 1 else None))


async def until(pilot, predicate, what: str, timeout: float = WAIT_SECONDS, progress=None) -> None:
    """Until `predicate()` holds and the app has drawn what it handled; between asks (a script's thread at
    work), sleep, sooner at first; fail with `what` and the screen after `timeout` in which `progress()` (when
    given: how far a running script got) did not change: a slow run on a loaded machine is not a hang."""
    deadline = time.monotonic() + timeout
    between = FIRST_ASK
    moved = progress() if progress else None
    await until_drawn(pilot)
    while not predicate():
        if progress and (now := progress()) != moved:
            moved, deadline = now, time.monotonic() + timeout
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{screen_text(pilot.app)}")
        await asyncio.sleep(between)
        between = min(2 * between, MOST_BETWEEN_ASKS)
        await until_drawn(pilot)
