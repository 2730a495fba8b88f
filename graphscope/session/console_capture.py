"""Route what the script thread prints into the record's console, leaving other threads' output alone."""

from __future__ import annotations

import io
import sys
import threading


class ThreadStream(io.TextIOBase):
    """A stand-in for sys.stdout / sys.stderr: the script thread's writes go to `sink`, a line at a time."""

    def __init__(self, stream_name: str, original, sink, thread: threading.Thread, echo: bool):
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
    def encoding(self):
        return getattr(self.original, "encoding", "utf-8")


class ThreadInput(io.TextIOBase):
    """A stand-in for sys.stdin: the script thread's reads are answered by `ask(prompt)` (the
    debugger's console), never by the app's terminal; other threads read the real stdin."""

    def __init__(self, original, stdout: ThreadStream, sink, thread: threading.Thread, ask):
        self.original, self.stdout, self.sink, self.thread, self.ask = original, stdout, sink, thread, ask

    def readline(self, size: int = -1) -> str:
        if threading.current_thread() is not self.thread:
            return self.original.readline(size)
        prompt = self.stdout.take_partial()
        answer = self.ask(prompt)
        if answer is None:  # no more input (end of file)
            if prompt:
                self.sink("stdout", prompt)
            return ""
        self.sink("stdout", prompt + answer)  # the console shows the exchange as a terminal would
        return answer + "\n"

    def read(self, size: int = -1) -> str:
        return self.readline(size)

    def readable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self):
        return getattr(self.original, "encoding", "utf-8")


class ConsoleCapture:
    """Install ThreadStreams for one thread's lifetime; `echo` also passes the text through; with
    `ask`, the thread's stdin is answered by it (see ThreadInput)."""

    def __init__(self, sink, thread: threading.Thread, echo: bool = False, ask=None):
        self.sink, self.thread, self.echo, self.ask = sink, thread, echo, ask

    def __enter__(self):
        self.saved = sys.stdout, sys.stderr, sys.stdin
        self.streams = (
            ThreadStream("stdout", sys.stdout, self.sink, self.thread, self.echo),
            ThreadStream("stderr", sys.stderr, self.sink, self.thread, self.echo),
        )
        sys.stdout, sys.stderr = self.streams
        self.input = None
        if self.ask is not None:
            self.input = sys.stdin = ThreadInput(sys.stdin, self.streams[0], self.sink, self.thread, self.ask)
        return self

    def __exit__(self, *exc):
        for stream in self.streams:
            stream.close_line()
        # Restore only what we installed (someone else may have replaced it meanwhile).
        if sys.stdout is self.streams[0]:
            sys.stdout = self.saved[0]
        if sys.stderr is self.streams[1]:
            sys.stderr = self.saved[1]
        if self.input is not None and sys.stdin is self.input:
            sys.stdin = self.saved[2]
        return False
