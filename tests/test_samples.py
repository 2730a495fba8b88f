"""Every script in samples/ runs to completion with plain `python samples/X.py`."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "samples").glob("*.py"))


def run_sample(path: Path) -> subprocess.CompletedProcess:
    """Run one sample as a user would, with the repository importable even if not installed."""
    import_path = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, import_path)))
    return subprocess.run(
        [sys.executable, str(path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_there_are_samples():
    assert SAMPLES, "samples/ holds no scripts"


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_sample_runs_to_completion(path):
    result = run_sample(path)
    assert result.returncode == 0, result.stderr


def test_fit_a_line_ends_close_to_the_true_line():
    result = run_sample(ROOT / "samples" / "fit_a_line.py")
    assert result.returncode == 0, result.stderr
    match = re.search(r"fitted: y = (-?[\d.]+)x \+ (-?[\d.]+)", result.stdout)
    assert match, result.stdout
    w, b = float(match[1]), float(match[2])
    assert w == pytest.approx(3.0, abs=0.1)
    assert b == pytest.approx(2.0, abs=0.1)
