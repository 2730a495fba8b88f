"""The tree passes its linter, its formatter's check and its type checker, as configured in pyproject.toml.

The same three commands run first in CI (.ci/run); these tests say which one failed and show its report.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def assert_clean(result: subprocess.CompletedProcess[str]) -> None:
    command = " ".join(result.args[2:])
    assert result.returncode == 0, f"`{command}` exited {result.returncode}:\n{result.stdout}{result.stderr}"


def test_ruff_finds_nothing():
    assert_clean(run("ruff", "check", "."))


def test_the_code_is_ruff_formatted():
    assert_clean(run("ruff", "format", "--check", "."))


@pytest.mark.slow
def test_mypy_finds_nothing():
    assert_clean(run("mypy"))
