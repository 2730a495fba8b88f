"""StopPrinter: a headless run's breakpoints (`--break`): each stop printed (the node, its line, its inputs'
values), a plain pdb opened in the script's frame there with `--post-mortem`, and the run continued."""

from __future__ import annotations

import linecache
import os
import pdb
import sys
from typing import TYPE_CHECKING, TextIO

from .evaluator import user_frames
from .state import SessionState, State

if TYPE_CHECKING:
    from graphscope.trace import Node, Record, TensorSummary

    from .session import Session


def summary_words(s: TensorSummary | None) -> str:
    """A value in one line: shape, dtype, the finite values' range and mean, the NaN/Inf counts."""
    if s is None:
        return "(not recorded)"
    words = f"{tuple(s.shape)} {s.dtype}"
    if s.min is not None:
        words += f"  min {s.min:.6g}  max {s.max:.6g}"
    if s.mean is not None:
        words += f"  mean {s.mean:.6g}"
    if s.has_nonfinite:
        words += f"  NaN {s.nan_count}  Inf {s.inf_count}"
    return words


def describe_stop(record: Record, state: SessionState) -> list[str]:
    """The lines a headless run prints at a stop: why and where, the source line, the inputs'
    values and the node's own (and, before a backward step, the grad it receives)."""
    nodes = record.nodes
    node_id = state.created if state.created is not None else state.node
    node = nodes.get(node_id) if node_id is not None else None
    if node is None:  # the end of a pass (a step breakpoint): no node
        return [f"graphscope: stop ({state.reason}) at the end of pass {state.pass_index}"]
    if state.created is not None:
        moment = f"forward of pass {node.pass_index}"
    else:
        assert state.pass_index is not None and state.step is not None  # a backward stop has both
        passed = record.passes[state.pass_index]
        moment = f"backward of pass {passed.index}, step {state.step + 1} of {len(passed.order)}"
    lines = [f"graphscope: stop ({state.reason}) in the {moment}: #{node.id} {node.op}{_where(node)}"]
    if node.site is not None:
        source = linecache.getline(node.site.file, node.site.line).strip()
        if source:
            lines.append(f"    {source}")
    for i in node.inputs:
        given = nodes.get(i)
        name = f"#{i} {given.op}" if given is not None else f"#{i}"
        lines.append(f"  input {name}: {summary_words(given.output if given is not None else None)}")
    lines.append(f"  value: {summary_words(node.output)}")
    if state.created is None and state.pass_index is not None and state.step is not None:
        steps = record.passes[state.pass_index].steps
        if state.step < len(steps):
            lines.append(f"  grad in: {summary_words(steps[state.step].grad_output)}")
    return lines


def _where(node: Node) -> str:
    return f" at {os.path.basename(node.site.file)}:{node.site.line}" if node.site is not None else ""


class StopPrinter:
    """A session listener for a headless run: at each pause, print it (on the stream of the start,
    not the script's captured one), open pdb in the script's innermost frame when asked, and continue.
    Quitting pdb (q, or the end of its input) stops the script."""

    def __init__(self, session: Session, stream: TextIO, post_mortem: bool = False) -> None:
        self.session, self.stream, self.post_mortem = session, stream, post_mortem

    def __call__(self, state: SessionState) -> None:
        if state.kind != State.PAUSED:
            return
        for line in describe_stop(self.session.record, state):
            print(line, file=self.stream)
        self.stream.flush()
        if self.post_mortem and not self._debug():
            self.session.quit()
            return
        self.session.continue_()

    def _debug(self) -> bool:
        """pdb in the script's innermost frame (we are on the script's thread, held at the stop);
        False when the user quit it."""
        frames = user_frames(sys._getframe())
        if not frames:
            return True
        debugger = pdb.Pdb(stdout=self.stream)  # its words are not the script's prints
        debugger.reset()
        debugger.interaction(frames[0], None)
        return not debugger.quitting


def post_mortem(error: BaseException | None) -> None:
    """pdb where the script raised (`--post-mortem` after a failed run)."""
    if error is not None and error.__traceback__ is not None:
        pdb.post_mortem(error.__traceback__)
