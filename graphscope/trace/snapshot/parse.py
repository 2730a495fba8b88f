"""Parsing a snapshot's JSON with bounded memory: refused with its sizes before anything is built when
it would take more memory than the process can have, each top-level section parsed only once it is
known to be one; errors name the line and column."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from json.decoder import scanstring  # type: ignore[attr-defined]  # there (the C scanner's); typeshed omits it
from typing import NoReturn, cast

from ..record.literal import visible
from .blobs import lift
from .file import size_text
from .format import FORMAT, SnapshotError, gc_paused
from .memory_room import memory_room

# The top-level sections of a snapshot of any version.
SECTIONS = frozenset(
    {
        "format",
        "version",
        "metadata",
        "sites",
        "strings",
        "tensors",
        "nodes",
        "passes",
        "console",
        "error",
        "findings",
        "optimizer",
        "dropped_values",
        "trimmed_nodes",
        "dropped_console",
        "rules",
        "training",
    }
)

# Bytes the parser allocates for each of these characters of the JSON (CPython 3.11, measured: an
# object or list with its place in its parent about 75, an object's entry with its key about 160,
# a number or short string about 45), beside the text itself, decoded: a character a byte if ASCII,
# else up to 4.
_COSTS = ((b"{", 80), (b"[", 80), (b":", 160), (b",", 48))
_SPACE = re.compile(r"[ \t\n\r]*")


def parse(data: bytes | str, source: str) -> tuple[object, dict[str, memoryview]]:
    """(the parsed document, placeholder -> the base64 bytes of each array lifted out of it
    (`blobs`)); from bytes, refused when parsing would not fit in memory."""
    blobs: dict[str, memoryview] = {}
    if isinstance(data, (bytes, bytearray)):
        if not data or data.isspace():
            raise SnapshotError(source, "", "the file is empty")
        reduced, blobs = lift(data)
        _refuse_past_memory(reduced, blobs, len(data), source)
        try:
            text = reduced.decode("utf-8")
        except UnicodeDecodeError:
            text = decode(data, source)  # raises, naming the byte in the whole file
        del reduced
    else:
        text = data
        if not text.strip():
            raise SnapshotError(source, "", "the file is empty")
    try:
        return _document(text, source), blobs
    except SnapshotError:
        if blobs:  # place the error in the whole text
            _document(decode(cast(bytes, data), source), source)  # blobs are lifted from bytes only
        raise


def decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SnapshotError(
            source, "", f"not a snapshot: not UTF-8 text (byte {e.start} cannot be decoded); is this a binary file?"
        ) from None


def _refuse_past_memory(reduced: bytes, blobs: dict[str, memoryview], size: int, source: str) -> None:
    """Refuse a document whose parse (and arrays, decoded) would take more memory than is left,
    counted with a few byte searches before anything is built."""
    room = memory_room()
    if room is None:
        return
    containers = reduced.count(b"{") + reduced.count(b"[")
    need = (
        len(reduced) * (1 if reduced.isascii() else 4)
        + sum(reduced.count(c) * cost for c, cost in _COSTS)
        + sum(map(len, blobs.values())) * 3 // 4
    )
    if need > room:
        raise SnapshotError(
            source,
            "",
            f"reading it would take about {size_text(need)} of memory, more than the "
            f"{size_text(room)} this process can have (the file is {size_text(size)}, "
            f"{size_text(len(reduced))} of it JSON outside its arrays, with "
            f"{containers:,} objects and lists)",
        )


def _document(text: str, source: str) -> object:
    try:
        with gc_paused():
            return _sections(text, source)
    except json.JSONDecodeError as e:
        where = f"line {e.lineno}, column {e.colno}"
        if e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string"):
            raise SnapshotError(
                source, where, "the JSON ends too early: the file is truncated (was it written completely?)"
            ) from None
        raise SnapshotError(source, where, f"not valid JSON: {e.msg}") from None
    except _BareConstant as e:
        raise SnapshotError(
            source,
            "",
            f'not strict JSON: it contains a bare {e.args[0]} (a snapshot writes "nan", "inf", "-inf" as strings)',
        ) from None
    except RecursionError:
        raise SnapshotError(source, "", "not a snapshot: its JSON is nested too deeply") from None
    except ValueError as e:  # e.g. an integer with thousands of digits
        raise SnapshotError(source, "", f"not valid JSON: {e}") from None


def _sections(text: str, source: str) -> object:
    """The document: an object's values each parsed once its key is known to be a section (and
    not one seen before), so no other JSON is built; anything but an object is parsed whole."""
    space = cast(Callable[..., re.Match[str]], _SPACE.match)  # never None: the pattern matches nothing too
    at = space(text).end()
    if not text.startswith("{", at):
        return _DECODER.decode(text)
    doc: dict[str, object] = {}
    at = space(text, at + 1).end()
    closed = text.startswith("}", at)
    while not closed:
        if not text.startswith('"', at):
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, at)
        key, at = scanstring(text, at + 1)
        at = space(text, at).end()
        if not text.startswith(":", at):
            raise json.JSONDecodeError("Expecting ':' delimiter", text, at)
        if key not in SECTIONS or key in doc:
            snapshot = "" if doc.get("format") == FORMAT else "not a graphscope snapshot: "
            raise SnapshotError(
                source,
                visible(key)[:80],
                snapshot + ("the section appears twice" if key in doc else "a snapshot has no such section"),
            )
        doc[key], at = _DECODER.raw_decode(text, space(text, at + 1).end())
        at = space(text, at).end()
        closed = text.startswith("}", at)
        if not closed:
            if not text.startswith(",", at):
                raise json.JSONDecodeError("Expecting ',' delimiter", text, at)
            at = space(text, at + 1).end()
    end = space(text, at + 1).end()
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return doc


class _BareConstant(ValueError):
    pass


def _bare_constant(name: str) -> NoReturn:
    raise _BareConstant(name)


_DECODER = json.JSONDecoder(parse_constant=_bare_constant)
