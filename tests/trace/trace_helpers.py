"""Helpers shared by the trace tests."""

import sys
from pathlib import Path

from graphscope.engine import hooks
from graphscope.trace.recording.recorder import Recorder


def line_of(marker: str) -> int:
    """The line of the calling test file whose comment ends with `# marker`."""
    caller = Path(sys._getframe(1).f_code.co_filename)
    for number, text in enumerate(caller.read_text().splitlines(), 1):
        if text.rstrip().endswith(f"# {marker}"):
            return number
    raise LookupError(marker)


def recorded(run, policy=None):
    """(recorder, record, what `run` returned) of running `run` under a recorder."""
    recorder = Recorder(policy)
    with hooks.observe(recorder):
        result = run()
    return recorder, recorder.finish(0), result
