"""Helpers shared by the trace tests."""

import sys
from pathlib import Path


def line_of(marker: str) -> int:
    """The line of the calling test file whose comment ends with `# marker`."""
    caller = Path(sys._getframe(1).f_code.co_filename)
    for number, text in enumerate(caller.read_text().splitlines(), 1):
        if text.rstrip().endswith(f"# {marker}"):
            return number
    raise LookupError(marker)
