"""The snapshot format of versions 1 to 3 (nodes and tensors as JSON lists), as version 3 wrote it:
the tests check that such files still load, and how their errors are named."""

from __future__ import annotations

import json

import numpy as np

from graphscope.trace.record.model import Record, SourceSite
from graphscope.trace.record.summary_table import STAT_FIELDS
from graphscope.trace.record.tensor_summary import host_dtype
from graphscope.trace.snapshot.columns_write import raw
from graphscope.trace.snapshot.format import FORMAT
from graphscope.trace.snapshot.write import _num, _optimizer_event
from graphscope.trace.stats.summarize import HISTOGRAM_BINS, TensorSummary


def dumps_v3(record: Record) -> str:
    """The record as a version 3 snapshot's text."""
    return json.dumps(to_json(record, lambda raw: raw.decode("ascii")), allow_nan=False, separators=(",", ":"))


def _leaf_grad(lg, add) -> list:
    """[leaf, added, before, now]: `now` is the added grad's row when it is that same summary."""
    added = add(lg.grad)
    now = added if lg.now is lg.grad and added is not None else add(lg.now)
    return [lg.node, added, add(lg.before), now]


_NO_HISTOGRAM = np.zeros(HISTOGRAM_BINS, dtype=np.int64)


def _tensor_columns(items: list[TensorSummary], blob) -> dict:
    """Every summary as one table: JSON columns for the small fields, base64 arrays for the rest."""
    previews: dict[np.dtype, list] = {}
    values: dict[np.dtype, list] = {}
    full, dropped, exact = [], [], []
    hosts: dict[str, np.dtype] = {}
    for i, s in enumerate(items):
        host = hosts.get(s.dtype)
        if host is None:
            host = hosts[s.dtype] = host_dtype(s.dtype)
        if s.values is not None:
            full.append(i)
            v = s.values if s.values.dtype is host else s.values.astype(host)
            values.setdefault(host, []).append(v.reshape(-1))
        elif s.dropped:
            dropped.append(i)
        else:
            previews.setdefault(host, []).append(s.preview if s.preview.dtype is host else s.preview.astype(host))
        if type(s.min) is int and not (-(2**53) <= s.min <= 2**53 and -(2**53) <= s.max <= 2**53):
            exact.append([i, s.min, s.max])
    stats = np.array([(s.min, s.max, s.mean, s.std, s.norm, s.zero_fraction) for s in items], dtype=np.float64).reshape(
        len(items), len(STAT_FIELDS)
    )
    counts = np.concatenate(
        [h if h.size else _NO_HISTOGRAM for h in (s.histogram for s in items)] + [np.zeros(0, dtype=np.int64)]
    ).astype(np.int64, copy=False)
    wide = bool(counts.size) and int(counts.max()) >= 2**32
    return {
        "shape": [list(s.shape) for s in items],
        "dtype": [s.dtype for s in items],
        "device": [s.device for s in items],
        "nan": [s.nan_count for s in items],
        "inf": [s.inf_count for s in items],
        "stats": blob(raw(stats)),
        "exact": exact,
        "histogram": {
            "dtype": "int64" if wide else "uint32",
            "data": blob(raw(counts if wide else counts.astype(np.uint32))),
        },
        "full": full,
        "dropped": dropped,
        "preview": {k.name: blob(raw(np.concatenate(v))) for k, v in previews.items()},
        "values": {k.name: blob(raw(np.concatenate(v))) for k, v in values.items()},
    }


def to_json(record: Record, blob) -> dict:
    """The record as JSON-ready data: small sections as objects; nodes, steps and summaries as
    columns. `blob` turns base64 bytes into what the document holds (a placeholder `_pieces` splices)."""
    sites: dict[SourceSite, int] = {}

    def site(x: SourceSite | None):
        if x is None:
            return None
        i = sites.get(x)
        if i is None:
            i = sites[x] = len(sites)
        return i

    items: list[TensorSummary] = []

    def add(s: TensorSummary | None):
        if s is None:
            return None
        items.append(s)
        return len(items) - 1

    nodes = list(record.nodes.values())
    node_columns = {
        "id": [n.id for n in nodes],
        "op": [n.op for n in nodes],
        "name": [n.name for n in nodes],
        "inputs": [list(n.inputs) for n in nodes],
        "pass": [n.pass_index for n in nodes],
        "output": [add(n.output) for n in nodes],
        "requires_grad": [n.requires_grad for n in nodes],
        "is_leaf": [n.is_leaf for n in nodes],
        "parameter": [n.parameter for n in nodes],
        "module": [n.module for n in nodes],
        "site": [site(n.site) for n in nodes],
        "saved": [list(n.saved) for n in nodes],
        "dead_units": [None if n.dead_units is None else list(n.dead_units) for n in nodes],
        "args": [[list(a) for a in n.args] for n in nodes],
        "leaf": [n.leaf for n in nodes],
    }
    passes = []
    for p in record.passes:
        steps = p.steps
        passes.append(
            {
                "index": p.index,
                "loss": _num(p.loss),
                "grad_norms": {k: _num(v) for k, v in p.grad_norms.items()},
                "node_count": p.node_count,
                "detailed": p.detailed,
                "finished": p.finished,
                "root": p.root,
                "order": list(p.order),
                "steps": {
                    "node": [st.node for st in steps],
                    "grad_output": [add(st.grad_output) for st in steps],
                    "grad_inputs": [[add(g) for g in st.grad_inputs] for st in steps],
                    "leaf_grads": [[_leaf_grad(lg, add) for lg in st.leaf_grads] for st in steps],
                },
            }
        )
    error = record.error
    error_json = (
        None
        if error is None
        else {
            "type": error.type,
            "message": error.message,
            "traceback": error.traceback,
            "node": error.node,
            "site": site(error.site),
        }
    )
    optimizer = [_optimizer_event(e, add, site) for e in record.optimizer]
    findings = [
        {
            "kind": f.kind,
            "message": f.message,
            "node": f.node,
            "pass": f.pass_index,
            "parameter": f.parameter,
            "site": site(f.site),
        }
        for f in record.findings
    ]
    m = record.metadata
    return {
        "format": FORMAT,
        "version": 3,
        "metadata": {
            "script": m.script,
            "argv": list(m.argv),
            "started": m.started,
            "finished": m.finished,
            "exit_code": m.exit_code,
            "graphscope_version": m.graphscope_version,
            "python_version": m.python_version,
            "numpy_version": m.numpy_version,
            "device": m.device,
            "keep_first": m.keep_first,
            "keep_last": m.keep_last,
            "full_values_limit": m.full_values_limit,
            "memory_budget": m.memory_budget,
        },
        "sites": [{"file": s.file, "line": s.line, "function": s.function, "text": s.text} for s in sites],
        "tensors": _tensor_columns(items, blob),
        "nodes": node_columns,
        "passes": passes,
        "console": [{"stream": c.stream, "text": c.text, "pass": c.pass_index} for c in record.console],
        "error": error_json,
        "findings": findings,
        "optimizer": optimizer,
        "dropped_values": record.dropped_values,
        "trimmed_nodes": record.trimmed_nodes,
        "dropped_console": record.dropped_console,
    }
