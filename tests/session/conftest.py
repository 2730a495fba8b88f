"""Helpers for driving a Session from a test: wait for states without fixed sleeps."""

import textwrap
import threading
import time

import pytest

from graphscope.session import Session, SessionOptions

WAIT_SECONDS = 30  # generous: these machines are shared; a hang still fails the test


class Driver:
    """A Session plus a way to wait until its state matches a predicate."""

    def __init__(self, session: Session):
        self.session = session
        self.changed = threading.Condition()
        self.states = []
        session.add_listener(self._on_state)

    def _on_state(self, state):
        with self.changed:
            self.states.append(state)
            self.changed.notify_all()

    def wait(self, predicate, what: str):
        deadline = time.monotonic() + WAIT_SECONDS
        with self.changed:
            while not predicate(self.session.state):
                left = deadline - time.monotonic()
                assert left > 0, f"timed out waiting for {what}; state is {self.session.state}"
                self.changed.wait(min(left, 0.1))
        return self.session.state

    def paused(self):
        return self.wait(lambda s: s.kind == "paused", "a pause")

    def done(self):
        state = self.wait(lambda s: s.kind in ("finished", "failed"), "the script to end")
        assert self.session.join(WAIT_SECONDS)
        return state

    def command(self, name, *args):
        """Run a command that lets the engine move, then wait for the next pause or the end."""
        count = len(self.states)
        getattr(self.session, name)(*args)
        return self.wait(lambda s: len(self.states) > count and s.kind in ("paused", "finished", "failed"),
                         f"{name} to take effect")


@pytest.fixture
def run_session(tmp_path):
    """run_session(source or path, argv=(), **options) -> a started Driver (quit at teardown)."""
    drivers = []

    def start(source=None, path=None, argv=(), **options):
        if path is None:
            path = tmp_path / "script.py"
            path.write_text(textwrap.dedent(source))
        driver = Driver(Session(str(path), list(argv), SessionOptions(**options)))
        drivers.append(driver)
        driver.session.start()
        return driver

    yield start
    for driver in drivers:
        driver.session.quit()
        assert driver.session.join(WAIT_SECONDS), "the script thread outlived its session"
