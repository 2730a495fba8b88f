"""run_session: a Session started on a script, driven by the test, quit and joined at teardown."""

import textwrap

import pytest

from graphscope.session import Breakpoint, Session, SessionOptions
from tests.waiting import ENDED, STOPPED, WAIT_SECONDS, session_in, wait_until


class Driver:
    """A Session plus the states it went through, to wait for the one a command leads to."""

    def __init__(self, session: Session):
        self.session = session
        self.states = []
        session.add_listener(self.states.append)

    def wait(self, predicate, what: str):
        """Until `predicate(state)` holds for the session's state; that state."""
        return self._until(lambda: predicate(self.session.state), what)

    def paused(self):
        return self._until(lambda: session_in(self.session, ("paused",)), "a pause")

    def done(self):
        state = self._until(lambda: session_in(self.session, ENDED), "the script to end")
        assert self.session.join(WAIT_SECONDS)
        return state

    def command(self, name, *args):
        """Run a command that lets the engine move, then wait for the next pause or the end."""
        count = len(self.states)
        getattr(self.session, name)(*args)
        return self._until(
            lambda: len(self.states) > count and session_in(self.session, STOPPED), f"{name} to take effect"
        )

    def _until(self, condition, what: str):
        wait_until(condition, what, detail=lambda: f"; state is {self.session.state}")
        return self.session.state


@pytest.fixture
def run_session(tmp_path):
    """run_session(source or path, argv=(), breakpoints=(texts for Breakpoint.parse), **options) -> a
    started Driver (quit at teardown)."""
    drivers = []

    def start(source=None, path=None, argv=(), breakpoints=(), **options):
        if path is None:
            path = tmp_path / "script.py"
            path.write_text(textwrap.dedent(source))
        driver = Driver(Session(str(path), list(argv), SessionOptions(**options)))
        for text in breakpoints:  # before the script starts: it may reach them at once
            driver.session.add_breakpoint(Breakpoint.parse(text))
        drivers.append(driver)
        driver.session.start()
        return driver

    yield start
    for driver in drivers:
        driver.session.quit()
        assert driver.session.join(WAIT_SECONDS), "the script thread outlived its session"
