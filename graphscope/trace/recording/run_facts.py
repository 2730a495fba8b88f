"""The record's facts about the run around its graph (metadata, console lines, the script's error), made
here so that the recorder keeps to the engine's events and hands these on."""

from __future__ import annotations

import datetime
import platform
import threading
import traceback

import numpy as np

from ..record.limits import FIELDS, clamp, cut
from ..record.model import ConsoleLine, Metadata, Record, ScriptError
from ..record.naming import error_site, graphscope_version, name
from ..record.optimizer_history import OptimizerHistory
from ..record.pass_history import PassHistory
from .keeping import Policy


def new_record(policy: Policy, script: str, argv: list[str] | None) -> Record:
    """An empty record of a run of `script` with `argv`, under `policy`."""
    record = Record(
        metadata=Metadata(
            script=cut(script, FIELDS["metadata.script"]),
            argv=[cut(a, FIELDS["metadata.argv"]) for a in argv or ()],
            started=_now(),
            graphscope_version=graphscope_version(),
            python_version=platform.python_version(),
            numpy_version=np.__version__,
            keep_first=policy.keep_first,
            keep_last=policy.keep_last,
            full_values_limit=policy.full_values_limit,
            memory_budget=policy.memory_budget,
        )
    )
    # (Record says a list of each; these read as lists)
    record.passes = PassHistory()  # type: ignore[assignment]  # a pass out of the detail window shrinks to a row
    record.optimizer = OptimizerHistory()  # type: ignore[assignment]  # so does an optimizer event
    return record


def finished(record: Record, exit_code: int | None) -> None:
    """The run ended now (with `exit_code`, when known)."""
    meta = record.metadata
    meta.finished = _now()
    if exit_code is not None:
        meta.exit_code = clamp(exit_code, FIELDS["metadata.exit_code"])


def add_console_line(record: Record, limit: int, stream: str, text: str, step: int | None) -> None:
    """The script wrote `text` to "stdout" or "stderr" (at backward step `step` of the pass under way, if
    any); past `limit` lines, the oldest are dropped and counted."""
    lines = record.console
    lines.append(
        ConsoleLine(stream, cut(text, FIELDS["console.text"]), len(record.passes), step, len(record.optimizer))
    )
    if len(lines) > limit:
        drop = len(lines) - limit
        del lines[:drop]
        record.dropped_console += drop


def other_thread_note(thread: threading.Thread) -> str:
    """What the user hears when a thread other than the recorded one used the engine."""
    return (
        f"graphscope: thread {name(thread.name)!r} used the engine; only the script's main "
        "thread is recorded, so that thread's ops are not in the graph"
    )


def script_error(error: BaseException, traceback_text: str | None, node: int | None) -> ScriptError:
    """The script's `error` as the record keeps it, with the node being stepped when it raised."""
    text = (
        traceback_text
        if traceback_text is not None
        else "".join(traceback.format_exception(type(error), error, error.__traceback__))
    )
    return ScriptError(
        name(type(error).__name__, FIELDS["error.type"]),
        cut(str(error), FIELDS["error.message"]),
        cut(text, FIELDS["error.traceback"], keep_end=True),
        node,
        error_site(error),
    )


def _now() -> str:
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")
