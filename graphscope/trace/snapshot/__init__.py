"""Snapshot JSON: the record written atomically (`write`), read back with errors naming
file, place and problem (`read`); this module is the public face of both."""

from .format import FORMAT, VERSION, SnapshotError
from .read import load, loads
from .write import dump, dumps

__all__ = ["FORMAT", "VERSION", "SnapshotError", "dump", "dumps", "load", "loads"]
