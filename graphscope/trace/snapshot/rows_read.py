"""Reading the snapshots written before the columns (versions 1 to 3): tensors and nodes as JSON lists."""

from __future__ import annotations

import math
from itertools import chain
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..record.limits import FIELDS
from ..record.literal import visible
from ..record.node_columns import NodeColumns
from ..record.node_fields import IS_LEAF, NONE, REQUIRES_GRAD
from ..record.summary_table import STAT_FIELDS
from ..record.tensor_summary import host_dtype
from ..stats.summarize import ARRAY_DTYPES, HISTOGRAM_BINS, PREVIEW_SIZE, TensorSummary
from .blobs import padding
from .columns_read import ColumnReader
from .fields import Json, kind_of
from .format import MAX_ELEMENTS, MAX_NDIM

# (part, dtype name) -> [its values, how many the tensors read so far have taken]
_Blobs = dict[tuple[str, str], list[Any]]


class RowReader(ColumnReader):
    """The tensor table and the nodes of a version 1 to 3 snapshot, for `read.RecordReader`."""

    version: int  # the snapshot's, set by `read.RecordReader.record` before any part is read

    _TENSOR_KEYS = (
        "shape",
        "dtype",
        "device",
        "nan",
        "inf",
        "stats",
        "exact",
        "histogram",
        "full",
        "dropped",
        "preview",
        "values",
    )

    def tensor_table(self, d: Json, where: str) -> list[TensorSummary]:
        """Version 1 to 3: the tensors as JSON lists (and base64 arrays)."""
        self.obj(d, where, self._TENSOR_KEYS)
        shapes = self.seq(d["shape"], where + ".shape")
        n = len(shapes)
        self.nested_ints(shapes, where + ".shape", n, 0, MAX_ELEMENTS)
        dtypes = self.names(d["dtype"], where + ".dtype", n, limit=64)
        devices = self.names(d["device"], where + ".device", n, limit=64)
        nans = self.ints(d["nan"], where + ".nan", n, 0, MAX_ELEMENTS)
        infs = self.ints(d["inf"], where + ".inf", n, 0, MAX_ELEMENTS)
        stats = self.array(d["stats"], where + ".stats", np.dtype(np.float64), n * len(STAT_FIELDS))
        stats = stats.reshape(n, len(STAT_FIELDS))
        missing = np.isnan(stats)
        columns = stats.T.tolist()
        for j, column in enumerate(columns):
            for i in np.flatnonzero(missing[:, j]).tolist():
                column[i] = None
        lows, highs, means, stds, norms, zeros = columns
        exact, counts = self.exact_and_histograms(d, where, n, n)
        histograms = counts.astype(np.int64).reshape(n, HISTOGRAM_BINS)
        histograms.flags.writeable = False
        filled: list[bool] = histograms.any(axis=1).tolist()  # type: ignore[assignment]  # any(axis=1) of 2-D: a list
        full = set(self.ints(d["full"], where + ".full", None, 0, max(n - 1, 0)))
        dropped = set(self.ints(d["dropped"], where + ".dropped", None, 0, max(n - 1, 0)))
        blobs: _Blobs = {}
        for part in ("preview", "values"):
            given = d[part]
            if type(given) is not dict:
                self.fail(f"{where}.{part}", f"expected an object, found {kind_of(given)}")
            for key, text in given.items():
                if key not in ARRAY_DTYPES:
                    self.fail(f"{where}.{part}", f"unknown array dtype {visible(key)[:40]!r}")
                dtype = np.dtype(key)
                if type(text) is not str or len(self.blobs.get(text, text)) % 4:
                    self.fail(f"{where}.{part}.{key}", "expected base64 text")
                raw_len = len(self.blobs.get(text, text)) // 4 * 3 - padding(self.blobs.get(text, text))
                if raw_len % dtype.itemsize:
                    self.fail(f"{where}.{part}.{key}", f"not a whole number of {key} values")
                blobs[part, key] = [self.array(text, f"{where}.{part}.{key}", dtype, raw_len // dtype.itemsize), 0]
        out = []
        hosts: dict[str, tuple[str, bool]] = {}  # dtype -> (its host dtype, whether integral)
        for i in range(n):
            shape = tuple(shapes[i])
            if len(shape) > MAX_NDIM:
                self.fail(f"{where}.shape[{i}]", f"{len(shape)} dimensions is more than the {MAX_NDIM} allowed")
            numel = math.prod(shape)
            if numel > MAX_ELEMENTS:
                self.fail(f"{where}.shape[{i}]", f"{numel:,} elements is more than the {MAX_ELEMENTS:,} allowed")
            dtype_name = dtypes[i]
            facts = hosts.get(dtype_name)
            if facts is None:
                kind = np.dtype(dtype_name).kind if dtype_name in ARRAY_DTYPES else "f"
                facts = hosts[dtype_name] = (host_dtype(dtype_name).name, kind in "iub")
            host, integral = facts
            if nans[i] + infs[i] > numel:
                self.fail(f"{where}.nan[{i}]", f"{nans[i]:,} NaNs and {infs[i]:,} Infs in {numel:,} elements")
            zf = zeros[i]
            if zf is None or not 0.0 <= zf <= 1.0:
                self.fail(f"{where}.stats", f"row {i}: zero_fraction {zf!r} is not a fraction from 0 to 1")
            lo, hi = lows[i], highs[i]
            if integral and lo is not None:
                lo, hi = exact.get(i) or (int(lo), int(hi))
            values = None
            if i in full:
                values = self.take(blobs, "values", host, numel, where, i).reshape(shape)
                preview = values.reshape(-1)[:PREVIEW_SIZE]
            elif i in dropped:
                preview = _NO_VALUES
            else:
                preview = self.take(blobs, "preview", host, min(numel, PREVIEW_SIZE), where, i)
            out.append(
                TensorSummary(
                    shape,
                    dtype_name,
                    devices[i],
                    numel,
                    lo,
                    hi,
                    means[i],
                    stds[i],
                    norms[i],
                    nans[i],
                    infs[i],
                    zf,
                    histograms[i] if filled[i] else _NO_COUNTS,
                    preview,
                    values,
                    i in dropped,
                )
            )
        for (part, key), (array, used) in blobs.items():
            if used != array.size:
                self.fail(f"{where}.{part}.{key}", f"holds {array.size:,} values; the tensors use {used:,}")
        return out

    def take(self, blobs: _Blobs, part: str, dtype: str, count: int, where: str, i: int) -> NDArray[Any]:
        """The next `count` values of tensor `i` from the `part` blob of `dtype`."""
        entry = blobs.get((part, dtype))
        if entry is None:
            if count == 0:
                return np.zeros(0, dtype=dtype)
            self.fail(f"{where}.{part}", f"tensor {i} needs {dtype} values, and there are none")
        array: NDArray[Any] = entry[0]
        used: int = entry[1]
        if used + count > array.size:
            self.fail(f"{where}.{part}.{dtype}", f"ends before tensor {i}'s {count:,} values")
        entry[1] = used + count
        return array[used : used + count]

    _NODE_KEYS = (
        "id",
        "op",
        "name",
        "inputs",
        "pass",
        "output",
        "requires_grad",
        "is_leaf",
        "parameter",
        "module",
        "site",
        "saved",
        "dead_units",
    )

    def nodes(self, d: Json, where: str) -> NodeColumns:
        """Version 1 to 3: the nodes as JSON lists."""
        self.obj(
            d,
            where,
            self._NODE_KEYS + (("args",) if self.version >= 2 else ()) + (("leaf",) if self.version >= 3 else ()),
        )
        ids = self.seq(d["id"], where + ".id")
        n = len(ids)
        self.ints(ids, where + ".id", n)
        if len(set(ids)) != n:
            seen = set()
            for i, k in enumerate(ids):
                if k in seen:
                    self.fail(f"{where}.id[{i}]", f"node id {k} appears twice")
                seen.add(k)
        known = set(ids)
        ops = self.names(d["op"], where + ".op", n, limit=FIELDS["strings"])
        names = self.names(d["name"], where + ".name", n, limit=FIELDS["strings"])
        inputs = self.nested_ints(d["inputs"], where + ".inputs", n)
        if not known.issuperset(chain.from_iterable(inputs)):
            for i, row in enumerate(inputs):
                for j, k in enumerate(row):
                    if k not in known:
                        self.fail(f"{where}.inputs[{i}][{j}]", f"node id {k} does not exist in the snapshot")
        passes = self.ints(d["pass"], where + ".pass", n)
        outputs = self.ints(d["output"], where + ".output", n, 0, len(self.tensors) - 1, nullable=True)
        requires = self.bools(d["requires_grad"], where + ".requires_grad", n)
        leaves = self.bools(d["is_leaf"], where + ".is_leaf", n)
        parameters = self.names(d["parameter"], where + ".parameter", n, nullable=True, limit=FIELDS["strings"])
        modules = self.names(d["module"], where + ".module", n, nullable=True, limit=FIELDS["strings"])
        sites = self.ints(d["site"], where + ".site", n, 0, len(self.sites) - 1, nullable=True)
        saved = self.seq(d["saved"], where + ".saved", n)
        if not set(map(type, saved)) <= {list}:
            for i, row in enumerate(saved):
                self.seq(row, f"{where}.saved[{i}]")
        flat = list(chain.from_iterable(saved))
        self.names(flat, where + ".saved", len(flat), limit=FIELDS["strings"])
        dead = self.seq(d["dead_units"], where + ".dead_units", n)
        if not set(map(type, dead)) <= {type(None)}:
            for i, du in enumerate(dead):
                if du is not None:
                    if type(du) is not list or len(du) != 2:
                        self.fail(f"{where}.dead_units[{i}]", "expected null or [dead, units]")
                    dead[i] = (
                        self.integer(du[0], f"{where}.dead_units[{i}][0]"),
                        self.integer(du[1], f"{where}.dead_units[{i}][1]"),
                    )
        args = self.arguments(d["args"], where + ".args", n) if self.version >= 2 else [()] * n
        identities = self.ints(d["leaf"], where + ".leaf", n, nullable=True) if self.version >= 3 else [None] * n
        tensors, site_list = self.tensors, self.sites
        return NodeColumns.from_values(
            {
                "id": ids,
                "op": ops,
                "name": names,
                "inputs": list(map(tuple, inputs)),
                "pass_index": passes,
                "output": [None if o is None else tensors[o] for o in outputs],
                "flags": [rq * REQUIRES_GRAD | lf * IS_LEAF for rq, lf in zip(requires, leaves)],
                "parameter": parameters,
                "module": modules,
                "site": [None if st is None else site_list[st] for st in sites],
                "saved": list(map(tuple, saved)),
                "dead": dead,
                "args": args,
                "leaf": [NONE if le is None else le for le in identities],
            },
            n,
        )

    def arguments(self, rows: Json, where: str, n: int) -> list[tuple[tuple[str, str], ...]]:
        """Each node's [[name, literal], ...]."""
        rows = self.seq(rows, where, n)
        out = []
        for i, row in enumerate(rows):
            pairs = []
            for j, pair in enumerate(self.seq(row, f"{where}[{i}]")):
                if type(pair) is not list or len(pair) != 2:
                    self.fail(f"{where}[{i}][{j}]", "expected [name, literal]")
                name, text = self.names(pair, f"{where}[{i}][{j}]", 2, limit=FIELDS["strings"])
                pairs.append((name, text))
            out.append(tuple(pairs))
        return out


_NO_VALUES = np.zeros(0, dtype=np.float64)
_NO_VALUES.flags.writeable = False
_NO_COUNTS = np.zeros(0, dtype=np.int64)
_NO_COUNTS.flags.writeable = False
