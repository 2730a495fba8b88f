"""NodeHeader: the selected node at a glance: op, shape, dtype, device, module, parameter, and its source line."""

from __future__ import annotations

import os

from rich.text import Text
from textual.widgets import Static

from graphscope.trace.record import Node

from .moment import Moment
from .node_label import marks_text, one_line, shape_text


class NodeHeader(Static):
    """Always three lines (each cut to the width), so a new node never changes the layout; every
    string from the script is literal text."""

    DEFAULT_CSS = """
    NodeHeader { height: 3; padding: 0 1; background: $boost; }
    """

    def show(self, moment: Moment, node: Node | None) -> None:
        if node is None:
            self._last = None
            self.update(Text("Select a node in the tree to see its value and grad.", "dim"), layout=False)
            return
        marks = moment.marks(node.id)
        title = Text.assemble(marks_text(marks), " ", (one_line(node.op), "bold"))
        if node.name and node.name != node.op:
            title.append("  " + one_line(node.name), "dim")
        title.append(f"  #{node.id}", "dim")
        out = node.output
        facts = Text()
        if out is not None:
            facts.append(shape_text(out))
            facts.append(f"  {one_line(out.dtype)}  {one_line(out.device)}")
        if node.parameter:
            facts.append("  param ", "dim")
            facts.append(one_line(node.parameter), "cyan")
        if node.module:
            facts.append("  module ", "dim")
            facts.append(one_line(node.module), "blue")
        lines = [title, facts]
        site = node.site
        if site is not None:
            lines.append(Text.assemble((one_line(f"{os.path.basename(site.file)}:{site.line}"), "bold"),
                                       "  ", one_line(site.text.strip())))
        for line in lines:
            line.no_wrap = True
            line.overflow = "ellipsis"
        text = Text("\n").join(lines)
        if text != self._last:
            self._last = text
            self.update(text, layout=False)

    def on_mount(self) -> None:
        self._last = None
