"""Telling a snapshot from a script by the file's first bytes, never by its name: a data file is never run as code."""

from __future__ import annotations

import os
import stat

SNAPSHOT = "snapshot"
SCRIPT = "script"

_BLANK = b" \t\r\n\f\v"  # JSON's blanks and Python's: neither may hide a `{` from this test
_BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 16


class SourceError(Exception):
    """A path that is neither a snapshot nor a script: missing, a folder, a FIFO, unreadable."""


def source_kind(path: str) -> str:
    """SNAPSHOT when the file's first character after blanks is `{` (a snapshot is a JSON object; no
    script begins with one), else SCRIPT. Only a regular file is opened for reading (a FIFO would block)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SourceError(f"{path}: is a folder, not a regular file") from None
    except OSError as error:
        raise SourceError(f"{path}: cannot read the file: {error.strerror or error}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise SourceError(f"{path}: is {file_type(mode)}, not a regular file")
        return _kind_of(fd)
    except OSError as error:
        raise SourceError(f"{path}: cannot read the file: {error.strerror or error}") from None
    finally:
        os.close(fd)


def file_type(mode: int) -> str:
    """What a file that is not a regular one is, in words, from its `st_mode`."""
    return (
        "a folder"
        if stat.S_ISDIR(mode)
        else "a FIFO (named pipe)"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )


def _kind_of(fd: int) -> str:
    """The kind told by the first byte that is not blank (nor a UTF-8 byte order mark)."""
    offset = 0
    while chunk := os.pread(fd, _CHUNK, offset):
        if offset == 0 and chunk.startswith(_BOM):
            chunk = chunk[len(_BOM) :]
            offset = len(_BOM)
        text = chunk.lstrip(_BLANK)
        if text:
            return SNAPSHOT if text.startswith(b"{") else SCRIPT
        offset += len(chunk)
    return SCRIPT


def not_runnable(path: str, kind: str) -> str | None:
    """Why `path` of `kind` is not run as a script, else None: a snapshot, or a file whose name says
    JSON (in any case) though its text is not a snapshot, is never run, whatever it holds."""
    if kind == SNAPSHOT:
        return (
            f"{path}: is a snapshot (its text begins with {{), not a script, so it is not run: "
            "open it with `graphscope view`"
        )
    if os.path.basename(path).lower().endswith(".json"):
        return (
            f"{path}: is named as a snapshot, but its text is not one (a snapshot begins with {{), "
            "so it is not run: if it is a script, give it a .py name"
        )
    return None


def surprise(path: str, kind: str) -> str | None:
    """A line saying what `path` was taken for when its name suggests the other kind, else None."""
    name = os.path.basename(path).lower()
    if kind == SNAPSHOT and not name.endswith(".json"):
        return f"{path}: read as a snapshot (its text begins with {{), not run as a script"
    if kind == SCRIPT and not name.endswith(".py"):
        return f"{path}: run as a Python script (a snapshot's text begins with {{, and this file's does not)"
    return None
