"""The live status line of a headless run on a terminal's stderr, kept out of the script's way."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, Self, TextIO, TypeVar

from rich.console import Console
from rich.live import Live
from rich.text import Text

_T = TypeVar("_T")


class StatusLine:
    """The live status line on a terminal's stderr, kept out of the script's way: it is erased
    before anything is written to stdout or stderr, and not drawn while the script's output
    ends mid-line (an input() prompt) or the script reads stdin."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.mid_line = False
        self.reading = 0
        self.closed = False  # once the run has ended: a late status() from another thread draws nothing

    def __enter__(self) -> Self:
        self.saved = sys.stdout, sys.stderr, sys.stdin
        # Rich draws the line on the real stderr; the script's own writes go through _Watched,
        # not Rich's redirection, which would hold back a partial line (an input() prompt).
        self.live = Live(
            console=Console(file=sys.stderr),
            auto_refresh=False,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        sys.stdout, sys.stderr = _Watched(sys.stdout, self), _Watched(sys.stderr, self)
        if sys.stdin is not None:
            sys.stdin = _WatchedInput(sys.stdin, self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        sys.stdout, sys.stderr, sys.stdin = self.saved

    def close(self) -> None:
        """Take the line away for good (before the run's own lines are printed)."""
        with self.lock:
            self.closed = True
            self.erase()

    def status(self, text: str) -> None:
        with self.lock:
            if self.mid_line or self.reading or self.closed:
                return
            self.live.update(Text(text, no_wrap=True, overflow="ellipsis"), refresh=self.live.is_started)
            self.live.start(refresh=True)

    def erase(self) -> None:
        """Take the line away (a transient Live clears what it drew when it stops)."""
        with self.lock:
            self.live.stop()


class _Watched:
    """stdout or stderr, erasing the status line before each write and noting a partial line."""

    def __init__(self, stream: TextIO, terminal: StatusLine) -> None:
        self._stream, self._terminal = stream, terminal

    def write(self, text: str) -> int:
        terminal = self._terminal
        with terminal.lock:
            terminal.erase()
            if text:
                terminal.mid_line = not text.endswith("\n")
            return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _WatchedInput:
    """stdin, noting while the script waits on it."""

    def __init__(self, stream: TextIO, terminal: StatusLine) -> None:
        self._stream, self._terminal = stream, terminal

    def _reading(self, method: Callable[..., _T], *args: int) -> _T:
        terminal = self._terminal
        with terminal.lock:
            terminal.erase()
            terminal.reading += 1
        try:
            return method(*args)
        finally:
            with terminal.lock:
                terminal.reading -= 1
                terminal.mid_line = False  # the user's Enter ended the line

    def readline(self, *args: int) -> str:
        return self._reading(self._stream.readline, *args)

    def read(self, *args: int) -> str:
        return self._reading(self._stream.read, *args)

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
