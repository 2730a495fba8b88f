"""NodeColumns: nodes held as the columns `node_fields.COLUMNS` declares; the one place a Node is made from them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import MISSING, fields
from itertools import chain
from operator import attrgetter
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .node import Node, SourceSite
from .node_fields import (
    ATTRIBUTES,
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
)
from .node_fields import Column as FieldColumn
from .summary_table import SummaryTable
from .tensor_summary import TensorSummary

_MISSING = -2  # a code not yet given


def offsets(counts: Iterable[int] | NDArray[np.integer[Any]]) -> NDArray[np.int64]:
    """Row starts (n + 1 of them) of a ragged column from its rows' lengths."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


# Each column as the Coder walks it: (name, kind, a ragged column's starts' attribute, its parts' attributes).
_CODED = tuple((c.name, c.kind, c.start, tuple(p for p, _ in c.parts)) for c in COLUMNS)


class Coder:
    """The texts and sites a store's columns index (`strings`, `sites`), numbered as first met."""

    __slots__ = ("_codes", "_site_codes", "_site_ids", "_site_objects", "sites", "strings")

    def __init__(self) -> None:
        self.strings: list[str] = []
        self._codes: dict[str | None, int] = {None: NONE}  # text -> its index in strings
        self.sites: list[SourceSite] = []
        self._site_codes: dict[SourceSite | None, int] = {None: NONE}
        self._site_ids: dict[int, int] = {id(None): NONE}  # id(site object) -> its index in sites
        self._site_objects: list[SourceSite | None] = []  # the objects in _site_ids

    def columns(self, values: Mapping[str, Sequence[Any]]) -> dict[str, Sequence[Any]]:
        """Columns' values as the store's arrays hold them, by attribute (a ragged column's rows'
        lengths under its starts' attribute); `values` maps a column's name to its rows' values,
        as `node_fields.ROW` says. Every text is coded in one call, in the columns' order."""
        out: dict[str, Sequence[Any]] = {}
        texts: list[str | None] = []
        spans: list[tuple[str, int]] = []
        for name, kind, start, parts in _CODED:
            v = values.get(name)
            if v is None:
                continue
            if kind in (TEXT, OPT_TEXT):
                texts.extend(v)
                spans.append((name, len(v)))
            elif kind == SITE:
                out[name] = self._code_sites(v)
            elif start:
                out[start] = list(map(len, v))
                flat = list(chain.from_iterable(v))
                if kind == IDS:
                    out[parts[0]] = flat
                elif kind == TEXTS:
                    texts.extend(flat)
                    spans.append((parts[0], len(flat)))
                else:  # TEXT_PAIRS
                    for k, part in enumerate(parts):
                        texts.extend(pair[k] for pair in flat)
                        spans.append((part, len(flat)))
            else:
                out[name] = v
        codes = self._code_all(texts, self._codes, self.strings)
        at = 0
        for name, count in spans:
            out[name] = codes[at : at + count]
            at += count
        return out

    def _code_sites(self, sites: Sequence[SourceSite | None]) -> list[int]:
        """Each site's index in `sites`, remembered by object (a few SourceSite objects are met
        again and again, and only each new object is hashed; those remembered are held, so that
        their ids stay theirs)."""
        known = self._site_ids
        codes = list(map(known.get, map(id, sites)))
        if None not in codes:
            return codes  # type: ignore[return-value]  # no None among them, as just checked
        if len(self._site_objects) > 2 * len(self.sites) + 64:  # sites made anew each time: start over
            self._site_objects, self._site_ids = [], {id(None): NONE}
            known = self._site_ids
        new = [site for key, site in dict(zip(map(id, sites), sites)).items() if key not in known]
        known.update(zip(map(id, new), self._code_all(new, self._site_codes, self.sites)))
        self._site_objects.extend(new)
        return list(map(known.__getitem__, map(id, sites)))

    @staticmethod
    def _code_all(values: Sequence[Any], codes: dict[Any, int], table: list[Any]) -> list[int]:
        """Each value's index in `table` (by `codes`, which grows with it), NONE for None."""
        get = codes.get
        out = [get(v, _MISSING) for v in values] if table else None  # most are known, once some are
        if out is None or _MISSING in out:
            for v in dict.fromkeys(values):
                if v not in codes:
                    codes[v] = len(table)
                    table.append(v)
            out = list(map(codes.__getitem__, values))
        return out


def _stored(c: FieldColumn, nodes: list[Node]) -> list[Any] | NDArray[np.uint8]:
    """Column c's values of these Nodes as a row the recorder adds holds them (`node_fields.ROW`;
    an output as its summary, a ROW_PAIRS column's as a pair or None)."""
    if c.kind == FLAGS:
        bits = np.zeros(len(nodes), dtype=np.uint8)
        for k, f in enumerate(c.fields):
            bits |= np.fromiter(map(bool, map(attrgetter(f), nodes)), bool, len(nodes)).astype(np.uint8) << k
        return bits
    values = list(map(attrgetter(c.fields[0]), nodes))
    return [NONE if v is None else v for v in values] if c.kind == OPT_INT else values


# Each Node field's place among Node's arguments, and their defaults: `NodeColumns.node` places each
# value by its field's name (a Node made with keywords takes twice as long; summaries read them all).
_PLACE = {f.name: k for k, f in enumerate(fields(Node))}
_DEFAULTS_OF_NODE: list[Any] = [  # each field's own type
    None if f.default is MISSING else f.default for f in fields(Node)
]


def _by_kind(*kinds: str) -> tuple[Any, ...]:
    """The columns of these kinds, as (column, its Node field's place); a ragged column's with its parts."""
    return tuple(
        (c.start, *(p for p, _ in c.parts), _PLACE[c.fields[0]]) if c.kind in RAGGED else (c.name, _PLACE[c.fields[0]])
        for c in COLUMNS
        if c.kind in kinds
    )


# The columns by how `NodeColumns.node` reads them.
_INTS, _OPT_INTS, _TEXTS, _OPT_TEXTS, _SITES, _OUTPUTS = (
    _by_kind(k) for k in (INT, OPT_INT, TEXT, OPT_TEXT, SITE, SUMMARY)
)
_ID_LISTS, _TEXT_LISTS, _TEXT_PAIR_LISTS, _ROW_PAIRS = (_by_kind(k) for k in (IDS, TEXTS, TEXT_PAIRS, ROW_PAIRS))
_FLAGS = tuple((c.name, tuple((k, _PLACE[f]) for k, f in enumerate(c.fields))) for c in COLUMNS if c.kind == FLAGS)


class NodeColumns:
    """Nodes as columns, in creation order (`node_fields.COLUMNS` names them; `model.py`'s docstring
    draws the layout). Its arrays are NumPy arrays, or, in `live_columns.LiveNodes` (the rows a
    recording appends), growing typed arrays: row r reads as a Node the same way from either."""

    __slots__ = ("_first", "_outputs", "_row", "_sorted", "_summaries", *ATTRIBUTES)

    # The columns read by name (the others are read through `node_fields.COLUMNS`).
    id: NDArray[np.integer[Any]]
    op: NDArray[np.integer[Any]]
    flags: NDArray[np.integer[Any]]
    parameter: NDArray[np.integer[Any]]
    leaf: NDArray[np.integer[Any]]
    pass_index: NDArray[np.integer[Any]]
    output: NDArray[np.integer[Any]]
    inputs: NDArray[np.integer[Any]]
    inputs_start: NDArray[np.integer[Any]]
    dead: dict[int, tuple[int, int]]
    strings: list[str]
    sites: list[SourceSite]
    _first: int | None
    _row: dict[int, int] | None
    _summaries: SummaryTable | None
    _outputs: list[TensorSummary | None] | None

    def __init__(
        self,
        *,
        summaries: SummaryTable | None = None,
        outputs: list[TensorSummary | None] | None = None,
        **columns: Any,
    ) -> None:
        if columns.keys() != set(ATTRIBUTES):
            wrong = sorted(columns.keys() ^ set(ATTRIBUTES))
            raise TypeError(f"NodeColumns takes every column of node_fields.COLUMNS; check {', '.join(wrong)}")
        for name, value in columns.items():
            setattr(self, name, value)
        self._summaries, self._outputs = summaries, outputs
        ids = self.id
        n = len(ids)
        self._first = int(ids[0]) if n else 0
        self._row = None
        self._sorted = False
        if n and int(ids[-1]) - self._first == n - 1 and (n < 2 or bool((np.diff(ids) == 1).all())):
            return  # dense ids: row = id - first
        self._first = None
        if n < 2 or bool((np.diff(ids) > 0).all()):
            self._sorted = True
        else:
            self._row = dict(zip(ids.tolist(), range(n)))

    def __len__(self) -> int:
        return len(self.id)

    @property
    def summaries(self) -> SummaryTable:
        """The outputs' summaries as a table (`output` indexes it)."""
        if self._summaries is None:
            outputs = self._outputs  # given whenever the summaries are not
            self._summaries = SummaryTable.from_summaries([s for s in outputs if s is not None])  # type: ignore[union-attr]
            self._outputs = None
        return self._summaries

    def output_nonfinite(self) -> NDArray[np.bool_]:
        """Per row: whether its output holds a NaN or an Inf."""
        if self._outputs is not None:
            return np.fromiter((s is not None and s.has_nonfinite for s in self._outputs), bool, len(self))
        output = np.asarray(self.output, dtype=np.int64)
        bad = self.summaries.nonfinite()
        out = np.zeros(len(output), dtype=bool)
        present = output >= 0
        out[present] = bad[output[present]]
        return out

    def row(self, k: object) -> int | None:
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
        return self._row.get(k)  # type: ignore[union-attr]  # ids neither dense nor sorted: __init__ made _row

    def rows_of(self, ids: NDArray[np.int64]) -> NDArray[np.int64]:
        """The row of each node id (-1 where there is none)."""
        n = len(self.id)
        if self._first is not None:
            rows = ids - self._first
            return np.where((rows >= 0) & (rows < n), rows, NONE)
        if self._sorted:
            rows = np.minimum(np.searchsorted(self.id, ids), max(n - 1, 0))
            return np.where((n > 0) & (self.id[rows] == ids), rows, NONE) if n else np.full(len(ids), NONE)
        row = self._row  # ids neither dense nor sorted: __init__ made it
        return np.fromiter((row.get(k, NONE) for k in ids.tolist()), np.int64, len(ids))  # type: ignore[union-attr]

    def node(self, r: int) -> Node:
        """Row r as a Node: the one place a Node is made from columns (each kind of column read alike)."""
        strings, sites, values = self.strings, self.sites, _DEFAULTS_OF_NODE.copy()
        for name, at in _INTS:
            values[at] = int(getattr(self, name)[r])
        for name, at in _OPT_INTS:
            v = int(getattr(self, name)[r])
            values[at] = None if v < 0 else v
        for name, at in _TEXTS:
            values[at] = strings[getattr(self, name)[r]]
        for name, at in _OPT_TEXTS:
            v = getattr(self, name)[r]
            values[at] = None if v < 0 else strings[v]
        for name, at in _SITES:
            v = getattr(self, name)[r]
            values[at] = None if v < 0 else sites[v]
        for name, bits in _FLAGS:
            v = int(getattr(self, name)[r])
            for k, at in bits:
                values[at] = bool(v >> k & 1)
        for name, at in _OUTPUTS:
            if self._outputs is not None:
                values[at] = self._outputs[r]
            else:
                v = getattr(self, name)[r]
                values[at] = None if v < 0 else self.summaries[v]
        for start, part, at in _ID_LISTS:
            starts = getattr(self, start)
            values[at] = tuple(getattr(self, part)[starts[r] : starts[r + 1]].tolist())
        for start, part, at in _TEXT_LISTS:
            starts = getattr(self, start)
            values[at] = tuple(map(strings.__getitem__, getattr(self, part)[starts[r] : starts[r + 1]].tolist()))
        for start, first, second, at in _TEXT_PAIR_LISTS:
            starts = getattr(self, start)
            a, b = starts[r], starts[r + 1]
            values[at] = (
                tuple(
                    zip(
                        map(strings.__getitem__, getattr(self, first)[a:b].tolist()),
                        map(strings.__getitem__, getattr(self, second)[a:b].tolist()),
                    )
                )
                if b > a
                else ()
            )
        for name, at in _ROW_PAIRS:
            values[at] = getattr(self, name).get(r)
        return Node(*values)

    def inputs_of(self, r: int) -> tuple[int, ...]:
        """Row r's input ids, read without making the Node."""
        a, b = int(self.inputs_start[r]), int(self.inputs_start[r + 1])
        return tuple(self.inputs[a:b].tolist())

    def op_of(self, r: int) -> str:
        """Row r's op, read without making the Node."""
        return self.strings[int(self.op[r])]

    @classmethod
    def from_nodes(cls, nodes: list[Node]) -> NodeColumns:
        """Columns of Node objects (their summaries are kept as they are until `summaries` is asked)."""
        return cls.from_values({c.name: _stored(c, nodes) for c in COLUMNS}, len(nodes))

    @classmethod
    def from_values(cls, values: dict[str, Any], n: int) -> NodeColumns:
        """Columns of n rows given column by column: a column's name -> its rows' values, as a row
        the recorder adds holds them (`node_fields.ROW`), an output as its summary, a ROW_PAIRS
        column's as a pair or None. A column not given holds its default in every row."""
        values = {c.name: values[c.name] if c.name in values else [_DEFAULTS[c.kind]] * n for c in COLUMNS}
        coder = Coder()
        coded = coder.columns(values)
        arrays: dict[str, Any] = {}
        outputs = None
        for c in COLUMNS:
            if c.kind in RAGGED:
                arrays[c.start] = offsets(coded[c.start])
                arrays.update((part, np.array(coded[part], dtype=c.dtype)) for part, _ in c.parts)
            elif c.kind == ROW_PAIRS:
                arrays[c.name] = {i: tuple(v) for i, v in enumerate(values[c.name]) if v is not None}
            elif c.kind == SUMMARY:
                summaries = values[c.name]
                present = np.fromiter((s is not None for s in summaries), bool, n)
                column = np.full(n, NONE, dtype=c.dtype)
                column[present] = np.arange(int(present.sum()), dtype=c.dtype)
                arrays[c.name] = column
                outputs = list(summaries) if present.any() else None
            else:
                arrays[c.name] = np.asarray(coded[c.name], dtype=c.dtype)
        return cls(
            strings=coder.strings,
            sites=coder.sites,
            outputs=outputs,
            summaries=None if outputs is not None else SummaryTable.from_summaries([]),
            **arrays,
        )


# Each kind's value in a row where its column is not given (a snapshot written before it was added).
_DEFAULTS = {
    INT: 0,
    OPT_INT: NONE,
    TEXT: "",
    OPT_TEXT: None,
    SITE: None,
    FLAGS: 0,
    SUMMARY: None,
    IDS: (),
    TEXTS: (),
    TEXT_PAIRS: (),
    ROW_PAIRS: None,
}
