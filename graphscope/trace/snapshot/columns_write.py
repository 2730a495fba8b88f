"""Writing the record's columns (nodes, steps, tensors, strings) into a snapshot: one base64 array per column."""

from __future__ import annotations

import binascii
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..record.encoded_pool import EncodedPool
from ..record.node_columns import NodeColumns
from ..record.node_fields import COLUMNS, NONE, RAGGED, ROW_PAIRS
from ..record.step_table import StepColumns
from ..record.summary_table import SummaryTable
from .derived_stats import agreeing

# The integer dtypes a column may be written in, narrowest first: the writer takes the first
# that holds every value (a reader widens it again).
INT_DTYPES = ("uint8", "int8", "uint16", "int16", "int32", "int64")
_RANGES = [(np.iinfo(d).min, np.iinfo(d).max, d) for d in INT_DTYPES]
# The dtypes histogram counts may be written in, narrowest first (uint8 and uint16 from version 6 on:
# most tensors a backward step keeps are small, and their counts were three quarters zero bytes).
HISTOGRAM_DTYPES = ("uint8", "uint16", "uint32", "int64")

# Base64 bytes -> what the document holds in their place (the placeholder `write._pieces` splices).
Blob = Callable[[bytes], str]
# A section of the JSON document, as `json.dumps` takes it.
Json = dict[str, Any]


def raw(array: NDArray[Any]) -> bytes:
    """An array's little-endian bytes, base64-encoded."""
    if array.dtype.byteorder == ">" or (array.dtype.byteorder == "=" and sys.byteorder != "little"):
        array = array.astype(array.dtype.newbyteorder("<"))
    return binascii.b2a_base64(np.ascontiguousarray(array).tobytes(), newline=False)


def column(values: NDArray[np.integer[Any]], blob: Blob) -> Json:
    """An integer column as {"dtype": the narrowest that holds it, "data": base64}."""
    name = "uint8"
    if values.size:
        low, high = int(values.min()), int(values.max())
        name = next(d for lo, hi, d in _RANGES if lo <= low and high <= hi)
    return {"dtype": name, "data": blob(raw(values.astype(name, copy=False)))}


def ragged(starts: NDArray[np.integer[Any]], flat: dict[str, NDArray[np.integer[Any]]], blob: Blob) -> Json:
    """A column whose rows are lists: each row's length, then the flat values of one or more parts."""
    return {"count": column(np.diff(starts), blob), **{k: column(v, blob) for k, v in flat.items()}}


def node_columns(c: NodeColumns, blob: Blob) -> Json:
    """The node columns, in `node_fields.COLUMNS`' order under their snapshot keys."""
    out: Json = {"count": len(c)}
    for col in COLUMNS:
        if col.kind in RAGGED:
            out[col.key] = ragged(getattr(c, col.start), {key: getattr(c, part) for part, key in col.parts}, blob)
        elif col.kind == ROW_PAIRS:
            pairs = getattr(c, col.name)
            rows = np.array(sorted(pairs), dtype=np.int64)
            values = np.array([pairs[r] for r in rows.tolist()], dtype=np.int64).reshape(-1, 2)
            out[col.key] = {
                "count": len(rows),
                "rows": column(rows, blob),
                **{key: column(values[:, k], blob) for k, (_, key) in enumerate(col.parts)},
            }
        else:
            out[col.key] = column(np.asarray(getattr(c, col.name)), blob)
    return out


def step_table(c: StepColumns, first: int, blob: Blob) -> Json:
    """A pass's step columns, their summaries' rows moved to where that table begins among the
    document's tensors (`first`); -1 for None."""

    def rows(a: NDArray[np.int64]) -> NDArray[np.int64]:
        return np.where(a >= 0, a + first, NONE) if first else a

    return {
        "count": len(c),
        "node": column(c.node, blob),
        "grad_output": column(rows(c.grad_output), blob),
        "grad_inputs": ragged(c.inputs_start, {"rows": rows(c.inputs)}, blob),
        "leaf_grads": ragged(
            c.leaves_start,
            {
                "node": c.leaf_node,
                "grad": rows(c.leaf_grad),
                "before": rows(c.leaf_before),
                "now": rows(c.leaf_now),
            },
            blob,
        ),
    }


# The steps of a pass that has none (most passes of a long run: those outside the detail window), as every
# snapshot holds them: empty columns need no blob. The writer writes it as it is, the reader knows it at a glance.
NO_STEPS: Json = step_table(StepColumns.from_steps([]), 0, bytes.decode)


def tensor_columns(t: SummaryTable, blob: Blob) -> Json:
    """The tensor columns; the statistics and histogram of a row whose values derive them exactly are
    left out (`derived_stats`)."""
    derived = agreeing(t)
    kept = ~derived if derived.any() else slice(None)
    stats, histogram = t.stats[kept], t.histogram[kept]
    top = int(histogram.max()) if histogram.size else 0
    counts = histogram.astype(next(d for d in HISTOGRAM_DTYPES if top <= np.iinfo(d).max), copy=False)
    return {
        "count": len(t),
        "dtypes": list(t.dtypes),
        "dtype": column(t.dtype, blob),
        "devices": list(t.devices),
        "device": column(t.device, blob),
        "ndim": column(np.diff(t.dims_start), blob),
        "dims": column(t.dims, blob),
        "nan": column(t.nan, blob),
        "inf": column(t.inf, blob),
        "derived": column(derived.astype(np.uint8), blob),
        "stats": blob(raw(stats)),
        "exact": [[i, lo, hi] for i, (lo, hi) in sorted(t.exact.items())],
        "histogram": {"dtype": counts.dtype.name, "data": blob(raw(counts))},
        "held": column(t.held, blob),
        "values": {
            name: blob(bytes(pool.text) if isinstance(pool, EncodedPool) else raw(pool))
            for name, pool in sorted(t.pools.items())
            if pool.size
        },
    }
