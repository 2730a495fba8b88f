"""The columns a live recording appends to: node rows and their output summaries, no object per node."""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_left, bisect_right
from itertools import accumulate, chain

import numpy as np

from .node_table import COLUMNS, IS_LEAF, NONE, REQUIRES_GRAD, NodeColumns
from .summary_table import DROPPED, SummaryTable, index_ranges

# Summaries added one at a time are packed into a table this many at a time.
PACK = 16384
_MISSING = -2  # a code not yet given
# Deleted node rows are left out once there are this many and they are over half the rows.
COMPACT_ROWS = 4096


class LiveSummaries:
    """Summaries added one at a time; each keeps its row number for good. The newest are the
    TensorSummary objects added, until PACK of them are packed into a SummaryTable. Dropping a
    packed row's values marks it DROPPED; a table gives the memory back once half its values
    are dropped (it is repacked)."""

    __slots__ = ("_bases", "_dropped", "_loose", "_start", "_tables")

    def __init__(self):
        self._tables: list[SummaryTable] = []
        self._bases: list[int] = []      # each table's first row
        self._dropped: list[int] = []    # each table's bytes dropped since it was packed
        self._loose: list = []           # the TensorSummary objects after the tables
        self._start = 0                  # the first loose row

    @classmethod
    def of(cls, table: SummaryTable) -> LiveSummaries:
        """A table's rows, as rows 0 onwards."""
        live = cls()
        live._tables, live._bases, live._dropped, live._start = [table], [0], [0], len(table)
        return live

    def __len__(self) -> int:
        return self._start + len(self._loose)

    def add(self, summary) -> int:
        """Append a summary; its row."""
        row = self._start + len(self._loose)
        self._loose.append(summary)
        if len(self._loose) >= PACK:
            self._pack()
        return row

    def extend(self, summaries: list) -> None:
        """Append summaries (rows len(self) onwards)."""
        self._loose.extend(summaries)
        if len(self._loose) >= PACK:
            self._pack()

    def _pack(self) -> None:
        if self._loose:
            self._tables.append(SummaryTable.from_summaries(self._loose))
            self._bases.append(self._start)
            self._dropped.append(0)
            self._start += len(self._loose)
            self._loose = []

    def _locate(self, row: int) -> tuple[int, int]:
        k = bisect_right(self._bases, row) - 1
        return k, row - self._bases[k]

    def __getitem__(self, row: int):
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

    def nonfinite(self) -> np.ndarray:
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


class Scan:
    """What a scan over every node reads (the findings), row per node in creation order: the id,
    op, flags, parameter and leaf columns (`strings` indices as in NodeColumns), dead units by
    row, and whether each output holds a NaN or an Inf."""

    __slots__ = ("_nonfinite", "dead", "flags", "id", "leaf", "op", "parameter", "strings")

    def __init__(self, id, op, flags, parameter, leaf, strings, dead, nonfinite):
        self.id, self.op, self.flags, self.parameter, self.leaf = id, op, flags, parameter, leaf
        self.strings, self.dead, self._nonfinite = strings, dead, nonfinite

    def output_nonfinite(self) -> np.ndarray:
        return self._nonfinite


class LiveNodes:
    """Node rows appended in creation order, as growing typed arrays (see `record.py`'s docstring
    for the columns); rows are made into Nodes when read and into a NodeColumns for the readers of
    columns. A row's output summary and dead units may be filled in after it is appended."""

    __slots__ = ("_codes", "_dense", "_gone", "_index", "_site_codes", "_site_ids", "_site_objects", "alive",
                 "changes", "refs", "summaries", "unused", *COLUMNS)

    def __init__(self):
        self.id, self.pass_index, self.output, self.leaf = (array(_INT64) for _ in range(4))
        self.op, self.name, self.parameter, self.module, self.site = (array(_INT32) for _ in range(5))
        self.flags = array("B")
        self.inputs_start, self.saved_start, self.args_start = array(_INT64, [0]), array(_INT64, [0]), array(_INT64, [0])
        self.inputs, self.saved, self.arg_name, self.arg_text = array(_INT64), array(_INT32), array(_INT32), array(_INT32)
        self.alive = bytearray()
        self.dead: dict[int, tuple[int, int]] = {}
        self.strings: list[str] = []
        self._codes: dict = {None: NONE}   # text -> its index in strings
        self.sites: list = []
        self._site_codes: dict = {None: NONE}
        self._site_ids: dict[int, int] = {id(None): NONE}  # id(site object) -> its index in sites
        self._site_objects: list = []      # the objects in _site_ids
        self.summaries = LiveSummaries()
        self.refs = array(_INT32)          # per summary row: the rows whose output it is
        self._dense = True                 # ids so far are first, first + 1, ...
        self._index: dict[int, int] | None = None  # id -> row, once ids are not increasing
        self._gone = 0
        self.unused = 0                    # summary rows no row has as its output any more
        self.changes = 0                   # counts every change (a reader's cache key)

    def __len__(self) -> int:
        return len(self.id)

    def extend(self, rows: list) -> None:
        """Append node rows, each (id, op, name, inputs, pass index, flags, parameter, module, site,
        saved roles, args, leaf identity), with no output yet."""
        if not rows:
            return
        n = len(rows)
        ids, ops, names, inputs, passes, flags, parameters, modules, sites, saved, args, leaves = zip(*rows)
        old = self.id
        previous = old[-1] if old else ids[0] - 1
        increasing = all(map(operator.lt, ids, ids[1:]))
        if self._dense and not (ids[0] == previous + 1 and ids[-1] - ids[0] == n - 1 and increasing):
            self._dense = False
        if self._index is None and not (ids[0] > previous and increasing):
            self._index = dict(zip(old, range(len(old))))
        if self._index is not None:
            self._index.update(zip(ids, range(len(old), len(old) + n)))
        old.extend(ids)
        saved_flat = list(chain.from_iterable(saved))
        pairs = list(chain.from_iterable(args))
        # Every text coded in one call, in the order of the columns (new texts are numbered in it).
        texts = self._code_all([*ops, *names, *parameters, *modules, *saved_flat, *(k for k, _ in pairs),
                                *(v for _, v in pairs)])
        self.op.extend(texts[:n])
        self.name.extend(texts[n:2 * n])
        self.parameter.extend(texts[2 * n:3 * n])
        self.module.extend(texts[3 * n:4 * n])
        rest = 4 * n + len(saved_flat)
        self.pass_index.extend(passes)
        self.output.extend([NONE] * n)
        self.flags.extend(flags)
        codes = list(map(self._site_ids.get, map(id, sites)))
        self.site.extend(codes if None not in codes else self._code_sites(sites))
        self.leaf.extend(leaves)
        _ragged(self.inputs_start, self.inputs, list(map(len, inputs)), list(chain.from_iterable(inputs)))
        _ragged(self.saved_start, self.saved, list(map(len, saved)), texts[4 * n:rest])
        _ragged(self.args_start, self.arg_name, list(map(len, args)), texts[rest:rest + len(pairs)])
        self.arg_text.extend(texts[rest + len(pairs):])
        self.alive.extend(b"\x01" * n)
        self.changes += 1

    def _code_sites(self, sites) -> list[int]:
        """Each site's index in `sites`, remembered by object (a few SourceSite objects are met
        again and again; those remembered are held, so that their ids stay theirs)."""
        if len(self._site_objects) > 2 * len(self.sites) + 64:  # sites made anew each time: start over
            self._site_objects, self._site_ids = [], {id(None): NONE}
        codes = self._code_all(list(sites), self._site_codes, self.sites)
        for site, code in zip(sites, codes):
            if id(site) not in self._site_ids:
                self._site_ids[id(site)] = code
                self._site_objects.append(site)
        return codes

    def _code_all(self, values: list, codes: dict | None = None, table: list | None = None) -> list[int]:
        """Each value's index in `strings` (or in `table`, by `codes`), NONE for None."""
        if codes is None:
            codes, table = self._codes, self.strings
        get = codes.get
        out = [get(v, _MISSING) for v in values]
        if _MISSING in out:
            for i, v in enumerate(values):
                if out[i] == _MISSING:
                    c = codes.get(v)
                    if c is None:
                        c = codes[v] = len(table)
                        table.append(v)
                    out[i] = c
        return out

    def set_dead(self, r: int, dead: tuple[int, int]) -> None:
        """Row r (a relu) has `dead` (units zero for the whole batch, units)."""
        self.dead[r] = dead
        self.changes += 1

    def row(self, k) -> int | None:
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

    def set_outputs(self, rows: list[int], summaries: list) -> None:
        """Give each row its output summary (appended to `summaries` in this order)."""
        if rows:
            first = len(self.summaries)
            self.summaries.extend(summaries)
            self.refs.extend([1] * len(rows))
            output = self.output
            for k, r in enumerate(rows, first):
                output[r] = k
            self.changes += 1

    def set_output(self, r: int, summary) -> int:
        """Give row r its output summary (appended to `summaries`); the summary's row."""
        s = self.summaries.add(summary)
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
        freed = self.summaries.drop(s)
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
                self.summaries.drop(s)  # counted as this change
                self.unused += 1
        if self._gone >= COMPACT_ROWS and 2 * self._gone > len(self.id):
            self._compact()

    def _compact(self) -> None:
        """Leave out the deleted rows (rows are renumbered; ids stay)."""
        keep = np.flatnonzero(np.frombuffer(self.alive, dtype=np.uint8))
        position = np.full(len(self.id), NONE, dtype=np.int64)
        position[keep] = np.arange(len(keep))
        for key in ("id", "op", "name", "pass_index", "output", "flags", "parameter", "module", "site", "leaf"):
            setattr(self, key, _taken(getattr(self, key), keep))
        for start, parts in (("inputs_start", ("inputs",)), ("saved_start", ("saved",)),
                             ("args_start", ("arg_name", "arg_text"))):
            starts = np.frombuffer(getattr(self, start), dtype=np.int64)
            counts = np.diff(starts)[keep]
            picked = index_ranges(starts[keep], counts)
            del starts  # let go of the array's buffer before it is replaced
            for part in parts:
                setattr(self, part, _taken(getattr(self, part), picked))
            setattr(self, start, array(_INT64, np.concatenate([[0], np.cumsum(counts)]).astype(np.int64).tobytes()))
        self.dead = {int(position[r]): v for r, v in self.dead.items()}
        self.alive = bytearray(b"\x01" * len(keep))
        ids = self.id
        self._gone = 0
        self._dense = not ids or ids[-1] - ids[0] == len(ids) - 1 and all(map(operator.lt, ids, ids[1:]))
        self._index = None if all(map(operator.lt, ids, ids[1:])) else dict(zip(ids, range(len(ids))))

    def compact_summaries(self) -> np.ndarray | None:
        """Once over half the summary rows (and COMPACT_ROWS) are no row's output, leave them out:
        the new row of each old one (NONE: left out), for whoever holds summary rows; else None."""
        if self.unused < COMPACT_ROWS or 2 * self.unused <= len(self.summaries):
            return None
        refs = np.frombuffer(self.refs, dtype=np.int32)
        keep = np.flatnonzero(refs > 0)
        remap = np.full(len(refs), NONE, dtype=np.int64)
        remap[keep] = np.arange(len(keep))
        self.summaries = LiveSummaries.of(self.summaries.table().take(keep))
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
        """The columns a scan of the nodes reads (findings), without packing the summaries."""
        rows = None if not self._gone else np.array(self.rows(), dtype=np.int64)

        def column(values, dtype):
            a = np.array(values, dtype=dtype)
            return a if rows is None else a[rows]

        output = column(self.output, np.int64)
        nonfinite = np.zeros(len(output), dtype=bool)
        present = output >= 0
        nonfinite[present] = self.summaries.nonfinite()[output[present]]
        dead = self.dead
        if rows is not None:
            position = dict(zip(rows.tolist(), range(len(rows))))
            dead = {position[r]: v for r, v in dead.items()}
        return Scan(column(self.id, np.int64), column(self.op, np.int32), column(self.flags, np.uint8),
                    column(self.parameter, np.int32), column(self.leaf, np.int64), self.strings, dict(dead), nonfinite)

    @property
    def count(self) -> int:
        """Rows not deleted."""
        return len(self.id) - self._gone

    def rows(self):
        """The rows not deleted, in creation order."""
        if not self._gone:
            return range(len(self.id))
        return np.flatnonzero(np.frombuffer(self.alive, dtype=np.uint8)).tolist()

    def ids(self) -> list[int]:
        if not self._gone:
            return self.id.tolist()
        return [self.id[r] for r in self.rows()]

    def inputs_of(self, r: int) -> tuple[int, ...]:
        return tuple(self.inputs[self.inputs_start[r]:self.inputs_start[r + 1]])

    def op_of(self, r: int) -> str:
        return self.strings[self.op[r]]

    def node(self, r: int):
        """Row r as a Node."""
        from .model import Node  # the record module imports this one's importer

        strings = self.strings
        a, b = self.saved_start[r], self.saved_start[r + 1]
        saved = tuple(strings[i] for i in self.saved[a:b]) if b > a else ()
        a, b = self.args_start[r], self.args_start[r + 1]
        args = tuple(zip((strings[i] for i in self.arg_name[a:b]), (strings[i] for i in self.arg_text[a:b]))) \
            if b > a else ()
        o, p, m, s, leaf, flags = (self.output[r], self.parameter[r], self.module[r], self.site[r], self.leaf[r],
                                   self.flags[r])
        return Node(self.id[r], strings[self.op[r]], strings[self.name[r]], self.inputs_of(r), self.pass_index[r],
                    None if o < 0 else self.summaries[o], bool(flags & REQUIRES_GRAD), bool(flags & IS_LEAF),
                    None if p < 0 else strings[p], None if m < 0 else strings[m], None if s < 0 else self.sites[s],
                    saved, self.dead.get(r), args, None if leaf < 0 else leaf)

    def columns(self) -> NodeColumns:
        """The rows not deleted as a NodeColumns, with their outputs' summaries as one table."""
        table = self.summaries.table()
        rows = None if not self._gone else np.array(self.rows(), dtype=np.int64)
        output = np.array(self.output, dtype=np.int64)
        starts = {key: np.array(getattr(self, key), dtype=np.int64) for key in ("inputs_start", "saved_start",
                                                                               "args_start")}
        flat = {"inputs": np.array(self.inputs, dtype=np.int64), "saved": np.array(self.saved, dtype=np.int32),
                "arg_name": np.array(self.arg_name, dtype=np.int32), "arg_text": np.array(self.arg_text, dtype=np.int32)}
        dead = self.dead
        if rows is not None:
            output = output[rows]
            for key, parts in (("inputs_start", ("inputs",)), ("saved_start", ("saved",)),
                               ("args_start", ("arg_name", "arg_text"))):
                start = starts[key]
                counts = np.diff(start)[rows]
                picked = index_ranges(start[rows], counts)
                for part in parts:
                    flat[part] = flat[part][picked]
                starts[key] = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            position = {r: k for k, r in enumerate(rows.tolist())}
            dead = {position[r]: v for r, v in dead.items()}
        used = output >= 0
        if self.unused:  # only the summaries still in use, in row order (a shared one once)
            kept, output[used] = np.unique(output[used], return_inverse=True)
            table = table.take(kept)

        def column(values, dtype):
            a = np.array(values, dtype=dtype)
            return a if rows is None else a[rows]

        return NodeColumns(
            id=column(self.id, np.int64), op=column(self.op, np.int32), name=column(self.name, np.int32),
            pass_index=column(self.pass_index, np.int64), output=output, flags=column(self.flags, np.uint8),
            parameter=column(self.parameter, np.int32), module=column(self.module, np.int32),
            site=column(self.site, np.int32), inputs_start=starts["inputs_start"], inputs=flat["inputs"],
            saved_start=starts["saved_start"], saved=flat["saved"], args_start=starts["args_start"],
            arg_name=flat["arg_name"], arg_text=flat["arg_text"], dead=dict(dead), leaf=column(self.leaf, np.int64),
            strings=list(self.strings), sites=list(self.sites), summaries=table,
        )



def _ragged(starts: array, flat: array, lengths: list, values: list) -> None:
    """Append rows to a ragged column: `values` (the rows' values, one after another) to `flat`,
    each row's end (by the rows' `lengths`) to `starts`."""
    starts.extend(accumulate(lengths, initial=len(flat)))
    del starts[-len(lengths) - 1]  # the first "end" is where the new rows begin: already there
    flat.extend(values)


def _taken(column: array, rows: np.ndarray) -> array:
    """A typed array of these rows of `column`."""
    out = array(column.typecode)
    out.frombytes(np.frombuffer(column, dtype=column.typecode)[rows].tobytes())
    return out
