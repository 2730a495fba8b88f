"""What a hostile case must end in: its exit code, one line on stderr without a traceback, exports that load."""

from __future__ import annotations

from pathlib import Path

from graphscope.trace import snapshot
from tests.graphscope_command import graphscope


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
