"""The node columns' append side, what a live recording grows: node rows and their output summaries as columns."""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .node_columns import Coder, NodeColumns, offsets
from .node_fields import ARRAYS, COLUMNS, NONE, ROW, ROW_PAIRS, dtype_of
from .summary_table import DROPPED, SummaryTable, index_ranges
from .tensor_summary import TensorSummary

# Summaries added one at a time are packed into a table this many at a time.
PACK = 16384
# Deleted node rows are left out once there are this many and they are over half the rows.
COMPACT_ROWS = 4096


class LiveSummaries:
    """Summaries added one at a time; each keeps its row number for good. The newest are the
    TensorSummary objects added, until PACK of them are packed into a SummaryTable. Dropping a
    packed row's values marks it DROPPED; a table gives the memory back once half its values
    are dropped (it is repacked)."""

    __slots__ = ("_bases", "_dropped", "_loose", "_start", "_tables")

    def __init__(self) -> None:
        self._tables: list[SummaryTable] = []
        self._bases: list[int] = []  # each table's first row
        self._dropped: list[int] = []  # each table's bytes dropped since it was packed
        self._loose: list[TensorSummary] = []  # the TensorSummary objects after the tables
        self._start = 0  # the first loose row

    @classmethod
    def of(cls, table: SummaryTable) -> LiveSummaries:
        """A table's rows, as rows 0 onwards."""
        live = cls()
        live._tables, live._bases, live._dropped, live._start = [table], [0], [0], len(table)
        return live

    def __len__(self) -> int:
        return self._start + len(self._loose)

    def add(self, summary: TensorSummary) -> int:
        """Append a summary; its row."""
        row = self._start + len(self._loose)
        self._loose.append(summary)
        if len(self._loose) >= PACK:
            self._pack()
        return row

    def extend(self, summaries: list[TensorSummary] | SummaryTable) -> None:
        """Append summaries (rows len(self) onwards): TensorSummary objects, or a table's rows (kept as
        that table, after the objects before them are packed)."""
        if isinstance(summaries, SummaryTable):
            self._pack()
            self._add_table(summaries)
            return
        self._loose.extend(summaries)
        if len(self._loose) >= PACK:
            self._pack()

    def _pack(self) -> None:
        if self._loose:
            loose, self._loose = self._loose, []
            self._add_table(SummaryTable.from_summaries(loose))

    def _add_table(self, table: SummaryTable) -> None:
        """Append a table's rows after every row (no loose summary left)."""
        self._tables.append(table)
        self._bases.append(self._start)
        self._dropped.append(0)
        self._start += len(table)

    def _locate(self, row: int) -> tuple[int, int]:
        k = bisect_right(self._bases, row) - 1
        return k, row - self._bases[k]

    def __getitem__(self, row: int) -> TensorSummary:
        if row >= self._start:
            return self._loose[row - self._start]
        k, i = self._locate(row)
        return self._tables[k][i]

    def value_bytes(self, row: int) -> int:
        """Bytes of the row's preview and values (what the memory budget counts)."""
        if row >= self._start:
            return self._loose[row - self._start].captured_bytes
        k, i = self._locate(row)
        return self._tables[k].value_bytes(i)

    def drop(self, row: int) -> int:
        """Let go of the row's preview and values; the bytes freed."""
        if row >= self._start:
            return self._loose[row - self._start].drop_values()
        k, i = self._locate(row)
        table = self._tables[k]
        freed = table.value_bytes(i)
        if freed:
            table.held[i] = DROPPED
            self._dropped[k] += freed
            if 2 * self._dropped[k] > sum(pool.nbytes for pool in table.pools.values()):
                self._tables[k] = table.take(np.arange(len(table)))
                self._dropped[k] = 0
        return freed

    def nonfinite(self) -> NDArray[np.bool_]:
        """Per row: whether it holds a NaN or an Inf."""
        parts = [t.nonfinite() for t in self._tables]
        parts.append(np.fromiter((s.has_nonfinite for s in self._loose), bool, len(self._loose)))
        return np.concatenate(parts)

    def table(self) -> SummaryTable:
        """Every row as one table (kept as the one packed table from now on)."""
        self._pack()
        if len(self._tables) > 1 or any(self._dropped):
            self._tables = [SummaryTable.concat_all(self._tables)]
            self._bases, self._dropped = [0], [0]
        return self._tables[0] if self._tables else SummaryTable.from_summaries([])


_INT64, _INT32 = "q", "i"
_TYPECODES = {"int64": _INT64, "int32": _INT32, "uint8": "B"}  # a column's NumPy dtype -> its typed array's


class Scan:
    """What a scan over every node reads (the findings, the summary), row per node in creation
    order: the id, op, flags, parameter, leaf and pass columns (`strings` indices as in
    NodeColumns), dead units by row, and whether each output holds a NaN or an Inf."""

    __slots__ = ("_nonfinite", "dead", "flags", "id", "leaf", "op", "parameter", "pass_index", "strings")

    def __init__(
        self,
        id: NDArray[np.int64],
        op: NDArray[np.int32],
        flags: NDArray[np.uint8],
        parameter: NDArray[np.int32],
        leaf: NDArray[np.int64],
        strings: list[str],
        dead: dict[int, tuple[int, int]],
        nonfinite: NDArray[np.bool_],
        pass_index: NDArray[np.int64],
    ) -> None:
        self.id, self.op, self.flags, self.parameter, self.leaf = id, op, flags, parameter, leaf
        self.pass_index = pass_index
        self.strings, self.dead, self._nonfinite = strings, dead, nonfinite

    def output_nonfinite(self) -> NDArray[np.bool_]:
        return self._nonfinite


# The columns as `LiveNodes.extend` appends to them: one array each, and the ragged ones (starts, first part, the rest).
_FLAT = tuple(c.name for c in COLUMNS if c.start == "" and c.kind != ROW_PAIRS)
_RAGGED = tuple((c.start, c.parts[0][0], tuple(p for p, _ in c.parts[1:])) for c in COLUMNS if c.start)


class LiveNodes(NodeColumns):
    """The rows a recording appends, in creation order: the NodeColumns it reads as, held in growing
    typed arrays (`node_fields.COLUMNS`), with the summaries in a LiveSummaries. A row's output
    summary and dead units may be filled in after it is appended; a deleted row stays until the
    rows are compacted; `columns()` is the rows not deleted as NumPy columns."""

    __slots__ = ("_coder", "_dense", "_gone", "_index", "alive", "changes", "refs", "unused")

    # Its columns are typed arrays, always, read by NodeColumns' methods as they read NumPy arrays
    # (by index, slice, len and tolist).
    id: array[int]  # type: ignore[assignment]
    op: array[int]  # type: ignore[assignment]
    flags: array[int]  # type: ignore[assignment]
    parameter: array[int]  # type: ignore[assignment]
    leaf: array[int]  # type: ignore[assignment]
    pass_index: array[int]  # type: ignore[assignment]
    output: array[int]  # type: ignore[assignment]
    inputs: array[int]  # type: ignore[assignment]
    inputs_start: array[int]  # type: ignore[assignment]
    # Its summaries grow one at a time; they read as a SummaryTable's do (rows by index, len,
    # nonfinite), which is all NodeColumns' methods ask of them; the table is `columns().summaries`.
    _summaries: LiveSummaries  # type: ignore[assignment]

    def __init__(self) -> None:  # not NodeColumns': the columns start empty and grow
        for name in ARRAYS:
            setattr(self, name, array(_TYPECODES[dtype_of(name)], [0] if name.endswith("_start") else []))
        for c in COLUMNS:
            if c.kind == ROW_PAIRS:
                setattr(self, c.name, {})
        self._coder = Coder()
        self.strings, self.sites = self._coder.strings, self._coder.sites
        self._summaries, self._outputs = LiveSummaries(), None
        self._first, self._row, self._sorted = None, None, False  # its own lookup instead (`row`)
        self.alive = bytearray()
        self.refs = array(_INT32)  # per summary row: the rows whose output it is
        self._dense = True  # ids so far are first, first + 1, ...
        self._index: dict[int, int] | None = None  # id -> row, once ids are not increasing
        self._gone = 0
        self.unused = 0  # summary rows no row has as its output any more
        self.changes = 0  # counts every change (a reader's cache key)

    @property
    def summaries(self) -> LiveSummaries:  # type: ignore[override]  # as `_summaries` above says
        """The outputs' summaries (`output` indexes them)."""
        return self._summaries

    def extend(self, rows: list[tuple[Any, ...]]) -> None:
        """Append node rows, each a tuple of `node_fields.ROW`'s columns, with no output yet."""
        if not rows:
            return
        if len(rows[0]) != len(ROW):
            raise ValueError(f"a node row has {len(ROW)} values ({', '.join(ROW)}), not {len(rows[0])}")
        n = len(rows)
        values = dict(zip(ROW, zip(*rows)))
        ids = values["id"]
        old = self.id
        previous = old[-1] if old else ids[0] - 1
        increasing = all(map(operator.lt, ids, ids[1:]))
        if self._dense and not (ids[0] == previous + 1 and ids[-1] - ids[0] == n - 1 and increasing):
            self._dense = False
        if self._index is None and not (ids[0] > previous and increasing):
            self._index = dict(zip(old, range(len(old))))
        if self._index is not None:
            self._index.update(zip(ids, range(len(old), len(old) + n)))
        coded = self._coder.columns(values)
        for name in _FLAT:
            getattr(self, name).extend(coded[name] if name in coded else [NONE] * n)
        for start, first, rest in _RAGGED:
            if start in coded:
                _ragged(getattr(self, start), getattr(self, first), coded[start], coded[first])
                for part in rest:
                    getattr(self, part).extend(coded[part])
            else:
                _ragged(getattr(self, start), getattr(self, first), [0] * n, ())
        self.alive.extend(b"\x01" * n)
        self.changes += 1

    def set_dead(self, r: int, dead: tuple[int, int]) -> None:
        """Row r (a relu) has `dead` (units zero for the whole batch, units)."""
        self.dead[r] = dead
        self.changes += 1

    def row(self, k: object) -> int | None:
        """The row of node id k (None when there is none, or it was deleted)."""
        ids = self.id
        if type(k) is not int:
            if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
                return None
            k = int(k)
        if not ids:
            return None
        if self._index is not None:
            r = self._index.get(k)
        elif self._dense:
            r = k - ids[0]
            if not 0 <= r < len(ids):
                return None
        else:
            r = bisect_left(ids, k)
            if r == len(ids) or ids[r] != k:
                return None
        return r if r is not None and self.alive[r] else None

    def set_outputs(self, rows: list[int], summaries: list[TensorSummary] | SummaryTable) -> None:
        """Give each row its output summary (appended to `summaries` in this order: objects, or a table's rows)."""
        if rows:
            first = len(self._summaries)
            self._summaries.extend(summaries)
            self.refs.extend([1] * len(rows))
            output = self.output
            for k, r in enumerate(rows, first):
                output[r] = k
            self.changes += 1

    def set_output(self, r: int, summary: TensorSummary) -> int:
        """Give row r its output summary (appended to `summaries`); the summary's row."""
        s = self._summaries.add(summary)
        self.refs.append(1)
        self.output[r] = s
        self.changes += 1
        return s

    def share_output(self, r: int, s: int) -> None:
        """Give row r the output summary of summary row s (a value shared with an earlier node)."""
        self.refs[s] += 1
        self.output[r] = s
        self.changes += 1

    def drop_values(self, s: int) -> int:
        """Let go of the preview and values of summary row s; the bytes freed."""
        freed = self._summaries.drop(s)
        if freed:
            self.changes += 1
        return freed

    def delete(self, r: int) -> None:
        """Delete row r; its output's values go once no row has that output."""
        self.alive[r] = 0
        self._gone += 1
        self.changes += 1
        self.dead.pop(r, None)
        s = self.output[r]
        if s >= 0:
            self.refs[s] -= 1
            if not self.refs[s]:
                self._summaries.drop(s)  # counted as this change
                self.unused += 1
        if self._gone >= COMPACT_ROWS and 2 * self._gone > len(self.id):
            self._compact()

    def _taken_columns(self, rows: NDArray[np.int64] | None) -> dict[str, Any]:
        """These rows (None: every row) of every array column as NumPy arrays (a ragged column's
        starts renumbered), and of every ROW_PAIRS column (its rows renumbered)."""
        out: dict[str, Any] = {}
        for c in COLUMNS:
            if c.kind == ROW_PAIRS:
                pairs = getattr(self, c.name)
                if rows is None:
                    out[c.name] = dict(pairs)
                    continue
                position = np.full(len(self.id), NONE, dtype=np.int64)
                position[rows] = np.arange(len(rows))
                out[c.name] = {int(position[r]): v for r, v in pairs.items() if position[r] >= 0}
            elif c.start and rows is not None:
                starts = np.frombuffer(getattr(self, c.start), dtype=np.int64)
                counts = np.diff(starts)[rows]
                picked = index_ranges(starts[rows], counts)
                out.update((part, np.frombuffer(getattr(self, part), dtype=c.dtype)[picked]) for part, _ in c.parts)
                out[c.start] = offsets(counts)
                del starts  # let go of the array's buffer before it is replaced
            elif c.start:
                out[c.start] = np.array(getattr(self, c.start), dtype=np.int64)
                out.update((part, np.array(getattr(self, part), dtype=c.dtype)) for part, _ in c.parts)
            else:
                column = np.array(getattr(self, c.name), dtype=c.dtype)
                out[c.name] = column if rows is None else column[rows]
        return out

    def _compact(self) -> None:
        """Leave out the deleted rows (rows are renumbered; ids stay)."""
        keep = np.flatnonzero(np.frombuffer(self.alive, dtype=np.uint8))
        for name, value in self._taken_columns(keep).items():
            setattr(self, name, value if type(value) is dict else _typed(value))
        self.alive = bytearray(b"\x01" * len(keep))
        ids = self.id
        self._gone = 0
        self._dense = not ids or (ids[-1] - ids[0] == len(ids) - 1 and all(map(operator.lt, ids, ids[1:])))
        self._index = None if all(map(operator.lt, ids, ids[1:])) else dict(zip(ids, range(len(ids))))

    def compact_summaries(self) -> NDArray[np.int64] | None:
        """Once over half the summary rows (and COMPACT_ROWS) are no row's output, leave them out:
        the new row of each old one (NONE: left out), for whoever holds summary rows; else None."""
        if self.unused < COMPACT_ROWS or 2 * self.unused <= len(self._summaries):
            return None
        refs = np.frombuffer(self.refs, dtype=np.int32)
        keep = np.flatnonzero(refs > 0)
        remap = np.full(len(refs), NONE, dtype=np.int64)
        remap[keep] = np.arange(len(keep))
        self._summaries = LiveSummaries.of(self._summaries.table().take(keep))
        self.refs = _taken(self.refs, keep)
        del refs
        output = np.frombuffer(self.output, dtype=np.int64)
        moved = np.where(output >= 0, remap[np.maximum(output, 0)], NONE)
        del output
        self.output = array(_INT64, moved.tobytes())
        self.unused = 0
        self.changes += 1
        return remap

    def scan(self) -> Scan:
        """The columns a scan of the nodes reads (findings, the summary), without packing the summaries."""
        rows = None if not self._gone else np.array(self.rows(), dtype=np.int64)

        def column(values: array[int], dtype: type[np.integer[Any]]) -> NDArray[Any]:
            a = np.array(values, dtype=dtype)
            return a if rows is None else a[rows]

        output = column(self.output, np.int64)
        nonfinite = np.zeros(len(output), dtype=bool)
        present = output >= 0
        nonfinite[present] = self._summaries.nonfinite()[output[present]]
        dead = self.dead
        if rows is not None:
            position = dict(zip(rows.tolist(), range(len(rows))))
            dead = {position[r]: v for r, v in dead.items()}
        return Scan(
            column(self.id, np.int64),
            column(self.op, np.int32),
            column(self.flags, np.uint8),
            column(self.parameter, np.int32),
            column(self.leaf, np.int64),
            self.strings,
            dict(dead),
            nonfinite,
            column(self.pass_index, np.int64),
        )

    @property
    def count(self) -> int:
        """Rows not deleted."""
        return len(self.id) - self._gone

    def rows(self) -> Sequence[int]:
        """The rows not deleted, in creation order."""
        if not self._gone:
            return range(len(self.id))
        return np.flatnonzero(np.frombuffer(self.alive, dtype=np.uint8)).tolist()

    def ids(self) -> list[int]:
        if not self._gone:
            return self.id.tolist()
        return [self.id[r] for r in self.rows()]

    def columns(self) -> NodeColumns:
        """The rows not deleted as a NodeColumns, with their outputs' summaries as one table."""
        table = self._summaries.table()
        arrays = self._taken_columns(None if not self._gone else np.array(self.rows(), dtype=np.int64))
        output = arrays["output"]
        used = output >= 0
        if self.unused:  # only the summaries still in use, in row order (a shared one once)
            kept, output[used] = np.unique(output[used], return_inverse=True)
            table = table.take(kept)
        return NodeColumns(strings=list(self.strings), sites=list(self.sites), summaries=table, **arrays)


def _ragged(starts: array[int], flat: array[int], lengths: Sequence[int], values: Sequence[int]) -> None:
    """Append rows to a ragged column: `values` (the rows' values, one after another) to `flat`,
    each row's end (by the rows' `lengths`) to `starts`."""
    starts.extend(accumulate(lengths, initial=len(flat)))
    del starts[-len(lengths) - 1]  # the first "end" is where the new rows begin: already there
    flat.extend(values)


def _typed(values: NDArray[Any]) -> array[int]:
    """A NumPy array as a typed array (to grow)."""
    out = array(_TYPECODES[values.dtype.name])
    out.frombytes(values.tobytes())
    return out


def _taken(column: array[int], rows: NDArray[np.int64]) -> array[int]:
    """A typed array of these rows of `column`."""
    out = array(column.typecode)
    out.frombytes(np.frombuffer(column, dtype=column.typecode)[rows].tobytes())
    return out
