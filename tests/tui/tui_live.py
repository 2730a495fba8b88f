"""Live apps for the tests: a Session on a script, ended cleanly whatever the test did."""

from __future__ import annotations

import contextlib
from pathlib import Path

from graphscope.session import Session, SessionOptions
from graphscope.tui.app import GraphscopeApp
from tests.tui.tui_pilot import until_still, wait_for
from tests.waiting import STOPPED, WAIT_SECONDS, session_in

SCRIPTS = Path(__file__).resolve().parent / "scripts"
SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@contextlib.contextmanager
def live_app(script, argv=(), **options):
    """(app, session) over `script`; the session is quit and joined on the way out."""
    session = Session(str(script), list(argv), SessionOptions(**options))
    app = GraphscopeApp(session)
    try:
        yield app, session
    finally:
        session.quit()
        assert session.join(timeout=5), "the script thread did not end"


async def until_settled(pilot, session, kinds=STOPPED, timeout: float = WAIT_SECONDS) -> None:
    """Until the session is in one of `kinds` and the app has shown that state."""
    await wait_for(
        pilot,
        lambda: session_in(session, kinds) and pilot.app.moment.state is session.state,
        timeout,
        f"the session to be {'/'.join(kinds)} and shown",
    )


async def until_paused(pilot, session, timeout: float = WAIT_SECONDS) -> None:
    """Until the session has paused and the app has laid out the frame that shows it."""
    await until_settled(pilot, session, timeout=timeout)
    await until_still(pilot)  # the frame that shows the pause is laid out (a busy machine can be a frame behind)
    assert session.state.kind == "paused", session.state
