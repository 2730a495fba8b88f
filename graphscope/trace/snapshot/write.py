"""Writing a snapshot: the record as strict JSON, its nodes and tensors as base64 columns, written atomically."""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Callable

import numpy as np

from ..record.limits import FIELDS, clamp, fit
from ..record.literal import has_control
from ..record.model import (
    BackwardPass,
    OptimizerEvent,
    Record,
    SourceSite,
)
from ..record.node_table import NodeTable
from ..record.step_table import step_columns
from ..record.summary_table import SummaryTable
from ..record.tensor_summary import TensorSummary
from ..record.training import TrainingSeries
from .atomic_file import write_atomically
from .columns_write import NO_STEPS, Blob, Json, column, node_columns, step_table, tensor_columns
from .format import (
    FORMAT,
    VERSION,
    gc_paused,
)
from .training_columns import training_json

# A summary -> its row in the document's tensors (None for None).
_Add = Callable[[TensorSummary | None], int | None]


def dumps(record: Record) -> str:
    """The record as strict JSON text."""
    return "".join(p if isinstance(p, str) else p.decode("ascii") for p in _pieces(record))


def dump(record: Record, path: str | os.PathLike[str]) -> None:
    """Write the record to `path` atomically: a complete new file replaces the old, or nothing
    changes (WriteError, from atomic_file, when it cannot be written)."""
    write_atomically(path, [p.encode("ascii") if isinstance(p, str) else p for p in _pieces(record)], "snapshot")


def _pieces(record: Record) -> list[str | bytes]:
    """The JSON text in pieces: the document with each base64 array spliced in where its
    placeholder was, so the encoder never scans megabytes of base64 for characters to escape."""
    token = f"@blob-{uuid.uuid4().hex}-"
    blobs: list[bytes] = []

    def blob(raw: bytes) -> str:
        if not raw:  # an empty column (each pass outside the detail window has ten): JSON's "" as it is
            return ""
        blobs.append(raw)
        return f"{token}{len(blobs) - 1}"

    with gc_paused():
        text = json.dumps(
            to_json(record, blob), ensure_ascii=True, allow_nan=False, check_circular=False, separators=(",", ":")
        )
    pieces: list[str | bytes] = []
    parts = re.split(f'"{token}([0-9]+)"', text)  # text, blob number, text, ... (in the document's order)
    for k in range(1, len(parts), 2):
        pieces += [parts[k - 1], b'"', blobs[int(parts[k])], b'"']
    pieces.append(parts[-1])
    return pieces


def _num(x: float | None) -> float | str | None:
    """A number as strict JSON: non-finite floats become "nan", "inf", "-inf"."""
    if type(x) is float and x - x != 0.0:
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    return x


def _name(text: str, limit: int) -> str:
    """A name as the reader takes it: control characters escaped, cut to `limit` and marked."""
    return fit(text, limit, name=True)


def _text(text: str, limit: int, keep_end: bool = False) -> str:
    """Free text as the reader takes it: cut to `limit` and marked (a traceback keeps its end)."""
    return fit(text, limit, keep_end=keep_end)


def _names(texts: list[str], limit: int) -> list[str]:
    """A list of names fit for the reader: as it is when every one already fits (the usual case)."""
    if not texts or (max(map(len, texts)) <= limit and not has_control("".join(texts))):
        return texts
    return [_name(t, limit) for t in texts]


def _optimizer_event(e: OptimizerEvent, add: _Add, site: Callable[[SourceSite | None], int | None]) -> Json:
    params = e.params
    return {
        "kind": e.kind,
        "passes": e.passes,
        "optimizer": _name(e.optimizer, FIELDS["optimizer.optimizer"]),
        "settings": [_names(list(kv), FIELDS["optimizer.settings"]) for kv in e.settings],
        "site": site(e.site),
        "params": {
            "leaf": [c.leaf for c in params],
            "label": _names([c.label for c in params], FIELDS["optimizer.params.label"]),
            "before": [add(c.before) for c in params],
            "update": [add(c.update) for c in params],
            "after": [add(c.after) for c in params],
            "grad": [add(c.grad) for c in params],
            "state": [[_state(k, v, add) for k, v in c.state] for c in params],
        },
    }


def _state(key: str, value: TensorSummary | str, add: _Add) -> list[str | int | None]:
    """[name, a literal or the summary's row] of an optimizer's state entry."""
    limit = FIELDS["optimizer.params.state"]
    return [_name(key, limit), _name(value, limit) if isinstance(value, str) else add(value)]


def _backward_pass(p: BackwardPass, steps: Json, blob: Blob) -> Json:
    """A pass as the document holds it, `steps` its step columns already written."""
    return {
        "index": p.index,
        "loss": _num(p.loss),
        "grad_norms": {_name(k, FIELDS["passes.grad_norms"]): _num(v) for k, v in p.grad_norms.items()},
        "node_count": p.node_count,
        "detailed": p.detailed,
        "finished": p.finished,
        "root": p.root,
        "order": {"count": len(p.order), **column(np.array(p.order, dtype=np.int64), blob)},
        "steps": steps,
    }


def to_json(record: Record, blob: Blob) -> Json:
    """The record as JSON-ready data: small sections as objects; nodes, steps and summaries as
    columns. `blob` turns base64 bytes into what the document holds (a placeholder `_pieces` splices)."""
    nodes = record.nodes if isinstance(record.nodes, NodeTable) else NodeTable(record.nodes)
    columns = nodes.columns()
    site_list = list(columns.sites)  # the nodes' site indices stand; other sites are added
    sites: dict[SourceSite, int] = {}
    for i, x in enumerate(site_list):
        sites.setdefault(x, i)

    def site(x: SourceSite | None) -> int | None:
        if x is None:
            return None
        i = sites.get(x)
        if i is None:
            i = sites[x] = len(site_list)
            site_list.append(x)
        return i

    table = columns.summaries  # the nodes' outputs: rows 0..; the steps' grads follow, then the optimizer's
    tables: list[SummaryTable] = [table]  # the tables the document's tensors are, one after another
    first_rows = {id(table): 0}  # each table's first row in the document's tensors (a dict: one look-up a pass)
    rows = len(table)
    passes: list[Json] = []
    for p in record.passes:
        if not len(p.steps):
            passes.append(_backward_pass(p, NO_STEPS, blob))
            continue
        steps = step_columns(p.steps)
        first = first_rows.get(id(steps.summaries))
        if first is None:  # the steps' own summaries (a recording's) go after the rest
            first = first_rows[id(steps.summaries)] = rows
            tables.append(steps.summaries)
            rows += len(steps.summaries)
        passes.append(_backward_pass(p, step_table(steps, first, blob), blob))
    items: list[TensorSummary] = []

    def add(s: TensorSummary | None) -> int | None:
        if s is None:
            return None
        items.append(s)
        return rows + len(items) - 1

    error = record.error
    error_json = (
        None
        if error is None
        else {
            "type": _name(error.type, FIELDS["error.type"]),
            "message": _text(error.message, FIELDS["error.message"]),
            "traceback": _text(error.traceback, FIELDS["error.traceback"], keep_end=True),
            "node": error.node,
            "site": site(error.site),
        }
    )
    findings = [
        {
            "kind": f.kind,
            "message": _text(f.message, FIELDS["findings.message"]),
            "node": f.node,
            "pass": f.pass_index,
            "parameter": None if f.parameter is None else _name(f.parameter, FIELDS["findings.parameter"]),
            "site": site(f.site),
        }
        for f in record.findings
    ]
    optimizer = [_optimizer_event(e, add, site) for e in record.optimizer]
    m = record.metadata
    return {
        "format": FORMAT,
        "version": VERSION,
        "metadata": {
            "script": _text(m.script, FIELDS["metadata.script"]),
            "argv": [_text(a, FIELDS["metadata.argv"]) for a in m.argv],
            "started": _name(m.started, FIELDS["metadata.started"]),
            "finished": _name(m.finished, FIELDS["metadata.finished"]),
            "exit_code": m.exit_code if m.exit_code is None else clamp(m.exit_code, FIELDS["metadata.exit_code"]),
            "graphscope_version": _name(m.graphscope_version, FIELDS["metadata.graphscope_version"]),
            "python_version": _name(m.python_version, FIELDS["metadata.python_version"]),
            "numpy_version": _name(m.numpy_version, FIELDS["metadata.numpy_version"]),
            "device": _name(m.device, FIELDS["metadata.device"]),
            "keep_first": m.keep_first,
            "keep_last": m.keep_last,
            "full_values_limit": m.full_values_limit,
            "memory_budget": m.memory_budget,
        },
        "sites": [
            {
                "file": _name(s.file, FIELDS["sites.file"]),
                "line": s.line,
                "function": _name(s.function, FIELDS["sites.function"]),
                "text": _text(s.text, FIELDS["sites.text"]),
            }
            for s in site_list
        ],
        "strings": _names(list(columns.strings), FIELDS["strings"]),
        "tensors": tensor_columns(
            SummaryTable.concat_all([*tables, SummaryTable.from_summaries(items)])
            if len(tables) > 1 or items
            else table,
            blob,
        ),
        "nodes": node_columns(columns, blob),
        "passes": passes,
        "console": [
            {
                "stream": c.stream,
                "text": _text(c.text, FIELDS["console.text"]),
                "pass": c.pass_index,
                "step": c.step,
                "events": c.events,
            }
            for c in record.console
        ],
        "error": error_json,
        "findings": findings,
        "optimizer": optimizer,
        "dropped_values": record.dropped_values,
        "trimmed_nodes": record.trimmed_nodes,
        "dropped_console": record.dropped_console,
        "rules": {_name(op, FIELDS["rules.op"]): _text(rule, FIELDS["rules"]) for op, rule in record.rules.items()},
        "training": training_json(_series(record), blob),
    }


def _series(record: Record) -> TrainingSeries:
    """The record's training series, or, where its length is not the passes' (a record built without
    a recorder), the series its passes tell, with its logged scalars."""
    series = record.training
    if series.passes == len(record.passes) and len(series.loss) == series.passes:
        return series
    rebuilt = TrainingSeries.from_passes(record.passes)
    rebuilt.scalars = series.scalars
    return rebuilt
