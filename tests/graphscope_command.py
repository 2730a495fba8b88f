"""Running graphscope as a user would: `python -m graphscope` in a subprocess, on this worktree's code."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A hang fails the test instead of blocking the suite (generous: the machines are shared).
HANG_SECONDS = 300


def env(**extra) -> dict:
    """The environment of a subprocess that imports this worktree's graphscope (and the tests' helpers)."""
    import_path = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, import_path)), **extra}


def graphscope(*args, cwd=ROOT, input=None, stdin=subprocess.DEVNULL, timeout=HANG_SECONDS, memory=None, **extra_env):
    """`python -m graphscope ARGS` with this worktree's code, `input` on its stdin when given, its address space
    capped at `memory` bytes when given (a case that must not exhaust memory fails instead of swapping)."""
    return subprocess.run(
        [sys.executable, "-m", "graphscope", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env(**extra_env),
        input=input,
        stdin=None if input is not None else stdin,
        timeout=timeout,
        check=False,
        preexec_fn=None if memory is None else lambda: _cap_memory(memory),
    )


def _cap_memory(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def script(folder: Path, source: str, name: str = "model.py") -> Path:
    """`source`, dedented, written to `folder`/`name`."""
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path
