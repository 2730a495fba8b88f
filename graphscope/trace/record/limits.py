"""The one table of how much of each value from a script a record (and so a snapshot) holds: the
recorder cuts a value past its limit and marks the cut, the snapshot reader refuses one past it."""

from __future__ import annotations

from typing import TypedDict

from .literal import escaped, has_control

NAME_LIMIT = 4096  # characters of a name or a path
TEXT_LIMIT = 65536  # of free text: a source line, an argument, a message
LONG_TEXT_LIMIT = 4 * 2**20  # of a whole text: a traceback, one console write
EXIT_CODES = (-(2**63), 2**63 - 1)  # what sys.exit can give the system (a C long)
ID_LIMIT = 2**53  # of an id or a count: the largest integer a JSON number holds exactly

# FIELDS' type: a TypedDict, as its names are not identifiers (mypy holds the two to the same names).
_Fields = TypedDict(
    "_Fields",
    {
        "metadata.script": int,
        "metadata.argv": int,
        "metadata.exit_code": tuple[int, int],
        "metadata.started": int,
        "metadata.finished": int,
        "metadata.graphscope_version": int,
        "metadata.python_version": int,
        "metadata.numpy_version": int,
        "metadata.device": int,
        "console.text": int,
        "error.type": int,
        "error.message": int,
        "error.traceback": int,
        "sites.file": int,
        "sites.function": int,
        "sites.text": int,
        "strings": int,
        "passes.grad_norms": int,
        "findings.message": int,
        "findings.parameter": int,
        "optimizer.optimizer": int,
        "optimizer.settings": int,
        "optimizer.params.label": int,
        "optimizer.params.state": int,
        "rules": int,
        "rules.op": int,
        "training.params.name": int,
        "training.activations.module": int,
        "training.scalars.tag": int,
    },
)

# Each place in a snapshot that holds a string or what a script gave (directly or through a name it
# chose), and its limit: characters of a string, or the (lowest, highest) of an integer. The writer
# fits each string to its limit (`fit`), the reader refuses one past it.
FIELDS: _Fields = {
    "metadata.script": TEXT_LIMIT,
    "metadata.argv": TEXT_LIMIT,
    "metadata.exit_code": EXIT_CODES,
    "metadata.started": NAME_LIMIT,  # graphscope's own words: a time, versions, a device's name
    "metadata.finished": NAME_LIMIT,
    "metadata.graphscope_version": NAME_LIMIT,
    "metadata.python_version": NAME_LIMIT,
    "metadata.numpy_version": NAME_LIMIT,
    "metadata.device": NAME_LIMIT,
    "console.text": LONG_TEXT_LIMIT,
    "error.type": NAME_LIMIT,
    "error.message": LONG_TEXT_LIMIT,
    "error.traceback": LONG_TEXT_LIMIT,
    "sites.file": NAME_LIMIT,
    "sites.function": NAME_LIMIT,
    "sites.text": TEXT_LIMIT,
    "strings": NAME_LIMIT,  # the nodes' ops, modules, parameters, arguments' names and literals, saved roles
    "passes.grad_norms": NAME_LIMIT,  # keyed by leaf labels
    "findings.message": TEXT_LIMIT,
    "findings.parameter": NAME_LIMIT,
    "optimizer.optimizer": NAME_LIMIT,
    "optimizer.settings": NAME_LIMIT,
    "optimizer.params.label": NAME_LIMIT,
    "optimizer.params.state": NAME_LIMIT,
    "rules": TEXT_LIMIT,  # keyed by op names (rules.op)
    "rules.op": NAME_LIMIT,
    "training.params.name": NAME_LIMIT,  # leaf labels, as passes.grad_norms
    "training.activations.module": NAME_LIMIT,
    "training.scalars.tag": NAME_LIMIT,  # what the script logged under
}

# The string fields of free text (any character, shown literally); every other string field is a
# name, which holds no control character (the writer escapes them).
TEXTS = frozenset(
    {
        "metadata.script",
        "metadata.argv",
        "console.text",
        "error.message",
        "error.traceback",
        "sites.text",
        "findings.message",
        "rules",
    }
)


def cut(text: str, limit: int, keep_end: bool = False) -> str:
    """`text` if it has at most `limit` characters, else its start (its end, for a traceback) and a
    mark of the cut: `limit` characters in all."""
    if len(text) <= limit:
        return text
    mark = f"…[cut from {len(text):,} characters]"
    keep = limit - len(mark)  # every limit is far longer than its mark
    return mark + text[-keep:] if keep_end else text[:keep] + mark


def fit(text: str, limit: int, name: bool = False, keep_end: bool = False) -> str:
    """`text` as a record holds it: for a `name`, its control characters escaped; then cut to
    `limit` characters and marked (see `cut`)."""
    if name and has_control(text):
        text = escaped(text)
    return cut(text, limit, keep_end)


def clamp(value: int, bounds: tuple[int, int]) -> int:
    """An integer held to `bounds` (a bool, or another int subclass, as a plain int)."""
    low, high = bounds
    return min(max(int(value), low), high)
