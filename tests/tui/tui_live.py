"""Live apps for the tests: a Session on a script, ended cleanly whatever the test did."""

from __future__ import annotations

import contextlib
from pathlib import Path

from tui_pilot import until_still, wait_for

from graphscope.session import Session, SessionOptions
from graphscope.tui.app import GraphscopeApp

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


async def until_paused(pilot, session, timeout: float = 30.0) -> None:
    await wait_for(pilot, lambda: session.state.kind in ("paused", "finished", "failed")
                   and pilot.app.updates > 0 and pilot.app.moment.state is session.state, timeout,
                   "the session to pause")
    await until_still(pilot)  # the frame that shows the pause is laid out (a busy machine can be a frame behind)
    assert session.state.kind == "paused", session.state


async def until_settled(pilot, session, kinds=("paused", "finished", "failed"), timeout: float = 30.0) -> None:
    """Until the session is in one of `kinds` and the app has shown that state."""
    await wait_for(pilot, lambda: session.state.kind in kinds and pilot.app.moment.state is session.state,
                   timeout, f"the session to be {'/'.join(kinds)} and shown")
