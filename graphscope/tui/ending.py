"""How a `graphscope run` ended, as the one line it prints on stderr and the exit status it returns."""

from __future__ import annotations

import os

from graphscope.session import State
from graphscope.trace.record.literal import visible

# The exit status when the user quits before the script ended: quitting the debugger is no failure.
STOPPED_EXIT = 0


def ending(state, record, script: str) -> tuple[str, int]:
    """(line, exit status): the script's own status when it ended by itself (finished, or raised
    with 1), STOPPED_EXIT (0) when the user stopped it, saying where."""
    name = visible(os.path.basename(script) or "the script")
    if state is not None and state.kind.over:
        code = 1 if state.exit_code is None else int(state.exit_code)  # a status never reported: a failure
        error = record.error
        if state.kind == State.FAILED and error is not None:
            return f"graphscope: {name} raised {_error_text(error)} (exit code {code})", code
        return f"graphscope: {name} finished (exit code {code})", code
    return f"graphscope: {name} stopped by the user {_where(state, record)} (exit code {STOPPED_EXIT})", STOPPED_EXIT


def _error_text(error) -> str:
    """`ValueError: bad shape at model.py:12`, the message's first line only."""
    lines = error.message.splitlines() or [""]
    message = lines[0] + (" …" if len(lines) > 1 else "")
    text = f"{error.type}: {message}" if message else error.type
    site = error.site
    if site is not None:
        path = os.path.relpath(site.file) if not os.path.relpath(site.file).startswith("..") else site.file
        text += f" at {path}:{site.line}"
    return visible(text)


def _where(state, record) -> str:
    """`at pass 2, step 3 of 17`, `at the end of pass 2`, `while it ran, after 4 backward passes`."""
    passes = record.passes
    if state is None or state.kind != State.PAUSED or state.pass_index is None or state.pass_index >= len(passes):
        done = sum(1 for p in list(passes) if p.finished)
        return (
            f"while it ran, after {done} backward pass{'es' if done != 1 else ''}"
            if done
            else "before its first backward pass"
        )
    paused_in = passes[state.pass_index]
    total = len(paused_in.order)
    if state.step is not None and state.step < total:
        return f"at pass {paused_in.index}, step {state.step + 1} of {total}"
    return f"at the end of pass {paused_in.index}"
