"""Running graphscope as a user would (a subprocess of this worktree's code) and checking what a
hostile case must end in: its exit code, one line on stderr without a traceback, exports that load."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

from graphscope.trace import snapshot

ROOT = Path(__file__).resolve().parents[2]
# A hang fails the test instead of blocking the suite (generous: the machines are shared).
HANG_SECONDS = 120


def env(**extra) -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra}


def graphscope(*args, cwd=None, stdin=subprocess.DEVNULL, timeout=HANG_SECONDS, memory=None, **extra_env):
    """`python -m graphscope ARGS` with this worktree's code, its address space capped at `memory`
    bytes when given (a case that must not exhaust memory fails instead of swapping); the CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "graphscope", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env(**extra_env), stdin=stdin, timeout=timeout, check=False,
                          preexec_fn=None if memory is None else lambda: _cap_memory(memory))


def _cap_memory(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def script(folder: Path, source: str, name: str = "model.py") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def one_line_error(result, code: int = 2, *needles: str) -> str:
    """Assert the run exited `code` with exactly one line on stderr, holding each needle, no traceback."""
    assert result.returncode == code, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr[-2000:]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def loads(path: Path):
    """Assert the export at `path` loads (the in-process reader and `graphscope summary` both)."""
    record = snapshot.load(path)
    summary = graphscope("summary", path)
    assert summary.returncode == 0 and "Traceback" not in summary.stderr, summary.stderr[-2000:]
    return record
