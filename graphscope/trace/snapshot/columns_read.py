"""Reading a snapshot's columns (strings, tensors, nodes: version 4 on; steps: 6 on) into the record's own columns.

Every column is checked whole with NumPy; a problem is then named by its first bad place."""

from __future__ import annotations

import binascii
from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

from ..record.encoded_pool import EncodedPool
from ..record.limits import FIELDS, ID_LIMIT
from ..record.literal import visible
from ..record.node_columns import NodeColumns, offsets
from ..record.node_fields import (
    COLUMNS,
    FLAGS,
    IDS,
    INT,
    NONE,
    OPT_INT,
    OPT_TEXT,
    RAGGED,
    ROW_PAIRS,
    SITE,
    SUMMARY,
    TEXT,
    TEXT_PAIRS,
    TEXTS,
    Column,
)
from ..record.step_table import StepColumns
from ..record.summary_table import DROPPED, STAT_FIELDS, Pool, SummaryTable
from ..record.tensor_summary import ARRAY_DTYPES, HISTOGRAM_BINS, host_dtype
from ..stats.batched import derived_figures
from ..stats.summarize import BATCH_LIMIT
from .blobs import padding
from .columns_write import HISTOGRAM_DTYPES, INT_DTYPES, NO_STEPS
from .derived_stats import derivable
from .fields import FieldReader, Json, kind_of
from .format import DERIVED_VERSION, MAX_ELEMENTS, MAX_NDIM

LEAF_PARTS = ("grad", "before", "now")  # a leaf grad's summaries, beside its node, in a snapshot's steps
_COUNT_LIMIT = 2**31  # entries of one ragged row (inputs, saved roles, arguments)
_BASE64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_CHECKED = 1 << 24  # characters of base64 checked at a time (a copy of this many, then a translate)


class ColumnReader(FieldReader):
    """The column sections of a snapshot (and the base64 arrays they hold), for `read.RecordReader`."""

    version: int  # the document's (set by the record reader)
    _ids_ordered: tuple[NDArray[np.integer[Any]], NDArray[np.integer[Any]]] | None = None  # (ids, ids sorted)

    def strings(self, v: Json, where: str) -> list[str]:
        return self.names(self.seq(v, where), where, None, limit=FIELDS["strings"])

    def count(self, d: dict[str, Json], where: str) -> int:
        return self.integer(d["count"], where + ".count", 0, ID_LIMIT)

    def array(self, v: Json, where: str, dtype: np.dtype[Any], count: int) -> NDArray[Any]:
        """`count` values of `dtype` from base64 text (or the placeholder of a blob lifted out of it)."""
        if type(v) is not str:
            self.fail(where, f"expected base64 text, found {kind_of(v)}")
        v = self.blobs.get(v, v)
        expected = 4 * ((count * dtype.itemsize + 2) // 3)
        if len(v) != expected:
            self.fail(
                where, f"expected {expected:,} base64 characters for {count:,} {dtype.name} values, found {len(v):,}"
            )
        try:
            raw = binascii.a2b_base64(v, strict_mode=True)
        except (binascii.Error, ValueError) as e:
            self.fail(where, f"not valid base64: {e}")
        if len(raw) != count * dtype.itemsize:
            self.fail(where, f"holds {len(raw):,} bytes; {count:,} {dtype.name} values take {count * dtype.itemsize:,}")
        return np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype, copy=False)

    def column(self, d: Json, where: str, count: int, low: int, high: int, dtype: DTypeLike = np.int64) -> NDArray[Any]:
        """An integer column {"dtype", "data"} of `count` values from low to high, as `dtype` (one
        that holds them: int64 unless the caller knows its range), checked in the file's own dtype."""
        self.obj(d, where, ("dtype", "data"))
        name = d["dtype"]
        if type(name) is not str or name not in INT_DTYPES:
            found = repr(visible(name)[:40]) if type(name) is str else kind_of(name)
            self.fail(where + ".dtype", f"expected one of {', '.join(INT_DTYPES)}, found {found}")
        a = self.array(d["data"], where + ".data", np.dtype(name), count)
        if a.size and (int(a.min()) < low or int(a.max()) > high):  # (every INT_DTYPES value is an int64)
            i = int(np.argmax((a.astype(np.int64) < low) | (a.astype(np.int64) > high)))
            self.fail(f"{where}[{i}]", f"{int(a[i])} is out of range ({low} to {high})")
        return a.astype(dtype)

    def ragged(
        self, d: Json, where: str, n: int, parts: tuple[str, ...], high: int, low: int = 0
    ) -> tuple[NDArray[np.int64], list[NDArray[np.int64]]]:
        """(row starts, [each part's flat values, from low to high]) of a column whose rows are lists."""
        self.obj(d, where, ("count",) + parts)
        starts = self.starts(self.column(d["count"], where + ".count", n, 0, _COUNT_LIMIT), where + ".count")
        total = int(starts[-1])
        return starts, [self.column(d[p], f"{where}.{p}", total, low, high) for p in parts]

    def known(self, node: NDArray[np.int64], ids: NDArray[np.integer[Any]], where: str) -> None:
        """Refuse a node id that is not one of the snapshot's nodes (named by its place, `where[i]`)."""
        if not node.size:  # a pass outside the detail window: no steps, no order
            return
        ordered = self._ordered(ids)
        if not ordered.size:
            missing = np.ones(node.shape, dtype=bool)
        else:
            at = np.minimum(np.searchsorted(ordered, node), ordered.size - 1)
            missing = ordered[at] != node
        if missing.any():
            i = int(np.argmax(missing))
            self.fail(f"{where}[{i}]", f"node id {int(node[i])} does not exist in the snapshot")

    def _ordered(self, ids: NDArray[np.integer[Any]]) -> NDArray[np.integer[Any]]:
        """`ids` sorted, made once for the many passes that check their node ids against the same nodes
        (per check, a sort or an isin would cost each pass as much as all the nodes)."""
        if self._ids_ordered is None or self._ids_ordered[0] is not ids:
            ordered = ids if ids.size < 2 or bool((np.diff(ids) > 0).all()) else np.sort(ids)
            self._ids_ordered = (ids, ordered)
        return self._ids_ordered[1]

    def starts(self, counts: NDArray[np.int64], where: str) -> NDArray[np.int64]:
        """Where each row begins in a flat column, from the rows' lengths (n + 1 entries); refused
        when their total passes what int64 holds exactly (a wrapped sum could match a short column)."""
        if counts.sum(dtype=np.float64) > MAX_ELEMENTS:
            self.fail(where, f"the rows' lengths add up to more than {MAX_ELEMENTS:,}")
        starts = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        return starts

    # --- tensors ---------------------------------------------------------------------------------

    _TENSOR_COLUMNS = (
        "count",
        "dtypes",
        "dtype",
        "devices",
        "device",
        "ndim",
        "dims",
        "nan",
        "inf",
        "stats",
        "exact",
        "histogram",
        "held",
        "values",
    )  # and "derived", version 8 on

    def tensor_columns(self, d: Json, where: str) -> SummaryTable:
        self.obj(d, where, self._TENSOR_COLUMNS)
        n = self.count(d, where)
        dtypes = self.names(self.seq(d["dtypes"], where + ".dtypes"), where + ".dtypes", None, limit=64)
        devices = self.names(self.seq(d["devices"], where + ".devices"), where + ".devices", None, limit=64)
        dtype = self.column(d["dtype"], where + ".dtype", n, 0, len(dtypes) - 1, np.int32)
        device = self.column(d["device"], where + ".device", n, 0, len(devices) - 1, np.int32)
        ndim = self.column(d["ndim"], where + ".ndim", n, 0, MAX_NDIM)
        dims_start = self.starts(ndim, where + ".ndim")
        dims = self.column(d["dims"], where + ".dims", int(dims_start[-1]), 0, MAX_ELEMENTS)
        numel = self._numel(dims, dims_start, ndim, where)
        nan = self.column(d["nan"], where + ".nan", n, 0, MAX_ELEMENTS)
        inf = self.column(d["inf"], where + ".inf", n, 0, MAX_ELEMENTS)
        over = nan > numel - inf  # not nan + inf: two counts of 2**62 would wrap
        if over.any():
            i = int(np.argmax(over))
            self.fail(f"{where}.nan[{i}]", f"{nan[i]:,} NaNs and {inf[i]:,} Infs in {numel[i]:,} elements")
        held = self.column(d["held"], where + ".held", n, 0, DROPPED, np.uint8)
        derived = (
            self.column(self.obj(d, where, ("derived",))["derived"], where + ".derived", n, 0, 1, bool)
            if self.version >= DERIVED_VERSION
            else np.zeros(n, dtype=bool)
        )
        stats, exact, counts = self.stored_figures(d, where, numel, derived)
        hosts = [host_dtype(x).name for x in dtypes]
        start, sizes = SummaryTable.starts(held, numel, dtype, hosts)
        pools = self.pools(d["values"], where + ".values")
        for host, size in sizes.items():
            have = pools[host].size if host in pools else 0
            if have != size:
                if host not in pools:
                    self.fail(f"{where}.values", f"the tensors need {size:,} {host} values, and there are none")
                self.fail(f"{where}.values.{host}", f"holds {have:,} values; the tensors use {size:,}")
        for host, pool in pools.items():
            if host not in sizes and pool.size:
                self.fail(f"{where}.values.{host}", f"holds {pool.size:,} values; the tensors use 0")
        table = SummaryTable(
            dims_start,
            dims,
            numel,
            dtype,
            dtypes,
            device,
            devices,
            stats,
            exact,
            nan,
            inf,
            counts,
            held,
            start,
            pools,
            derived,
            derived_figures,
        )
        wrong = derived & ~derivable(table)
        if wrong.any():
            i = int(np.argmax(wrong))
            self.fail(
                f"{where}.derived[{i}]",
                "statistics left out of a tensor they cannot be derived for (only a float tensor whose every "
                f"value is held, all finite, at most {BATCH_LIMIT:,}, has them derived)",
            )
        return table

    def stored_figures(
        self, d: dict[str, Json], where: str, numel: NDArray[np.int64], derived: NDArray[np.bool_]
    ) -> tuple[NDArray[np.float64], dict[int, tuple[int, int]], NDArray[np.integer[Any]]]:
        """(statistics [n, 6], exact integer extremes, histogram counts [n, 16]) of a tensor table: the
        rows the file holds (every row but the `derived`), each checked; the derived rows left to fill."""
        n, kept = len(numel), np.flatnonzero(~derived)
        stats = self.array(d["stats"], where + ".stats", np.dtype(np.float64), len(kept) * len(STAT_FIELDS))
        stats = stats.reshape(len(kept), len(STAT_FIELDS))
        zf = stats[:, -1]
        bad = ~((zf >= 0.0) & (zf <= 1.0))
        if bad.any():
            k = int(np.argmax(bad))
            self.fail(f"{where}.stats", f"row {kept[k]}: zero_fraction {float(zf[k])!r} is not a fraction from 0 to 1")
        exact, counts = self.exact_and_histograms(d, where, n, len(kept))
        counts = counts.reshape(len(kept), HISTOGRAM_BINS)
        overfull = (counts.max(axis=1) > numel[kept]) if len(kept) else np.zeros(0, dtype=bool)  # one reduce per row
        if overfull.any():
            k = int(np.argmax(overfull))
            self.fail(
                f"{where}.histogram.data",
                f"row {kept[k]}: a count of {int(counts[k].max()):,} in {numel[kept[k]]:,} elements",
            )
        if len(kept) == n:
            return stats, exact, counts
        every = np.zeros((n, len(STAT_FIELDS)), dtype=np.float64)  # (zeroed pages: touched when filled)
        every[kept] = stats
        every_count = np.zeros((n, HISTOGRAM_BINS), dtype=np.promote_types(counts.dtype, np.uint16))  # up to 4,096
        every_count[kept] = counts
        return every, exact, every_count

    def exact_and_histograms(
        self, d: dict[str, Json], where: str, n: int, kept: int
    ) -> tuple[dict[int, tuple[int, int]], NDArray[np.integer[Any]]]:
        """A tensor table's exact integer extremes ({row: (min, max)}, of its n rows) and the histogram
        counts of the `kept` rows whose figures it holds."""
        exact: dict[int, tuple[int, int]] = {}
        for k, row in enumerate(self.seq(d["exact"], where + ".exact")):
            if type(row) is not list or len(row) != 3:
                self.fail(f"{where}.exact[{k}]", "expected [row, min, max]")
            i = self.integer(row[0], f"{where}.exact[{k}][0]", 0, max(n - 1, 0))
            exact[i] = (
                self.integer(row[1], f"{where}.exact[{k}][1]", -(2**64), 2**64),
                self.integer(row[2], f"{where}.exact[{k}][2]", -(2**64), 2**64),
            )
        hist = self.obj(d["histogram"], where + ".histogram", ("dtype", "data"))
        if hist["dtype"] not in HISTOGRAM_DTYPES:
            self.fail(where + ".histogram.dtype", f"expected one of {', '.join(HISTOGRAM_DTYPES)}")
        counts = self.array(hist["data"], where + ".histogram.data", np.dtype(hist["dtype"]), kept * HISTOGRAM_BINS)
        if counts.dtype.kind == "i" and counts.size and counts.min() < 0:
            self.fail(where + ".histogram.data", "a histogram count is negative")
        return exact, counts

    def _numel(
        self, dims: NDArray[np.int64], dims_start: NDArray[np.int64], ndim: NDArray[np.int64], where: str
    ) -> NDArray[np.int64]:
        """Elements per row: the product of its dims (1 for a scalar), at most MAX_ELEMENTS."""
        n = len(ndim)
        numel = np.ones(n, dtype=np.int64)
        shaped = np.flatnonzero(ndim)
        if shaped.size:
            if int(ndim.max()) * int(dims.max(initial=0)).bit_length() > 62:  # else every product is below 2**62
                big = np.multiply.reduceat(dims.astype(np.float64), dims_start[shaped]) > MAX_ELEMENTS
                if big.any():
                    i = int(shaped[np.argmax(big)])
                    self.fail(f"{where}.dims", f"tensor {i} has more than the {MAX_ELEMENTS:,} elements allowed")
            numel[shaped] = np.multiply.reduceat(dims, dims_start[shaped])
        return numel

    def pools(self, given: Json, where: str) -> dict[str, Pool]:
        """The values of the tensors, per host dtype: base64 checked character by character, not
        decoded (a row's values are decoded when it is read: `record.encoded_pool`)."""
        if type(given) is not dict:
            self.fail(where, f"expected an object, found {kind_of(given)}")
        pools: dict[str, Pool] = {}
        for key, value in given.items():
            if key not in ARRAY_DTYPES:
                self.fail(where, f"unknown array dtype {visible(key)[:40]!r}")
            dtype = np.dtype(key)
            text = self.blobs.get(value, value) if type(value) is str else None
            if text is None or len(text) % 4:
                self.fail(f"{where}.{key}", "expected base64 text")
            raw_len = len(text) // 4 * 3 - padding(text)
            if raw_len % dtype.itemsize:
                self.fail(f"{where}.{key}", f"not a whole number of {key} values")
            pools[key] = EncodedPool(self.base64_text(text, f"{where}.{key}"), dtype, raw_len // dtype.itemsize)
        return pools

    def base64_text(self, text: str | memoryview, where: str) -> bytes | memoryview:
        """Base64 text checked without decoding it (a few times faster): only its alphabet, with at
        most two "=" at its end. Kept as a view of the file's bytes when it is most of them (the
        file is then kept whole), else copied out (the rest of the file can go)."""
        if isinstance(text, str):
            if not text.isascii():
                self.fail(where, "not valid base64: it holds a character outside ASCII")
            text = memoryview(text.encode("ascii"))
        end = len(text) - padding(text)  # the "=" are the last one or two characters
        for at in range(0, end, _CHECKED):
            chunk = bytes(text[at : min(at + _CHECKED, end)])
            rest = chunk.translate(None, _BASE64)
            if rest:
                self.fail(where, f"not valid base64: character {at + chunk.find(rest[:1]):,} is {chr(rest[0])!r}")
        return text if 2 * len(text) > len(text.obj) else bytes(text)  # type: ignore[arg-type]  # a view's object is sized

    # --- steps ---------------------------------------------------------------------------------

    def step_columns(self, d: Json, where: str, ids: NDArray[np.integer[Any]], tensors: SummaryTable) -> StepColumns:
        """A pass's steps (version 6 on): node ids among `ids`, grads as rows of `tensors` or -1."""
        if type(d) is dict and type(d.get("count")) is int and d == NO_STEPS:  # (a count 0.0 or false: below)
            return _no_steps(tensors)
        self.obj(d, where, ("count", "node", "grad_output", "grad_inputs", "leaf_grads"))
        n = self.count(d, where)
        top = len(tensors) - 1
        node = self.column(d["node"], where + ".node", n, 0, ID_LIMIT)
        self.known(node, ids, where + ".node")
        grad_output = self.column(d["grad_output"], where + ".grad_output", n, NONE, top)
        inputs_start, (inputs,) = self.ragged(d["grad_inputs"], where + ".grad_inputs", n, ("rows",), top, NONE)
        at = where + ".leaf_grads"
        leaves = self.obj(d["leaf_grads"], at, ("count", "node", "grad", "before", "now"))
        leaves_start, (leaf,) = self.ragged(leaves, at, n, ("node",), ID_LIMIT)
        self.known(leaf, ids, at + ".node")
        grad, before, now = (self.column(leaves[key], f"{at}.{key}", len(leaf), NONE, top) for key in LEAF_PARTS)
        return StepColumns(node, grad_output, inputs_start, inputs, leaves_start, leaf, grad, before, now, tensors)

    # --- nodes -------------------------------------------------------------------------------

    def node_columns(self, d: Json, where: str, strings: list[str], tensors: SummaryTable) -> NodeColumns:
        """The node columns, walking `node_fields.COLUMNS`: each checked whole against what its rows
        may hold (a file written before an optional column was added reads it as its default)."""
        self.obj(d, where, ("count",) + tuple(c.key for c in COLUMNS if not c.optional))
        n = self.count(d, where)
        ids = self.column(d["id"], where + ".id", n, 0, ID_LIMIT)
        if n > 1 and not (np.diff(ids) > 0).all():
            order = np.argsort(ids, kind="stable")
            twice = np.flatnonzero(np.diff(ids[order]) == 0)
            if twice.size:
                i = int(order[twice[0] + 1])
                self.fail(f"{where}.id[{i}]", f"node id {int(ids[i])} appears twice")
        # Each kind's (lowest, highest) value, from the tables its indices point into.
        top = len(strings) - 1
        bounds = {
            INT: (0, ID_LIMIT),
            OPT_INT: (NONE, ID_LIMIT),
            TEXT: (0, top),
            OPT_TEXT: (NONE, top),
            SITE: (NONE, len(self.sites) - 1),
            SUMMARY: (NONE, len(tensors) - 1),
            IDS: (0, ID_LIMIT),
            TEXTS: (0, top),
            TEXT_PAIRS: (0, top),
        }
        columns: dict[str, Any] = {"id": ids}
        for c in COLUMNS:
            if c.name == "id":  # read first: the inputs are checked against it
                continue
            at = f"{where}.{c.key}"
            given = d.get(c.key)
            if c.kind == ROW_PAIRS:
                columns[c.name] = {} if given is None else self._row_pairs(given, at, c, n)
            elif c.kind in RAGGED:
                keys = tuple(key for _, key in c.parts)
                if given is None:
                    starts, parts = offsets(np.zeros(n, np.int64)), [np.zeros(0, np.int64) for _ in keys]
                else:
                    starts, parts = self.ragged(given, at, n, keys, bounds[c.kind][1])
                if c.kind == IDS:
                    self.known(parts[0], ids, f"{at}.{keys[0]}")
                columns[c.start] = starts
                columns.update((part, a.astype(c.dtype, copy=False)) for (part, _), a in zip(c.parts, parts))
            else:
                low, high = (0, (1 << len(c.fields)) - 1) if c.kind == FLAGS else bounds[c.kind]
                if given is None:
                    columns[c.name] = np.full(n, NONE if low < 0 else 0).astype(c.dtype)
                else:
                    columns[c.name] = self.column(given, at, n, low, high, c.dtype)
        return NodeColumns(strings=strings, sites=self.sites, summaries=tensors, **columns)

    def _row_pairs(self, d: Json, where: str, c: Column, n: int) -> dict[int, tuple[int, int]]:
        """A ROW_PAIRS column's {row: (a, b)}: its rows, each once, and their two numbers."""
        parts = tuple(key for _, key in c.parts)
        self.obj(d, where, ("count", "rows") + parts)
        k = self.count(d, where)
        rows = self.column(d["rows"], where + ".rows", k, 0, max(n - 1, 0))
        if (np.diff(np.sort(rows)) == 0).any():
            self.fail(where + ".rows", "a node appears twice")
        counts = [self.column(d[p], f"{where}.{p}", k, 0, ID_LIMIT) for p in parts]
        return dict(zip(rows.tolist(), zip(*(a.tolist() for a in counts))))


def _no_steps(tensors: SummaryTable) -> StepColumns:
    """The columns of no steps (each array its own, as a read pass's are)."""

    def empty(size: int = 0) -> NDArray[np.int64]:
        return np.zeros(size, np.int64)

    return StepColumns(empty(), empty(), empty(1), empty(), empty(1), empty(), empty(), empty(), empty(), tensors)
