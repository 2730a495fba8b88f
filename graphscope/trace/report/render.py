"""`graphscope render`: the recorded graph (all of it, one pass's or one module's part) as an SVG or PNG
picture, drawn by Graphviz's `dot` program from `report.dot`'s DOT text and its marks."""

from __future__ import annotations

import os
import shutil
import subprocess

from ..record.model import Record
from ..snapshot.atomic_file import WriteError, write_atomically
from .dot import select, to_dot

FORMATS = {".svg": "svg", ".png": "png"}
# More nodes than this make a picture nobody can read (and keep `dot` busy for minutes): choose a part.
MOST_NODES = 3000
NO_DOT = (
    "Graphviz's `dot` program is not on PATH: install Graphviz (apt-get install graphviz, brew install "
    "graphviz) to draw pictures, or write DOT text with `graphscope run --headless --dot FILE`"
)


class RenderError(Exception):
    """A picture that was not drawn, and why, in one line."""


def picture_format(out: str) -> str:
    """Graphviz's name for the picture format `out`'s extension asks for."""
    extension = os.path.splitext(out)[1].lower()
    if extension not in FORMATS:
        raise RenderError(f"cannot write {out}: a picture is .svg or .png, not {extension or 'a file without one'}")
    return FORMATS[extension]


def check_part(record: Record, pass_index: int | None, module: str | None) -> None:
    """Refuse a pass or module the record lacks, or a part too big to draw, saying what there is."""
    if pass_index is not None and not select(record, pass_index):
        made = sorted({n.pass_index for n in record.nodes.values()})
        raise RenderError(f"no pass {pass_index} in the snapshot: its passes are {_listed(made)}")
    if module is not None and not select(record, pass_index, module):
        modules = sorted({n.module for n in select(record, pass_index).values() if n.module})
        where = "the snapshot" if pass_index is None else f"pass {pass_index}"
        raise RenderError(f"no module {module!r} in {where}: its modules are {_listed(modules)}")
    count = len(select(record, pass_index, module))
    if count > MOST_NODES:
        raise RenderError(
            f"{count} nodes are too many to draw (at most {MOST_NODES}): choose a part with --pass N or --module NAME"
        )


def _listed(items: list[int] | list[str], most: int = 8) -> str:
    if not items:
        return "none"
    shown = ", ".join(repr(i) if isinstance(i, str) else str(i) for i in items[:most])
    return shown + (f", … ({len(items)} in all)" if len(items) > most else "")


def render(record: Record, out: str, pass_index: int | None = None, module: str | None = None) -> None:
    """Draw the graph (or its part) to `out` through `dot`; RenderError saying why when it cannot be."""
    fmt = picture_format(out)
    check_part(record, pass_index, module)
    program = shutil.which("dot")
    if program is None:
        raise RenderError(NO_DOT)
    text = to_dot(record, pass_index, module)
    try:
        done = subprocess.run([program, f"-T{fmt}"], input=text.encode("utf-8"), capture_output=True, check=False)
    except OSError as error:
        raise RenderError(f"cannot run {program}: {error.strerror or error}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RenderError(f"dot failed (exit {done.returncode}): {said[0] if said else 'it said nothing'}")
    try:
        write_atomically(out, done.stdout, "picture")
    except WriteError as error:
        raise RenderError(str(error)) from None
