"""Evaluator: Python typed at a pause, run in the paused script's own frames (pdb's `p` and `!`, `up` and `down`),
without recording what it runs: its engine ops are the debugger's, not the script's nodes."""

from __future__ import annotations

import contextlib
import ctypes
import io
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING

from graphscope.engine.hooks import PACKAGE_DIR, debugger_thread
from graphscope.trace.stats.summarize import summarize

if TYPE_CHECKING:
    from graphscope.trace import Record, TensorSummary

# How much of a result's repr an answer holds (the TUI cuts it further to its width; `all` shows more).
REPR_LIMIT = 20_000


@dataclass(frozen=True)
class Evaluation:
    """The answer to one typed line: what it printed and its result's repr (`output`), a tensor
    result's summary (shown as the Value tab shows a tensor), an error as one line, the names a
    statement assigned."""

    text: str
    output: str = ""
    summary: TensorSummary | None = None
    error: bool = False
    assigned: tuple[str, ...] = ()


@dataclass(frozen=True)
class FrameInfo:
    """One of the script's frames, as the status line and `up`/`down` name it."""

    file: str
    line: int
    function: str

    def __str__(self) -> str:
        return f"{self.function} at {os.path.basename(self.file)}:{self.line}"


def user_frames(frame: FrameType | None) -> list[FrameType]:
    """The script's own frames from `frame` (where the debugger holds the thread) outward, innermost
    first: graphscope's frames (the engine, the session) and what they called (the wait) skipped,
    and nothing from where the runner started the script."""
    frames: list[FrameType] = []
    inside = False  # reached graphscope's frames: the script's are outward of them
    while frame is not None:
        if frame.f_globals.get("__name__") == "runpy":  # the runner's (frozen in some Pythons)
            break
        file = os.path.abspath(frame.f_code.co_filename)
        ours = file.startswith(PACKAGE_DIR)
        inside = inside or ours
        if inside and not ours:
            frames.append(frame)
        frame = frame.f_back
    return frames


class Evaluator:
    """Evaluates lines in one of the frames of a paused thread (`thread()`: None when there is none
    to look at), the innermost of the user's by default; `up`/`down` choose another."""

    def __init__(self, thread: Callable[[], threading.Thread | None]) -> None:
        self._thread = thread
        self._level = 0  # 0: the innermost user frame; higher: its callers
        self._lock = threading.Lock()  # one evaluation at a time

    def frames(self) -> list[FrameType]:
        thread = self._thread()
        if thread is None or thread.ident is None:
            return []
        return user_frames(sys._current_frames().get(thread.ident))

    def reset(self) -> None:
        """A new pause: back to the innermost frame."""
        self._level = 0

    def where(self) -> list[FrameInfo]:
        """The script's frames, innermost first."""
        return [FrameInfo(f.f_code.co_filename, f.f_lineno, f.f_code.co_name) for f in self.frames()]

    @property
    def level(self) -> int:
        return self._level

    def move(self, delta: int) -> str:
        """Up (+1, to the caller) or down (-1): which frame it is in now, or why it cannot move."""
        frames = self.where()
        if not frames:
            return "no frame to move in: the script is not paused"
        level = self._level + delta
        if not 0 <= level < len(frames):
            return f"{'oldest' if delta > 0 else 'newest'} frame already: {frames[self._level]}"
        self._level = level
        return f"frame {level} of {len(frames) - 1}: {frames[level]}"

    def completions(self, prefix: str) -> list[str]:
        """Names in the frame (its locals, globals and builtins) or attributes (`model.fc.we`) that
        begin with what is typed, sorted."""
        frame = self._frame()
        if frame is None:
            return []
        head, dot, stem = prefix.rpartition(".")
        if dot:
            try:
                with debugger_thread():
                    owner = eval(head, frame.f_globals, dict(frame.f_locals))
            except Exception:  # noqa: BLE001 (nothing to complete)
                return []
            return sorted(f"{head}.{name}" for name in dir(owner) if name.startswith(stem))
        names = set(frame.f_locals) | set(frame.f_globals) | set(dir(__builtins__))
        return sorted(name for name in names if name.startswith(stem))

    def evaluate(self, text: str) -> Evaluation:
        """Evaluate an expression (its result answered) or run a statement (its assignments noted),
        in the chosen frame; an exception is answered as one line and the script stays paused."""
        frame = self._frame()
        if frame is None:
            return Evaluation(text, "no frame to evaluate in: the script is not paused", error=True)
        try:
            code, expression = compile(text, "<expression>", "eval"), True
        except SyntaxError:
            try:
                code, expression = compile(text, "<statement>", "exec"), False
            except SyntaxError as error:
                return Evaluation(text, f"SyntaxError: {error.msg}", error=True)
        local = frame.f_locals  # one dict for the line (each read of f_locals refreshes it from the frame)
        before = {name: id(value) for name, value in local.items()}
        printed = io.StringIO()
        with self._lock, debugger_thread(), contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            try:
                result = eval(code, frame.f_globals, local)
            except Exception as error:  # noqa: BLE001 (any failure is an answer, not a crash)
                return Evaluation(text, _joined(printed.getvalue(), _one_line(error)), error=True)
            finally:
                _write_back(frame)
        assigned = tuple(name for name, value in local.items() if before.get(name) != id(value))
        output = printed.getvalue()
        if not expression or result is None:
            return Evaluation(text, output.rstrip("\n"), assigned=assigned)
        summary = _summary(result)
        shown = _described(result, summary) if summary is not None else _repr(result)
        return Evaluation(text, _joined(output, shown), summary, assigned=assigned)

    def _frame(self) -> FrameType | None:
        frames = self.frames()
        if not frames:
            return None
        self._level = min(self._level, len(frames) - 1)
        return frames[self._level]


def _write_back(frame: FrameType) -> None:
    """Assignments to a function's locals reach the frame (as pdb's do when it resumes)."""
    locals_to_fast = getattr(ctypes.pythonapi, "PyFrame_LocalsToFast", None)
    if locals_to_fast is not None and frame.f_code.co_flags & 0x1:  # CO_OPTIMIZED: a function's frame
        locals_to_fast(ctypes.py_object(frame), ctypes.c_int(0))


def _summary(value: object) -> TensorSummary | None:
    """A tensor's (or an array's) summary, made on its own device; None for anything else."""
    array = getattr(value, "array", value)
    if not all(hasattr(array, name) for name in ("shape", "dtype", "ndim", "size")):
        return None
    try:
        return summarize(array)
    except Exception:  # noqa: BLE001 (something array-like that is not one: shown by its repr)
        return None


def _described(value: object, summary: TensorSummary) -> str:
    kind = type(value).__name__
    grad = " (requires grad)" if getattr(value, "requires_grad", False) else ""
    return f"{kind} {tuple(summary.shape)} {summary.dtype} on {summary.device}{grad}"


def _repr(value: object) -> str:
    try:
        text = repr(value)
    except Exception as error:  # noqa: BLE001 (a broken __repr__ is the user's to read)
        return f"(its repr failed: {_one_line(error)})"
    return text if len(text) <= REPR_LIMIT else text[:REPR_LIMIT] + "…"


def _one_line(error: BaseException) -> str:
    message = str(error).strip().splitlines()
    return f"{type(error).__name__}: {message[0]}" if message else type(error).__name__


def _joined(printed: str, answer: str) -> str:
    return printed + answer if printed.endswith("\n") or not printed else f"{printed}\n{answer}"


NO_FRAME = "no live frame in a snapshot: type #id or a node's name to see its value and grad"


def record_answer(record: Record, text: str) -> Evaluation:
    """What a snapshot can answer instead of evaluating: a node by `#id` or name (its op, parameter
    or module path), its value summary and the last grad it received."""
    wanted = text.strip()
    node = None
    if wanted.lstrip("#").isdigit():
        node = record.nodes.get(int(wanted.lstrip("#")))
    else:
        node = next((n for n in record.nodes.values() if wanted in (n.name, n.parameter)), None)
    if node is None:
        return Evaluation(text, f"{NO_FRAME} (no node {wanted!r} in the record)", error=True)
    grad = None
    for p in record.passes:
        for step in p.steps:
            if step.node == node.id:
                grad = step.grad_output
    where = f" at {os.path.basename(node.site.file)}:{node.site.line}" if node.site is not None else ""
    lines = [f"#{node.id} {node.op}{where}"]
    if node.output is not None:
        lines.append(f"value: {tuple(node.output.shape)} {node.output.dtype}, {_stats(node.output)}")
    lines.append(f"grad: {_stats(grad)}" if grad is not None else "grad: none in the record")
    return Evaluation(text, "\n".join(lines), node.output)


def _stats(s: TensorSummary) -> str:
    bad = f", {s.nan_count} NaN, {s.inf_count} Inf" if s.has_nonfinite else ""
    return f"min {s.min} max {s.max} norm {s.norm}{bad}"
