"""NodeTable: `record.nodes`, a mapping of node id to Node held as columns, each Node made when read."""

from __future__ import annotations

import operator
from collections.abc import Callable, ItemsView, Iterator, Mapping, MutableMapping, ValuesView
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from .live_columns import LiveNodes, Scan
from .node import Node
from .node_columns import NodeColumns
from .node_fields import IS_LEAF, NONE, REQUIRES_GRAD

# With the table, the store's terms, where the columns' readers import them.
__all__ = ["IS_LEAF", "NONE", "REQUIRES_GRAD", "NodeColumns", "NodeTable"]

_T = TypeVar("_T")
# (Node read from a live row, its fields then)
_Read = tuple[Node, tuple[object, ...]]


class NodeTable(MutableMapping[int, Node]):
    """node id -> Node, in creation order. Rows read from a snapshot live in `NodeColumns` and are
    made into a Node when read (a fresh one each time: change a node by setting it again). Rows
    the recorder appends live in `LiveNodes` (`live()`, after any column rows): a Node read from
    one is kept and read again as that object until the recorder next changes the table (a reader
    may change it, as it could the recorder's objects). A node set one at a time is kept as that
    object until `seal` puts it into the columns."""

    __slots__ = ("_alive", "_cache", "_columns", "_gone", "_live", "_loose", "_override", "_read", "_version")

    def __init__(self, nodes: Mapping[int, Node] | None = None, columns: NodeColumns | None = None) -> None:
        self._columns = columns
        self._alive: NDArray[np.bool_] | None = None  # bool per column row, once a row is deleted
        self._gone = 0
        self._loose: dict[int, Node] = {}  # id -> Node, not in the columns
        self._override: dict[int, Node] = {}  # id -> Node, replacing a column row
        self._version = 0
        self._cache: tuple[int, NodeColumns] | None = None
        self._live: LiveNodes | None = None  # LiveNodes, once the recorder appends
        # (live.changes, {id: (Node read from a live row since, its fields then)})
        self._read: tuple[int, dict[int, _Read]] = (-1, {})
        if nodes:
            self._loose.update(nodes)

    # --- the mapping -------------------------------------------------------------------------

    def _row(self, k: object) -> int | None:
        c = self._columns
        if c is None:
            return None
        r = c.row(k)
        if r is None or (self._alive is not None and not self._alive[r]):
            return None
        return r

    def __getitem__(self, k: int) -> Node:
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
        return self._columns.node(r)  # type: ignore[union-attr]  # a row: there are columns

    def _live_node(self, live: LiveNodes, k: int, r: int | None = None) -> Node | None:
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

    def live(self) -> LiveNodes:
        """The LiveNodes the recorder appends rows to (made at the first call)."""
        live = self._live
        if live is None:
            live = self._live = LiveNodes()
        return live

    # One signature for Mapping.get's two; a key that is no node's id (None too) gives the default.
    def get(self, k: int | None, default: Node | _T | None = None) -> Node | _T | None:  # type: ignore[override]
        try:
            return self[k]  # type: ignore[index]  # None: a KeyError, so the default
        except (KeyError, TypeError):
            return default

    def _object(self, k: int) -> Node | None:
        node = self._loose.get(k)
        return node if node is not None else self._override.get(k)

    def inputs_of(self, k: int) -> tuple[int, ...] | None:
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
        return None if r is None else self._columns.inputs_of(r)  # type: ignore[union-attr]  # a row: there are columns

    def op_of(self, k: int) -> str | None:
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
        return None if r is None else self._columns.op_of(r)  # type: ignore[union-attr]  # a row: there are columns

    def __contains__(self, k: object) -> bool:
        try:
            return (
                k in self._loose
                or k in self._override
                or self._row(k) is not None
                or (self._live is not None and self._live.row(k) is not None)
            )
        except TypeError:
            return False

    def __setitem__(self, k: int, node: Node) -> None:
        self._version += 1
        if self._row(k) is not None or (self._live is not None and self._live.row(k) is not None):
            self._override[k] = node
        else:
            self._loose[k] = node

    def __delitem__(self, k: int) -> None:
        live = self._live
        if k in self._loose:
            del self._loose[k]
        elif live is not None and live.row(k) is not None:
            self._override.pop(k, None)
            live.delete(live.row(k))  # type: ignore[arg-type]  # a row, as just asked
        else:
            r = self._row(k)
            if r is None:
                raise KeyError(k)
            self._override.pop(k, None)
            alive = self._alive
            if alive is None:
                alive = self._alive = np.ones(len(self._columns), dtype=np.bool_)  # type: ignore[arg-type]  # a row: there are columns
            alive[r] = False
            self._gone += 1
        self._version += 1

    def __len__(self) -> int:
        return (
            (0 if self._columns is None else len(self._columns) - self._gone)
            + len(self._loose)
            + (0 if self._live is None else self._live.count)
        )

    def __iter__(self) -> Iterator[int]:
        if self._columns is not None:
            ids = self._columns.id if self._alive is None else self._columns.id[self._alive]
            yield from ids.tolist()
        if self._live is not None:
            yield from self._live.ids()
        yield from self._loose

    def values(self) -> _Values:
        """The nodes in creation order (the recorder's objects read as they are: no lookups)."""
        return _Values(self)

    def items(self) -> _Items:
        return _Items(self)

    def _rows(self) -> Iterator[tuple[int, Node]]:
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
                yield k, (node if node is not None else self._live_node(live, k, r))  # type: ignore[misc]  # a live row: a Node
        yield from self._loose.items()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return len(self) == len(other) and all(k in other and self[k] == other[k] for k in self)

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a dict is

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

    def scan(self) -> Scan | NodeColumns:
        """What a scan over every node reads (id, op, flags, parameter, leaf, strings, dead,
        output_nonfinite()): a live table's without packing its summaries, else the columns."""
        live = self._live
        if (
            live is not None
            and self._columns is None
            and not self._loose
            and not self._override
            and self._unchanged_reads()
        ):
            return live.scan()
        return self.columns()

    def _unchanged_reads(self) -> bool:
        """Whether every Node read from a live row since the last change still equals its row."""
        stamp, read = self._read
        live = self._live
        if stamp != live.changes:  # type: ignore[union-attr]  # asked only of a live table
            return True
        return all(
            map(
                _same_objects,
                map(_node_fields, (node for node, _ in read.values())),
                (fields for _, fields in read.values()),
            )
        )

    def seal(self) -> None:
        """Put every node into the columns (views from now on): call it once nothing will change
        the Node objects set so far."""
        if self._loose or self._override or self._alive is not None or self._live is not None:
            columns = self.columns()
            if columns._outputs is not None:
                columns.summaries  # noqa: B018 (the summaries become columns too)
            self._version = self.version + 1
            self._columns, self._alive, self._gone, self._live = columns, None, 0, None
            self._loose, self._override, self._cache = {}, {}, None

    @property
    def version(self) -> int:
        """A number that changes whenever a node is set, appended, filled in or deleted."""
        return self._version + (0 if self._live is None else self._live.changes)


# Node's type -> a getter of all its fields at once
_getters: dict[type[Node], Callable[[Node], tuple[object, ...]]] = {}


def _node_fields(node: Node) -> tuple[object, ...]:
    """A Node's field values (the objects themselves), to tell later whether a reader changed it."""
    getter = _getters.get(type(node))
    if getter is None:
        getter = _getters[type(node)] = operator.attrgetter(*type(node).__slots__)
    return getter(node)


def _same_objects(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    return all(map(operator.is_, a, b))


class _Values(ValuesView[Node]):
    __slots__ = ()
    _mapping: NodeTable  # set by ValuesView

    def __iter__(self) -> Iterator[Node]:
        return (node for _, node in self._mapping._rows())


class _Items(ItemsView[int, Node]):
    __slots__ = ()
    _mapping: NodeTable  # set by ItemsView

    def __iter__(self) -> Iterator[tuple[int, Node]]:
        return self._mapping._rows()
