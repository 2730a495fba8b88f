"""SourceView: the script's source around the line that created a node, that line highlighted."""

from __future__ import annotations

import linecache
import os

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual.widgets import Static

from graphscope.trace.record.literal import visible
from graphscope.trace.record.model import SourceSite

CONTEXT = 6


class SourceView(Static):
    """Reads the file when it is still on disk; otherwise shows the line the record kept. Long lines
    wrap: a line cut at the pane's edge reads as a different expression."""

    DEFAULT_CSS = """
    SourceView { height: auto; padding: 0 1; }
    """

    def show(self, site: SourceSite | None) -> None:
        if site is None:
            self.update(Text("No source line: the record holds none for this node.", "dim"))
            return
        where = Text.assemble(
            (visible(os.path.basename(site.file)), "bold"), f":{site.line}", (" in ", "dim"), visible(site.function)
        )
        lines = linecache.getlines(site.file) if os.path.isfile(site.file) else []
        if not lines or site.line > len(lines):
            self.update(Group(where, Text(visible(site.text) or "(source not available)")))
            return
        first = max(1, site.line - CONTEXT)
        last = min(len(lines), site.line + CONTEXT)
        code = visible("".join(lines[first - 1 : last]))
        syntax = Syntax(
            code,
            "python",
            line_numbers=True,
            start_line=first,
            highlight_lines={site.line},
            word_wrap=True,
            theme="ansi_dark",
            background_color="default",
        )
        self.update(Group(where, syntax))
