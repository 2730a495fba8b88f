"""NodeTable: `record.nodes`, a mapping of node id to Node held as columns, each Node made when read."""

from __future__ import annotations

import operator
from collections.abc import ItemsView, Iterator, Mapping, MutableMapping, ValuesView

import numpy as np

from .summary_table import SummaryTable

NONE = -1  # an index column's entry for None

REQUIRES_GRAD, IS_LEAF = 1, 2  # bits of the flags column


def _offsets(counts) -> np.ndarray:
    """Row starts (n + 1 of them) of a ragged column from its rows' lengths."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


# The columns a table of nodes has, live (`live_columns.LiveNodes`) or loaded (NodeColumns).
COLUMNS = ("arg_name", "arg_text", "args_start", "dead", "flags", "id", "inputs", "inputs_start", "leaf", "module",
           "name", "op", "output", "parameter", "pass_index", "saved", "saved_start", "site", "sites", "strings")


class NodeColumns:
    """Nodes as columns, in creation order (see `record.py`'s docstring for the layout)."""

    __slots__ = ("_first", "_outputs", "_row", "_sorted", "_summaries", *COLUMNS)

    def __init__(self, *, id, op, name, pass_index, output, flags, parameter, module, site, inputs_start, inputs,
                 saved_start, saved, args_start, arg_name, arg_text, dead, leaf, strings, sites, summaries=None,
                 outputs=None):
        self.id, self.op, self.name, self.pass_index, self.output = id, op, name, pass_index, output
        self.flags, self.parameter, self.module, self.site = flags, parameter, module, site
        self.inputs_start, self.inputs, self.saved_start, self.saved = inputs_start, inputs, saved_start, saved
        self.args_start, self.arg_name, self.arg_text = args_start, arg_name, arg_text
        self.dead, self.leaf, self.strings, self.sites = dead, leaf, strings, sites
        self._summaries, self._outputs = summaries, outputs
        n = len(id)
        self._first = int(id[0]) if n else 0
        self._row = None
        self._sorted = False
        if n and int(id[-1]) - self._first == n - 1 and (n < 2 or bool((np.diff(id) == 1).all())):
            return  # dense ids: row = id - first
        self._first = None
        if n < 2 or bool((np.diff(id) > 0).all()):
            self._sorted = True
        else:
            self._row = dict(zip(id.tolist(), range(n)))

    def __len__(self) -> int:
        return len(self.id)

    @property
    def summaries(self) -> SummaryTable:
        """The outputs' summaries as a table (`output` indexes it)."""
        if self._summaries is None:
            self._summaries = SummaryTable.from_summaries([s for s in self._outputs if s is not None])
            self._outputs = None
        return self._summaries

    def output_nonfinite(self) -> np.ndarray:
        """Per row: whether its output holds a NaN or an Inf."""
        if self._outputs is not None:
            return np.fromiter((s is not None and s.has_nonfinite for s in self._outputs), bool, len(self))
        bad = self.summaries.nonfinite()
        out = np.zeros(len(self), dtype=bool)
        present = self.output >= 0
        out[present] = bad[self.output[present]]
        return out

    def row(self, k) -> int | None:
        """The row of node id k, or None."""
        if type(k) is not int:
            if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
                return None
            k = int(k)
        if self._first is not None:
            r = k - self._first
            return r if 0 <= r < len(self.id) else None
        if self._sorted:
            r = int(np.searchsorted(self.id, k))
            return r if r < len(self.id) and self.id[r] == k else None
        return self._row.get(k)

    def rows_of(self, ids: np.ndarray) -> np.ndarray:
        """The row of each node id (-1 where there is none)."""
        n = len(self.id)
        if self._first is not None:
            rows = ids - self._first
            return np.where((rows >= 0) & (rows < n), rows, NONE)
        if self._sorted:
            rows = np.minimum(np.searchsorted(self.id, ids), max(n - 1, 0))
            return np.where((n > 0) & (self.id[rows] == ids), rows, NONE) if n else np.full(len(ids), NONE)
        return np.fromiter((self._row.get(k, NONE) for k in ids.tolist()), np.int64, len(ids))

    def node(self, r: int):
        """Row r as a Node."""
        from .model import Node  # the record module imports this one

        strings = self.strings
        a, b = self.inputs_start[r:r + 2].tolist()
        inputs = tuple(self.inputs[a:b].tolist())
        a, b = self.saved_start[r:r + 2].tolist()
        saved = tuple(strings[i] for i in self.saved[a:b].tolist())
        a, b = self.args_start[r:r + 2].tolist()
        args = tuple((strings[k], strings[v]) for k, v in zip(self.arg_name[a:b].tolist(), self.arg_text[a:b].tolist()))
        o = int(self.output[r])
        if self._outputs is not None:
            output = self._outputs[r]
        else:
            output = None if o < 0 else self.summaries[o]
        p, m, s, flags = int(self.parameter[r]), int(self.module[r]), int(self.site[r]), int(self.flags[r])
        leaf = int(self.leaf[r])
        return Node(int(self.id[r]), strings[self.op[r]], strings[self.name[r]], inputs, int(self.pass_index[r]),
                    output, bool(flags & REQUIRES_GRAD), bool(flags & IS_LEAF), None if p < 0 else strings[p],
                    None if m < 0 else strings[m], None if s < 0 else self.sites[s], saved, self.dead.get(r), args,
                    None if leaf < 0 else leaf)

    @classmethod
    def from_nodes(cls, nodes: list) -> NodeColumns:
        """Columns of Node objects (their summaries are kept as they are until `summaries` is asked)."""
        n = len(nodes)
        strings: dict = {}
        texts = {key: [getattr(x, key) for x in nodes] for key in ("op", "name", "parameter", "module")}
        saved = [role for x in nodes for role in x.saved]
        args = [pair for x in nodes for pair in x.args]
        texts.update(saved=saved, arg_name=[k for k, _ in args], arg_text=[v for _, v in args])
        for values in texts.values():
            for s in dict.fromkeys(values):
                if s is not None and s not in strings:
                    strings[s] = len(strings)
        codes = dict(strings)
        codes[None] = NONE
        index = {key: np.fromiter(map(codes.__getitem__, values), np.int32, len(values))
                 for key, values in texts.items()}
        site_values = [x.site for x in nodes]
        sites = {s: i for i, s in enumerate(x for x in dict.fromkeys(site_values) if x is not None)}
        site_codes = dict(sites)
        site_codes[None] = NONE
        outputs = [x.output for x in nodes]
        present = np.fromiter((s is not None for s in outputs), bool, n)
        output = np.full(n, NONE, dtype=np.int64)
        output[present] = np.arange(int(present.sum()), dtype=np.int64)
        inputs = [x.inputs for x in nodes]
        return cls(
            id=np.fromiter((x.id for x in nodes), np.int64, n),
            op=index["op"], name=index["name"],
            pass_index=np.fromiter((x.pass_index for x in nodes), np.int64, n),
            output=output,
            flags=np.fromiter((x.requires_grad * REQUIRES_GRAD | x.is_leaf * IS_LEAF for x in nodes), np.uint8, n),
            parameter=index["parameter"], module=index["module"],
            site=np.fromiter(map(site_codes.__getitem__, site_values), np.int32, n),
            inputs_start=_offsets(list(map(len, inputs))),
            inputs=np.fromiter((k for row in inputs for k in row), np.int64),
            saved_start=_offsets([len(x.saved) for x in nodes]), saved=index["saved"],
            args_start=_offsets([len(x.args) for x in nodes]),
            arg_name=index["arg_name"], arg_text=index["arg_text"],
            dead={i: tuple(x.dead_units) for i, x in enumerate(nodes) if x.dead_units is not None},
            leaf=np.fromiter((NONE if x.leaf is None else x.leaf for x in nodes), np.int64, n),
            strings=list(strings), sites=list(sites),
            summaries=None if present.any() else SummaryTable.from_summaries([]),
            outputs=outputs if present.any() else None,
        )


class NodeTable(MutableMapping):
    """node id -> Node, in creation order. Rows read from a snapshot live in `NodeColumns` and are
    made into a Node when read (a fresh one each time: change a node by setting it again). Rows
    the recorder appends live in `LiveNodes` (`live()`, after any column rows): a Node read from
    one is kept and read again as that object until the recorder next changes the table (a reader
    may change it, as it could the recorder's objects). A node set one at a time is kept as that
    object until `seal` puts it into the columns."""

    __slots__ = ("_alive", "_cache", "_columns", "_gone", "_live", "_loose", "_override", "_read", "_version")

    def __init__(self, nodes: Mapping | None = None, columns: NodeColumns | None = None):
        self._columns = columns
        self._alive = None          # bool per column row, once a row is deleted
        self._gone = 0
        self._loose: dict = {}      # id -> Node, not in the columns
        self._override: dict = {}   # id -> Node, replacing a column row
        self._version = 0
        self._cache = None
        self._live = None           # LiveNodes, once the recorder appends
        self._read = (-1, {})       # (live.changes, {id: (Node read from a live row since, its fields then)})
        if nodes:
            self._loose.update(nodes)

    # --- the mapping -------------------------------------------------------------------------

    def _row(self, k):
        c = self._columns
        if c is None:
            return None
        r = c.row(k)
        if r is None or (self._alive is not None and not self._alive[r]):
            return None
        return r

    def __getitem__(self, k):
        node = self._loose.get(k)
        if node is not None:
            return node
        node = self._override.get(k)
        if node is not None:
            return node
        live = self._live
        if live is not None:
            node = self._live_node(live, k)
            if node is not None:
                return node
        r = self._row(k)
        if r is None:
            raise KeyError(k)
        return self._columns.node(r)

    def _live_node(self, live, k, r=None):
        """The Node of live row k (r: its row, when known), the same object until the table changes."""
        stamp, read = self._read
        if stamp != live.changes:
            read = {}
            self._read = (live.changes, read)
        entry = read.get(k)
        if entry is None:
            if r is None:
                r = live.row(k)
                if r is None:
                    return None
            node = live.node(r)
            read[k] = (node, _node_fields(node))
            return node
        return entry[0]

    def live(self):
        """The LiveNodes the recorder appends rows to (made at the first call)."""
        if self._live is None:
            from .live_columns import (
                LiveNodes,  # it builds on this module's NodeColumns
            )

            self._live = LiveNodes()
        return self._live

    def get(self, k, default=None):
        try:
            return self[k]
        except (KeyError, TypeError):
            return default

    def _object(self, k):
        node = self._loose.get(k)
        return node if node is not None else self._override.get(k)

    def inputs_of(self, k) -> tuple[int, ...] | None:
        """Node k's input ids (None when there is no node k), read without making the Node."""
        node = self._object(k)
        if node is not None:
            return node.inputs
        live = self._live
        if live is not None:
            r = live.row(k)
            if r is not None:
                return live.inputs_of(r)
        r = self._row(k)
        if r is None:
            return None
        c = self._columns
        a, b = c.inputs_start[r:r + 2].tolist()
        return tuple(c.inputs[a:b].tolist())

    def op_of(self, k) -> str | None:
        """Node k's op (None when there is no node k), read without making the Node."""
        node = self._object(k)
        if node is not None:
            return node.op
        live = self._live
        if live is not None:
            r = live.row(k)
            if r is not None:
                return live.op_of(r)
        r = self._row(k)
        return None if r is None else self._columns.strings[self._columns.op[r]]

    def __contains__(self, k) -> bool:
        try:
            return (k in self._loose or k in self._override or self._row(k) is not None
                    or self._live is not None and self._live.row(k) is not None)
        except TypeError:
            return False

    def __setitem__(self, k, node) -> None:
        self._version += 1
        if self._row(k) is not None or self._live is not None and self._live.row(k) is not None:
            self._override[k] = node
        else:
            self._loose[k] = node

    def __delitem__(self, k) -> None:
        live = self._live
        if k in self._loose:
            del self._loose[k]
        elif live is not None and live.row(k) is not None:
            self._override.pop(k, None)
            live.delete(live.row(k))
        else:
            r = self._row(k)
            if r is None:
                raise KeyError(k)
            self._override.pop(k, None)
            if self._alive is None:
                self._alive = np.ones(len(self._columns), dtype=bool)
            self._alive[r] = False
            self._gone += 1
        self._version += 1

    def __len__(self) -> int:
        return ((0 if self._columns is None else len(self._columns) - self._gone) + len(self._loose)
                + (0 if self._live is None else self._live.count))

    def __iter__(self) -> Iterator[int]:
        if self._columns is not None:
            ids = self._columns.id if self._alive is None else self._columns.id[self._alive]
            yield from ids.tolist()
        if self._live is not None:
            yield from self._live.ids()
        yield from self._loose

    def values(self):
        """The nodes in creation order (the recorder's objects read as they are: no lookups)."""
        return _Values(self)

    def items(self):
        return _Items(self)

    def _rows(self):
        """(id, Node) of the column rows, then of the nodes set one at a time."""
        c = self._columns
        if c is not None:
            rows = range(len(c)) if self._alive is None else np.flatnonzero(self._alive).tolist()
            override = self._override
            for r in rows:
                k = int(c.id[r])
                node = override.get(k)
                yield k, (node if node is not None else c.node(r))
        live = self._live
        if live is not None:
            override = self._override
            for r in live.rows():
                k = live.id[r]
                node = override.get(k)
                yield k, (node if node is not None else self._live_node(live, k, r))
        yield from self._loose.items()

    def __eq__(self, other):
        if not isinstance(other, Mapping):
            return NotImplemented
        return len(self) == len(other) and all(k in other and self[k] == other[k] for k in self)

    __hash__ = None

    def __repr__(self) -> str:
        return f"NodeTable({len(self):,} nodes)"

    # --- the columns -------------------------------------------------------------------------

    def columns(self) -> NodeColumns:
        """Every node as columns, in creation order (the stored ones when nothing was set or deleted
        since they were read; else made from the nodes, and cached until the table changes). A
        Node read from a live row and changed since is taken as it is now."""
        c, live = self._columns, self._live
        plain = not self._loose and not self._override and self._alive is None
        if c is not None and plain and live is None:
            return c
        if live is not None and not self._unchanged_reads():
            return NodeColumns.from_nodes(list(self.values()))
        if self._cache is not None and self._cache[0] == self.version:
            return self._cache[1]
        if c is None and plain and live is not None:
            built = live.columns()
        elif c is None and not self._override and live is None:
            built = NodeColumns.from_nodes(list(self._loose.values()))
        else:
            built = NodeColumns.from_nodes(list(self.values()))
        self._cache = (self.version, built)
        return built

    def scan(self):
        """What a scan over every node reads (id, op, flags, parameter, leaf, strings, dead,
        output_nonfinite()): a live table's without packing its summaries, else the columns."""
        live = self._live
        if (live is not None and self._columns is None and not self._loose and not self._override
                and self._unchanged_reads()):
            return live.scan()
        return self.columns()

    def _unchanged_reads(self) -> bool:
        """Whether every Node read from a live row since the last change still equals its row."""
        stamp, read = self._read
        live = self._live
        if stamp != live.changes:
            return True
        return all(map(_same_objects, map(_node_fields, (node for node, _ in read.values())),
                       (fields for _, fields in read.values())))

    def seal(self) -> None:
        """Put every node into the columns (views from now on): call it once nothing will change
        the Node objects set so far."""
        if self._loose or self._override or self._alive is not None or self._live is not None:
            columns = self.columns()
            if columns._outputs is not None:
                columns.summaries  # noqa: B018 - the summaries become columns too
            self._version = self.version + 1
            self._columns, self._alive, self._gone, self._live = columns, None, 0, None
            self._loose, self._override, self._cache = {}, {}, None

    @property
    def version(self) -> int:
        """A number that changes whenever a node is set, appended, filled in or deleted."""
        return self._version + (0 if self._live is None else self._live.changes)


_getters: dict = {}  # Node's type -> a getter of all its fields at once


def _node_fields(node) -> tuple:
    """A Node's field values (the objects themselves), to tell later whether a reader changed it."""
    getter = _getters.get(type(node))
    if getter is None:
        getter = _getters[type(node)] = operator.attrgetter(*type(node).__slots__)
    return getter(node)


def _same_objects(a: tuple, b: tuple) -> bool:
    return all(map(operator.is_, a, b))


class _Values(ValuesView):
    __slots__ = ()

    def __iter__(self):
        return (node for _, node in self._mapping._rows())


class _Items(ItemsView):
    __slots__ = ()

    def __iter__(self):
        return self._mapping._rows()
