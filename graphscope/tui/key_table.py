"""The README's table of keys, written from keys.py's rows in the help screen's order.

`python -m graphscope.tui.key_table --write` rewrites the part of README.md between the two key-table marker
comments (a test fails while they differ).
"""

from __future__ import annotations

import argparse
import os
import sys

from graphscope.tui.keys import KEYS

START = "<!-- key-table: start -->"
END = "<!-- key-table: end -->"
README = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "README.md")


def render() -> str:
    """The table as Markdown between the markers: one row per key the help screen describes."""
    lines = [START, "| key | does |", "| --- | --- |"]
    for key in KEYS:
        if key.help:
            shown = " ".join(f"`{name}`" for name in key.shown.split())
            lines.append(f"| {shown} | {key.help.replace('|', chr(92) + '|')} |")
    lines.append(END)
    return "\n".join(lines)


def replaced(readme_text: str) -> str:
    """`readme_text` with its table regenerated (a ValueError when the markers are missing)."""
    start, end = readme_text.find(START), readme_text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"README has no key-table markers: add the two lines\n{START}\n{END}")
    return readme_text[:start] + render() + readme_text[end + len(END) :]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite the table in {README}")
    args = parser.parse_args(argv)
    if not args.write:
        print(render())
        return 0
    with open(README, encoding="utf-8") as f:
        text = f.read()
    with open(README, "w", encoding="utf-8") as f:
        f.write(replaced(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
