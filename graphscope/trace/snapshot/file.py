"""Reading a snapshot file's bytes safely: a regular file only, bounded, refused early when it cannot be one."""

from __future__ import annotations

import os
import stat
from typing import NoReturn

from ..record.literal import visible
from .format import (
    SnapshotError,
)
from .memory_room import memory_room
from .source_kind import file_type

# The largest snapshot file read; GRAPHSCOPE_MAX_SNAPSHOT (bytes) changes it.
MAX_SNAPSHOT_BYTES = 2 * 2**30
_READ_CHUNK = 1 << 24
_JSON_SPACE = b" \t\r\n"


def max_snapshot_bytes() -> int:
    text = os.environ.get("GRAPHSCOPE_MAX_SNAPSHOT", "").strip()
    try:
        return int(text) if text else MAX_SNAPSHOT_BYTES
    except ValueError:
        raise SnapshotError("GRAPHSCOPE_MAX_SNAPSHOT", "", f"{visible(text)[:40]!r} is not a number of bytes") from None


def read_snapshot_bytes(path: str) -> bytes:
    """The bytes of a snapshot file: only a regular file (never a FIFO or device, which could
    block or never end), at most max_snapshot_bytes(); leading whitespace is skipped a chunk at a
    time, reading stops at once when the first other byte cannot begin a snapshot (or its chunk
    holds a NUL), and the rest is read at once into one buffer."""
    limit = max_snapshot_bytes()
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except IsADirectoryError:
        raise SnapshotError(path, "", "is a folder, not a snapshot file") from None
    except OSError as e:
        raise SnapshotError(path, "", f"cannot read the file: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SnapshotError(path, "", f"is {file_type(st.st_mode)}, not a snapshot file")
        if st.st_size > limit:
            raise SnapshotError(
                path,
                "",
                f"the file is {size_text(st.st_size)}, more than the {size_text(limit)} "
                "a snapshot may be (set GRAPHSCOPE_MAX_SNAPSHOT, in bytes, to raise it)",
            )
        room = memory_room()
        if room is not None and st.st_size > room:
            raise SnapshotError(
                path,
                "",
                f"the file is {size_text(st.st_size)}, more than the {size_text(room)} "
                "of memory this process can have to read it",
            )
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        begin, lines, offset = None, 1, 0
        while begin is None:  # leading whitespace, a chunk at a time
            head = os.pread(fd, _READ_CHUNK, offset)
            if not head:
                return b""
            start = len(head) - len(head.lstrip(_JSON_SPACE))
            if start == len(head):
                lines += head.count(b"\n")
                offset += len(head)
                continue
            lines += head.count(b"\n", 0, start)
            first = head[start : start + 1]
            if first != b"{":
                _refuse_start(path, first, lines, start - head.rfind(b"\n", 0, start))
            begin = offset + start
            _refuse_nul(path, head, start, offset)  # a binary file soon has one: refused before reading on
        # the rest in one read into one new buffer (none zeroed first, none joined from pieces)
        data = os.pread(fd, max(st.st_size - begin, 0) + 1, begin)
        if len(data) > st.st_size - begin:  # the file grows while being read
            parts = [data]
            while data and begin + sum(map(len, parts)) <= limit:
                data = os.pread(fd, _READ_CHUNK, begin + sum(map(len, parts)))
                parts.append(data)
            data = b"".join(parts)
        _refuse_nul(path, data, 0, begin)
        if begin + len(data) > limit:
            raise SnapshotError(
                path,
                "",
                f"the file is more than the {size_text(limit)} a snapshot may be "
                "(set GRAPHSCOPE_MAX_SNAPSHOT, in bytes, to raise it)",
            )
    except OSError as e:
        raise SnapshotError(path, "", f"cannot read the file: {e.strerror or e}") from None
    finally:
        os.close(fd)
    return data


def _refuse_nul(path: str, data: bytes, start: int, offset: int) -> None:
    """A NUL byte is never in JSON text (found with memchr: cheap); `offset` is data's place in the file."""
    nul = data.find(b"\0", start)
    if nul >= 0:
        raise SnapshotError(
            path,
            "",
            f"not a snapshot: byte {offset + nul:,} is a NUL byte, which JSON text never holds; is this a binary file?",
        )


# What a JSON document is, by its first character.
_JSON_STARTS = {
    b"[": "a list",
    b'"': "a string",
    b"t": "a boolean",
    b"f": "a boolean",
    b"n": "null",
    **{bytes([c]): "a number" for c in b"-0123456789"},
}


def _refuse_start(path: str, first: bytes, line: int, column: int) -> NoReturn:
    """A file whose first character (after whitespace) cannot begin a snapshot: said at once."""
    if first >= b"\x80" or first < b" ":
        raise SnapshotError(
            path,
            "",
            f"not a snapshot: not UTF-8 text (byte {first[0]:#04x} where JSON "
            "text should begin); is this a binary file?",
        )
    kind = _JSON_STARTS.get(first)
    if kind is not None:
        raise SnapshotError(path, "", f"not a graphscope snapshot: the JSON is {kind}, not an object")
    raise SnapshotError(
        path,
        f"line {line:,}, column {column}",
        f"not valid JSON: a snapshot begins with {{, not {first.decode('ascii')!r}",
    )


def size_text(n: int) -> str:
    """A size in bytes as people read it: "1.5 MiB (1,572,864 bytes)"."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit} ({n:,} bytes)"
    return f"{n:,} bytes"
