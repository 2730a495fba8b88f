"""`graphscope run --headless`: run a script under the recorder with no UI, then print its summary."""

from __future__ import annotations

import sys
import time

from graphscope.trace import dot, snapshot
from graphscope.trace.summary_report import print_summary

from .session import Session, SessionOptions

# How often the live status line on a terminal's stderr is redrawn.
STATUS_SECONDS = 0.25
# The exit code of --fail-on-nan when a NaN/Inf appeared (the script's own code otherwise).
NAN_EXIT_CODE = 3


def run_headless(script: str, argv=(), *, export: str | None = None, dot_path: str | None = None,
                 fail_on_nan: bool = False, as_torch: bool = False, device: str | None = None) -> int:
    """Run `script`; print the summary; write the snapshot and DOT files (also when it raised)."""
    session = Session(script, list(argv), SessionOptions(
        as_torch=as_torch, device=device, pause=False, break_on_nan=False, echo=True))
    status = _StatusLine(session) if sys.stderr.isatty() else None
    session.start()
    try:
        while not session.join(STATUS_SECONDS):
            if status is not None:
                status.draw()
    except KeyboardInterrupt:
        session.quit()
        session.join(5)
    if status is not None:
        status.clear()
    record = session.record
    if record.error is not None and record.error.traceback:
        print(record.error.traceback, file=sys.stderr, end="" if record.error.traceback.endswith("\n") else "\n")
    print_summary(record)
    if export:
        snapshot.dump(record, export)
        print(f"snapshot written to {export}", file=sys.stderr)
    if dot_path:
        dot.write_dot(record, dot_path)
        print(f"graph written to {dot_path}", file=sys.stderr)
    code = session.state.exit_code if session.state.exit_code is not None else 130
    if fail_on_nan and record.has_nonfinite():
        return NAN_EXIT_CODE
    return code


class _StatusLine:
    """One line on stderr while the script runs: passes, nodes, elapsed time."""

    def __init__(self, session: Session):
        self.session = session
        self.start = time.monotonic()

    def draw(self) -> None:
        record = self.session.record
        text = (f"graphscope: running {self.session.script}: {len(record.passes)} passes, "
                f"{len(record.nodes)} nodes, {time.monotonic() - self.start:.1f} s")
        sys.stderr.write("\r" + text[:200] + "\x1b[K")
        sys.stderr.flush()

    def clear(self) -> None:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
