"""The trace layer: the record of a run (plain data), the recorder that fills it, and its snapshot JSON.

Its rooms, each one kind of thing (record, stats, snapshot, report, analysis, explain, recording), and
their order are drawn in docs/architecture.md; this module is the layer's public face.

recorder = Recorder(Policy(), script="train.py", argv=["train.py"])
with graphscope.engine.hooks.observe(recorder):
    ...                                   # the script runs
record = recorder.finish(exit_code=0)     # summaries, findings
dump(record, "snap.json"); record = load("snap.json")   # SnapshotError when the file is bad
print_summary(record); write_dot(record, "graph.dot")

Each name loads its room when first asked for (PEP 562): importing one submodule, as a headless
run does, does not import the others (the snapshot reader, Rich's drawing) with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .analysis.findings import find
    from .record.model import (
        BackwardPass,
        ConsoleLine,
        Finding,
        LeafGrad,
        Metadata,
        Node,
        OptimizerEvent,
        ParamChange,
        Record,
        ScriptError,
        SourceSite,
        Step,
    )
    from .recording.recorder import Policy, Recorder
    from .report.dot import to_dot, write_dot
    from .report.summary_report import print_summary, render
    from .snapshot import SnapshotError, dump, dumps, load, loads
    from .stats.summarize import TensorSummary, summarize

__all__ = [
    "BackwardPass",
    "ConsoleLine",
    "Finding",
    "LeafGrad",
    "Metadata",
    "Node",
    "OptimizerEvent",
    "ParamChange",
    "Policy",
    "Record",
    "Recorder",
    "ScriptError",
    "SnapshotError",
    "SourceSite",
    "Step",
    "TensorSummary",
    "dump",
    "dumps",
    "find",
    "load",
    "loads",
    "print_summary",
    "render",
    "summarize",
    "to_dot",
    "write_dot",
]

# Each module (relative to this package) and the public names it defines: the imports above, for the run.
_ROOMS = {
    ".analysis.findings": ("find",),
    ".record.model": (
        "BackwardPass",
        "ConsoleLine",
        "Finding",
        "LeafGrad",
        "Metadata",
        "Node",
        "OptimizerEvent",
        "ParamChange",
        "Record",
        "ScriptError",
        "SourceSite",
        "Step",
    ),
    ".recording.recorder": ("Policy", "Recorder"),
    ".report.dot": ("to_dot", "write_dot"),
    ".report.summary_report": ("print_summary", "render"),
    ".snapshot": ("SnapshotError", "dump", "dumps", "load", "loads"),
    ".stats.summarize": ("TensorSummary", "summarize"),
}
_HOMES = {name: module for module, names in _ROOMS.items() for name in names}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (then kept as this module's attribute)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The names loaded so far and the public ones still to load."""
    return sorted({*globals(), *__all__})
