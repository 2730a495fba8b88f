"""The trace layer: the record of a run (plain data), the recorder that fills it, and its snapshot JSON.

Its rooms, each one kind of thing (record, stats, snapshot, report, analysis, explain, recording), and
their order are drawn in docs/architecture.md; this module is the layer's public face.

recorder = Recorder(Policy(), script="train.py", argv=["train.py"])
with graphscope.engine.hooks.observe(recorder):
    ...                                   # the script runs
record = recorder.finish(exit_code=0)     # summaries, findings
dump(record, "snap.json"); record = load("snap.json")   # SnapshotError when the file is bad
print_summary(record); write_dot(record, "graph.dot")
"""

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
