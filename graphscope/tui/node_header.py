"""NodeHeader: the selected node at a glance: op, shape, dtype, device, module, parameter, and its source line."""

from __future__ import annotations

import os

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from graphscope.trace.record.model import PARAMETER, Node

from .moment import PARAMETER as PARAMETER_MARK
from .moment import Moment
from .node_args import args_words
from .node_label import marks_text, one_line, shape_text


class NodeHeader(Static):
    """The op with its arguments (or the parameter's name) on one line cut to the width; the facts
    and the source line wrap (a line cut at the pane's edge reads as a different expression). Every
    string from the script is literal text."""

    MIN_LINES, MAX_LINES = 3, 7
    DEFAULT_CSS = f"""
    NodeHeader {{ height: auto; min-height: {MIN_LINES}; max-height: {MAX_LINES}; padding: 0 1; background: $boost; }}
    """

    def show(self, moment: Moment, node: Node | None) -> None:
        if node is None:
            self._last = None
            self.update(Text("Select a node in the tree to see its value and grad.", "dim"), layout=False)
            return
        marks = moment.marks(node.id)
        title = Text.assemble(marks_text(marks), " ", no_wrap=True, overflow="ellipsis")
        if node.op == PARAMETER and node.parameter:
            title.append(f"{PARAMETER_MARK} {one_line(node.parameter)}", "bold cyan")
        else:
            title.append(one_line(node.op), "bold")
            for word in args_words(node, moment.record.nodes):
                title.append("  " + one_line(word), "magenta")
            if node.name and node.name != node.op:
                title.append("  " + one_line(node.name), "dim")
        title.append(f"  #{node.id}", "dim")
        out = node.output
        facts = Text(overflow="fold")  # wraps: a long module path's end matters
        if out is not None:
            facts.append(shape_text(out))
            facts.append(f"  {one_line(out.dtype)}  {one_line(out.device)}")
        if node.parameter and node.op != PARAMETER:
            facts.append("  param ", "dim")
            facts.append(one_line(node.parameter), "cyan")
        if node.module:
            facts.append("  module ", "dim")
            facts.append(one_line(node.module), "blue")
        lines = [title, facts]
        site = node.site
        if site is not None:
            lines.append(
                Text.assemble(
                    (one_line(f"{os.path.basename(site.file)}:{site.line}"), "bold"),
                    "  ",
                    one_line(site.text.strip()),
                    overflow="fold",
                )
            )
        if lines != self._last:  # each line keeps its own wrapping: a Group, not one joined Text
            self._last = lines
            self.update(Group(*lines), layout=False)
            if not self._fits():
                self.refresh(layout=True)
                # And a layout once this refresh is done: Textual counts a layout request only when none
                # is pending, and keeps a box (its height) per count, so an update landing while an
                # earlier request waits keeps the earlier text's height (the source line cut short).
                self.call_after_refresh(self.refresh, layout=True)

    def _fits(self) -> bool:
        """Whether the new text takes as many lines as the box has: most steps change the words, not
        the height, and a layout pass of the whole screen costs more than drawing it."""
        width = self.content_size.width
        if width <= 0:
            return False  # not laid out yet
        lines = self.visual.get_height(self.styles, width)  # type: ignore[arg-type]  # as Textual measures it
        return min(max(lines, self.MIN_LINES), self.MAX_LINES) == self.size.height

    def on_mount(self) -> None:
        self._last = None
