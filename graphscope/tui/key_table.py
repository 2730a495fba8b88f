"""The README's table of keys, written from keys.py's rows in the help screen's order.

`python -m graphscope.tui.key_table --write` rewrites the part of README.md between the two key-table marker
comments (a test fails while they differ).
"""

from __future__ import annotations

import sys

from graphscope.readme_section import ReadmeSection
from graphscope.tui.keys import KEYS


def _lines() -> list[str]:
    """The table's lines: one row per key the help screen describes."""
    lines = ["| key | does |", "| --- | --- |"]
    for key in KEYS:
        if key.help:
            shown = " ".join(f"`{name}`" for name in key.shown.split())
            lines.append(f"| {shown} | {key.help.replace('|', chr(92) + '|')} |")
    return lines


SECTION = ReadmeSection("key-table", "table", _lines)
render, replaced = SECTION.render, SECTION.replaced


if __name__ == "__main__":
    sys.exit(SECTION.main(None, __doc__.splitlines()[0]))
