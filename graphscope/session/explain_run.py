"""`graphscope explain`: run a script like `run --headless` (or read a snapshot) and print one
backward pass step by step, as text or Markdown."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TextIO

from graphscope.trace.explain.report import ExplainError, markdown_report, text_report
from graphscope.trace.recording.keeping import Policy
from graphscope.trace.snapshot import SnapshotError, load
from graphscope.trace.snapshot.source_kind import SNAPSHOT, SourceError, not_runnable, source_kind, surprise

from .headless import run_recorded

if TYPE_CHECKING:
    from graphscope.trace import Record

USAGE_ERROR = 2  # the exit code of a file or pass that cannot be explained


def explain(
    source: str,
    argv: Sequence[str] = (),
    *,
    pass_index: int = 0,
    markdown: bool = False,
    as_torch: bool = False,
    policy: Policy | None = None,
) -> int:
    """Explain pass `pass_index` of the script `source` run with `argv` (recorded under `policy`, its
    passes up to the one explained kept in detail), or of the snapshot `source` (told by its content,
    never its name); the exit code: the script's own, or 2 when there is nothing to explain."""
    if pass_index < 0:
        return _fail(f"pass {pass_index} does not exist: passes are numbered from 0")
    try:
        kind = source_kind(source)
    except SourceError as error:
        return _fail(str(error))
    if kind != SNAPSHOT and (problem := not_runnable(source, kind)) is not None:
        return _fail(problem)
    if (note := surprise(source, kind)) is not None:
        print(f"graphscope: {note}", file=sys.stderr)
    if kind == SNAPSHOT:
        if as_torch or argv or policy is not None:
            return _fail(f"{source} is a snapshot: --as-torch, --full-values and arguments go with a script")
        try:
            record = load(source)
        except SnapshotError as error:
            return _fail(str(error))
        return _print(record, pass_index, markdown, 0)

    stdout = sys.stdout

    def report(record: Record, code: int, notes: list[str]) -> int:
        for line in notes:
            print(line, file=sys.stderr)
        return _print(record, pass_index, markdown, code, stdout)

    # The script's own output goes to stderr (stdout is the explanation, fit for a file), and it
    # reads the real stdin; passes up to the one explained are kept in detail.
    with contextlib.redirect_stdout(sys.stderr):
        return run_recorded(
            source, argv, report, as_torch=as_torch, policy=replace(policy or Policy(), keep_first=pass_index + 1)
        )


def _print(record: Record, pass_index: int, markdown: bool, code: int, stdout: TextIO | None = None) -> int:
    try:
        text = (markdown_report if markdown else text_report)(record, pass_index)
    except ExplainError as error:
        return _fail(str(error))
    (stdout or sys.stdout).write(text)
    return code


def _fail(message: str) -> int:
    print(f"graphscope: {message}", file=sys.stderr)
    return USAGE_ERROR
