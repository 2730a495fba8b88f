"""Snapshot JSON: the record written atomically (`write`), read back with errors naming
file, place and problem (`read`); this module is the public face of both.

The reader and the writer load when `load`/`loads` or `dump`/`dumps` is first asked for (PEP 562): a run
that only tells a script from a snapshot (`source_kind`) or pauses the collector (`format`) loads neither.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .format import FORMAT, VERSION, SnapshotError

if TYPE_CHECKING:
    from .read import load, loads
    from .write import dump, dumps

__all__ = ["FORMAT", "VERSION", "SnapshotError", "dump", "dumps", "load", "loads"]


def __getattr__(name: str) -> Any:
    """`load`/`loads` from the reader, `dump`/`dumps` from the writer, imported on first use."""
    if name not in ("load", "loads", "dump", "dumps"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    home = importlib.import_module(".read" if name.startswith("load") else ".write", __name__)
    value = getattr(home, name)
    globals()[name] = value
    return value
