"""The trace layer: the record of a run (plain data), the recorder that fills it, and its snapshot JSON."""

from .record import (
    BackwardPass,
    ConsoleLine,
    Finding,
    LeafGrad,
    Metadata,
    Node,
    Record,
    ScriptError,
    SourceSite,
    Step,
)
from .snapshot import SnapshotError, dump, dumps, load, loads
from .summary import TensorSummary, summarize

__all__ = [
    "BackwardPass", "ConsoleLine", "Finding", "LeafGrad", "Metadata", "Node", "Record",
    "ScriptError", "SnapshotError", "SourceSite", "Step", "TensorSummary",
    "dump", "dumps", "load", "loads", "summarize",
]
