"""Waiting in pilot tests: poll for a state instead of sleeping a fixed time."""

from __future__ import annotations

import time

from tests.tui.tui_screen import screen_drawn, screen_text

# Each ask lets every widget drain its messages and may render the whole screen: a few milliseconds
# of CPU taken from the script's thread and the other tests. Ask soon, then less often.
FIRST_ASK, MOST_BETWEEN_ASKS = 0.01, 0.05


async def wait_for(pilot, predicate, timeout: float = 10.0, what: str = "") -> None:
    """Let the app run until `predicate()` is true; fail with `what` (and the screen) after `timeout`."""
    deadline = time.monotonic() + timeout
    between = FIRST_ASK
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}\n{screen_text(pilot.app)}")
        await pilot.pause(between)
        between = min(2 * between, MOST_BETWEEN_ASKS)


async def wait_for_text(pilot, text: str, timeout: float = 10.0) -> None:
    """Until `text` is on the screen."""
    await wait_for(pilot, lambda: text in screen_text(pilot.app), timeout, f"{text!r} on screen")


def notified(app, text: str) -> bool:
    """Whether a notification (toast) containing `text` was raised."""
    return any(text in n.message for n in app._notifications)


async def wait_for_notice(pilot, text: str, timeout: float = 10.0) -> None:
    await wait_for(pilot, lambda: notified(pilot.app, text), timeout, f"a notification {text!r}")


async def until_still(pilot, timeout: float = 10.0) -> None:
    """Until the drawn screen is the same across three short pauses, each waiting for the app to
    be idle: on a busy machine a widget whose height just changed can be laid out a refresh or two
    later, and a screenshot must not catch the frame between."""
    deadline = time.monotonic() + timeout
    last, same = None, 0
    while same < 2 and time.monotonic() < deadline:
        await pilot.pause(0.05)
        await pilot.pause()  # and until idle: the layout a message asked for is done
        now = screen_drawn(pilot.app)
        same = same + 1 if now == last else 0
        last = now
