"""Snapshot JSON: the record written atomically (`snapshot_write`), read back with errors naming
file, place and problem (`snapshot_read`); this module is the public face of both."""

from .snapshot_format import FORMAT, VERSION, SnapshotError
from .snapshot_read import load, loads
from .snapshot_write import dump, dumps

__all__ = ["FORMAT", "VERSION", "SnapshotError", "dump", "dumps", "load", "loads"]
