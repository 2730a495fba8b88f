"""Write a file atomically, and only over a regular file: what every export (snapshot, DOT) goes through."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import time
import zlib
from collections.abc import Iterable

# A temporary file is named `.NAME.graphscope-partial-PID@HOST-XXXXXXXX`: beside its target (so
# the rename is atomic), hidden, and recognisable should a killed writer leave one behind; the
# next write to NAME removes it once its writer (PID on this HOST) is gone, or it is STALE_SECONDS
# old (a writer elsewhere, or before issue 26 when names had no PID@HOST-).
TEMP_MARK = ".graphscope-partial-"
HOST = f"{zlib.crc32(os.uname().nodename.encode()):08x}"
STALE_SECONDS = 3600  # a live writer changes its file every few milliseconds
_CHUNK = 1 << 22
_Bytes = bytes | bytearray | memoryview

_NOT_REGULAR = (
    (stat.S_ISDIR, "is a folder"),
    (stat.S_ISCHR, "is a device"),
    (stat.S_ISBLK, "is a device"),
    (stat.S_ISFIFO, "is a FIFO (named pipe)"),
    (stat.S_ISSOCK, "is a socket"),
)


class WriteError(Exception):
    """A file that was not written: what it was to hold, its path, and why, in one line."""

    def __init__(self, what: str, path: str, reason: str):
        self.what, self.path, self.reason = what, path, reason
        super().__init__(f"cannot write {what} {path}: {reason}")


def temp_name(path: str) -> str:
    """A fresh temporary path beside `path` (see TEMP_MARK)."""
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}{TEMP_MARK}{os.getpid()}@{HOST}-{secrets.token_hex(4)}")


def remove_stale_partials(path: str) -> None:
    """Remove the temporary files that killed writers of `path` left beside it: only regular
    files of this user named for `path` (see TEMP_MARK) whose writer is gone or that are stale."""
    folder, name = os.path.split(path)
    partial = re.compile(re.escape(f".{name}{TEMP_MARK}") + r"(?:([1-9]\d{0,6})@([0-9a-f]{8})-)?[0-9a-f]{8}")
    try:
        entries = [(e, found) for e in os.scandir(folder) if (found := partial.fullmatch(e.name))]
    except OSError:
        return
    for entry, found in entries:
        try:
            st = entry.stat(follow_symlinks=False)
            if (
                not stat.S_ISREG(st.st_mode)
                or st.st_uid != os.geteuid()
                or not (_writer_gone(found) or time.time() - st.st_mtime > STALE_SECONDS)
            ):
                continue
            os.unlink(entry.path)
        except OSError:
            pass  # gone already, or not ours to remove: the write goes on


def _writer_gone(name: re.Match[str]) -> bool:
    """Whether the process named in a temporary file's name is known to have ended."""
    pid, host = name.groups()
    if pid is None or host != HOST:
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        pass  # alive, under another user
    return False


def target_of(path: str, what: str = "file") -> tuple[str, os.stat_result | None]:
    """The file a write to `path` lands in (a symlink is followed to its target), and its
    status (None when it does not exist yet); WriteError when it may not be replaced."""
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        folder = os.path.dirname(target)
        if not os.path.isdir(folder):
            raise WriteError(what, path, f"no such folder {folder}") from None
        return target, None
    except OSError as e:
        raise WriteError(what, path, e.strerror or str(e)) from None
    for test, problem in _NOT_REGULAR:
        if test(st.st_mode):
            raise WriteError(what, path, f"it {problem}, not a regular file")
    if not os.access(target, os.W_OK):
        raise WriteError(what, path, "Permission denied (the file is read-only)")
    return target, st


def write_atomically(path: str | os.PathLike[str], data: _Bytes | Iterable[_Bytes], what: str = "file") -> None:
    """Write `data` (bytes, or an iterable of bytes pieces) to `path`: to a temporary file
    beside it, flushed to disk, then renamed over it, so `path` holds the old content or the
    whole new one. A new file gets the umask's mode; a replaced one keeps its mode."""
    path = os.fspath(path)
    target, old = target_of(path, what)
    remove_stale_partials(target)
    temp, fd = None, -1
    try:
        name = temp_name(target)
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        temp = name
        if old is not None:
            os.fchmod(fd, stat.S_IMODE(old.st_mode))
            if old.st_uid != os.geteuid() or old.st_gid != os.getegid():
                with contextlib.suppress(OSError):  # only root may give a file away; the content is what matters
                    os.fchown(fd, old.st_uid, old.st_gid)
        for piece in [data] if isinstance(data, (bytes, bytearray, memoryview)) else data:
            view = memoryview(piece)
            while view:
                view = view[os.write(fd, view[:_CHUNK]) :]
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(temp, target)
        temp = None
    except OSError as e:
        raise WriteError(what, path, e.strerror or str(e)) from None
    finally:
        if fd >= 0:
            os.close(fd)
        if temp is not None:
            with contextlib.suppress(OSError):  # the write failed already; a leftover temp file is all that is lost
                os.unlink(temp)
    _sync_folder(os.path.dirname(target))


def _sync_folder(folder: str) -> None:
    """Make the rename itself durable (where the platform allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
