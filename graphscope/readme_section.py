"""A part of README.md written from the code between two marker comments (the API list, the key table):
drawn, put in place, and rewritten by `python -m MODULE --write`, while a test fails whenever it is stale."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


class ReadmeSection:
    """The README's part named `name`, between `<!-- name: start -->` and `<!-- name: end -->`; `draw`
    gives its lines."""

    def __init__(self, name: str, what: str, draw: Callable[[], list[str]]):
        self.start, self.end = f"<!-- {name}: start -->", f"<!-- {name}: end -->"
        self._name, self._what, self._draw = name, what, draw

    def render(self) -> str:
        """The part as Markdown between its markers."""
        return "\n".join([self.start, *self._draw(), self.end])

    def replaced(self, readme_text: str) -> str:
        """`readme_text` with this part regenerated (a ValueError when its markers are missing)."""
        start, end = readme_text.find(self.start), readme_text.find(self.end)
        if start < 0 or end < start:
            raise ValueError(f"README has no {self._name} markers: add the two lines\n{self.start}\n{self.end}")
        return readme_text[:start] + self.render() + readme_text[end + len(self.end) :]

    def main(self, argv: list[str] | None, description: str) -> int:
        """The command line: print the part, or with `--write` rewrite it in README.md."""
        parser = argparse.ArgumentParser(description=description)
        parser.add_argument("--write", action="store_true", help=f"rewrite the {self._what} in {README}")
        if not parser.parse_args(argv).write:
            print(self.render())
            return 0
        with open(README, encoding="utf-8") as f:
            text = f.read()
        with open(README, "w", encoding="utf-8") as f:
            f.write(self.replaced(text))
        return 0
