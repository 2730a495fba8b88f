"""Runs a benchmark case in a fresh Python process that imports this checkout's graphscope,
so its peak RSS is its own and the checkout measured is the one the benchmark came from."""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_fresh(code: str, *args, one_blas_thread: bool = False) -> list[str]:
    """The words `code` (run with `python -c`, given `args`) printed to stdout."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    if one_blas_thread:
        env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    # cwd=ROOT: `python -c` puts the working directory first on sys.path, ahead of PYTHONPATH.
    out = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], check=False, capture_output=True, text=True, env=env, cwd=ROOT
    )
    if out.returncode != 0:
        raise SystemExit(f"the benchmark's fresh process failed (exit {out.returncode}):\n{out.stderr}")
    return out.stdout.split()
