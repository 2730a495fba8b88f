"""Lifting a snapshot's long base64 arrays out of its JSON text before parsing, so the parser never
copies hundreds of megabytes into Python strings; the reader decodes each from the file's bytes.

A lifted array is a string value of a key only arrays have ("data", "stats", or an array dtype's
name), at least MIN_LIFTED characters of base64; it becomes a placeholder string that names it.
The JSON's structure is unchanged (a string stays a string), so the document reads the same; an
error the parser finds is located again in the whole text (`read`)."""

from __future__ import annotations

import re
import uuid

from ..record.tensor_summary import ARRAY_DTYPES

MIN_LIFTED = 1024

_KEYS = "|".join(sorted(ARRAY_DTYPES | {"data", "stats"}))
# an unescaped quote opens the key (the look back follows the quote, so the search skips to each
# quote at once); its value's opening quote ends the match
_KEY = re.compile(rb'"(?<!\\")(?:' + _KEYS.encode() + rb')"[ \t\r\n]*:[ \t\r\n]*"')


def lift(data: bytes) -> tuple[bytes, dict[str, memoryview]]:
    """(the text with each long array replaced by a placeholder, placeholder -> the array's base64 bytes).

    The array's end is its closing quote, found with a byte search (the search for keys resumes
    after it, never reading the array): a value holding a backslash (an escape) is left in place."""
    token = f"@blob-{uuid.uuid4().hex}-"
    view = memoryview(data)
    pieces: list[bytes | memoryview] = []
    blobs: dict[str, memoryview] = {}
    at = search = 0
    while True:
        m = _KEY.search(data, search)
        if m is None:
            break
        start = m.end()
        end = data.find(b'"', start)
        if end < 0:
            break
        search = end + 1
        if end - start < MIN_LIFTED or data.find(b"\\", start, end) >= 0:
            continue
        key = f"{token}{len(blobs)}"
        blobs[key] = view[start:end]
        pieces += [view[at:start], key.encode("ascii")]
        at = end
    if not blobs:
        return data, blobs
    pieces.append(view[at:])
    return b"".join(pieces), blobs


def padding(text: str | memoryview) -> int:
    """How many "=" end this base64 text (a str, or a view of bytes)."""
    tail = text[-2:]
    return (bytes(tail) if isinstance(tail, memoryview) else tail.encode("ascii", "replace")).count(b"=")
