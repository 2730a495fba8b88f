"""A headless run on a terminal draws a live status line on stderr; it must never hide or garble
what the script shows: an input() prompt, a line still being written."""

import contextlib
import os
import pty
import select
import subprocess
import sys
import time

import pytest

from tests.graphscope_command import HANG_SECONDS, env, script

STATUS = b"graphscope: running"


def _read_until(fd, needle: bytes, seen: bytearray) -> None:
    """Read the terminal into `seen` until `needle` appears in it (or the run hangs)."""
    deadline = time.monotonic() + HANG_SECONDS
    while needle not in seen:
        assert time.monotonic() < deadline, bytes(seen)
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                break


def _quiet_for(fd, seconds: float, seen: bytearray) -> bytes:
    """Everything the terminal shows during the next `seconds`."""
    start = len(seen)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            seen += os.read(fd, 4096)
    return bytes(seen[start:])


@contextlib.contextmanager
def _run_on_a_terminal(tmp_path, source):
    """A headless run of `source` with a terminal for stdin, stdout and stderr: (process, terminal)."""
    master, slave = pty.openpty()
    run = subprocess.Popen(
        [sys.executable, "-m", "graphscope", "run", "--headless", str(script(tmp_path, source))],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env(),
        close_fds=True,
    )
    os.close(slave)
    try:
        yield run, master
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        os.close(master)


@pytest.mark.slow
def test_the_status_line_waits_while_the_script_reads_a_prompted_answer(tmp_path):
    seen = bytearray()
    with _run_on_a_terminal(
        tmp_path,
        """
        import time
        import graphscope as gs
        w = gs.ones(2, requires_grad=True)
        (w * 2).sum().backward()
        time.sleep(0.6)  # long enough for the status line to be drawn first
        name = input("Your name? ")
        print("hello", name)
    """,
    ) as (run, master):
        _read_until(master, b"Your name? ", seen)
        assert STATUS in seen  # it was drawn before the prompt...
        assert STATUS not in _quiet_for(master, 1.0, seen)  # ...and not over the prompt since
        os.write(master, b"bob\n")
        _read_until(master, b"hello bob", seen)
        assert run.wait(timeout=HANG_SECONDS) == 0
    after_prompt = bytes(seen).split(b"Your name? ", 1)[1]
    assert not after_prompt.startswith(b"\r")  # nothing wiped the prompt's line


@pytest.mark.slow
def test_the_status_line_waits_while_the_scripts_line_is_unfinished(tmp_path):
    seen = bytearray()
    with _run_on_a_terminal(
        tmp_path,
        """
        import sys, time
        import graphscope as gs
        w = gs.ones(2, requires_grad=True)
        time.sleep(0.6)
        sys.stdout.write("progress: ")
        sys.stdout.flush()
        for _ in range(8):
            (w * 2).sum().backward()
            time.sleep(0.15)
        print("done")
    """,
    ) as (run, master):
        _read_until(master, b"done", seen)
        assert run.wait(timeout=HANG_SECONDS) == 0
    assert b"progress: done" in seen
