"""An export's path taken as the user typed it, when the command starts: refused at once if it
cannot name a file, and made absolute, so a script's os.chdir does not move where it lands."""

from __future__ import annotations

import os

from graphscope.trace.record.literal import escaped

_SEPARATORS = tuple(s for s in (os.sep, os.altsep) if s)


class ExportPathError(ValueError):
    """A path that cannot name an export's file: what was wrong and what to give, in one line."""


def export_path(flag: str, path: str) -> str:
    """`path`, given to `flag`, made absolute against the current folder."""
    if not path:
        raise ExportPathError(f"{flag} was given an empty path: give a file name, such as run.json")
    if path.endswith(_SEPARATORS) or os.path.isdir(path):
        raise ExportPathError(f"{flag} {escaped(path)} names a folder: give a file name, such as run.json")
    try:
        return os.path.abspath(path)
    except OSError:  # the current folder was removed
        raise ExportPathError(
            f"{flag} {escaped(path)} is relative to a folder that no longer exists: give an absolute path"
        ) from None
