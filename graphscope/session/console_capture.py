"""Route what the script thread prints into the record's console, leaving other threads' output alone."""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Callable
from typing import Self, TextIO

Sink = Callable[[str, str], None]  # (stream name, line): where a captured line goes
Ask = Callable[[str], str | None]  # prompt -> the user's answer, or None at end of input


class ThreadStream(io.TextIOBase):
    """A stand-in for sys.stdout / sys.stderr: the script thread's writes go to `sink`, a line at a time."""

    def __init__(self, stream_name: str, original: TextIO, sink: Sink, thread: threading.Thread, echo: bool) -> None:
        self.stream_name = stream_name
        self.original = original
        self.sink = sink
        self.thread = thread
        self.echo = echo
        self.partial = ""  # text after the last newline, waiting for the rest of its line

    def write(self, text: str) -> int:
        if threading.current_thread() is self.thread:
            *lines, self.partial = (self.partial + text).split("\n")
            for line in lines:
                self.sink(self.stream_name, line)
            if not self.echo:
                return len(text)
        return self.original.write(text)

    def flush(self) -> None:
        if threading.current_thread() is not self.thread or self.echo:
            self.original.flush()

    def take_partial(self) -> str:
        """The unfinished line written so far (an input() prompt), taken out of the stream."""
        text, self.partial = self.partial, ""
        return text

    def close_line(self) -> None:
        """Hand over an unfinished last line (the script ended without a newline)."""
        if self.partial:
            self.sink(self.stream_name, self.partial)
            self.partial = ""

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase declares a plain attribute
        encoding: str = getattr(self.original, "encoding", "utf-8")
        return encoding


class ThreadInput(io.TextIOBase):
    """A stand-in for sys.stdin: the script thread's reads are answered by `ask(prompt)` (the
    debugger's console), never by the app's terminal; other threads read the real stdin."""

    def __init__(self, original: TextIO, stdout: ThreadStream, sink: Sink, thread: threading.Thread, ask: Ask) -> None:
        self.original, self.stdout, self.sink, self.thread, self.ask = original, stdout, sink, thread, ask

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]  # typeshed's _IOBase says bytes
        if threading.current_thread() is not self.thread:
            return self.original.readline(-1 if size is None else size)
        prompt = self.stdout.take_partial()
        answer = self.ask(prompt)
        if answer is None:  # no more input (end of file)
            if prompt:
                self.sink("stdout", prompt)
            return ""
        self.sink("stdout", prompt + answer)  # the console shows the exchange as a terminal would
        return answer + "\n"

    def read(self, size: int | None = -1) -> str:
        return self.readline(size)

    def readable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase declares a plain attribute
        encoding: str = getattr(self.original, "encoding", "utf-8")
        return encoding


class ConsoleCapture:
    """Install ThreadStreams for one thread's lifetime; `echo` also passes the text through; with
    `ask`, the thread's stdin is answered by it (see ThreadInput)."""

    def __init__(self, sink: Sink, thread: threading.Thread, echo: bool = False, ask: Ask | None = None) -> None:
        self.sink, self.thread, self.echo, self.ask = sink, thread, echo, ask

    def __enter__(self) -> Self:
        self.saved = sys.stdout, sys.stderr, sys.stdin
        self.streams = (
            ThreadStream("stdout", sys.stdout, self.sink, self.thread, self.echo),
            ThreadStream("stderr", sys.stderr, self.sink, self.thread, self.echo),
        )
        sys.stdout, sys.stderr = self.streams
        self.input: ThreadInput | None = None
        if self.ask is not None:
            self.input = sys.stdin = ThreadInput(sys.stdin, self.streams[0], self.sink, self.thread, self.ask)
        return self

    def __exit__(self, *exc: object) -> None:
        for stream in self.streams:
            stream.close_line()
        # Restore only what we installed (someone else may have replaced it meanwhile).
        if sys.stdout is self.streams[0]:
            sys.stdout = self.saved[0]
        if sys.stderr is self.streams[1]:
            sys.stderr = self.saved[1]
        if self.input is not None and sys.stdin is self.input:
            sys.stdin = self.saved[2]
