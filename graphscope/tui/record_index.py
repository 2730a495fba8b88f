"""RecordIndex: the lookups the screens need over a Record, kept current as a live record grows.

Steps by node, grads, roots, search, NaN origin.
The node lookups are computed from the record's columns (`record.nodes.columns()`) with NumPy, and
held as arrays: a million nodes cost tens of bytes each here, not a Python object per node."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from graphscope.trace.record.model import NAN_ORIGIN, LeafGrad, Record
from graphscope.trace.record.step_table import step_table

# How many matches a search reports in full (the count covers them all).
SEARCH_LIMIT = 500

# The group of nodes made outside any module, in the module view.
NO_MODULE = "(outside any module)"


@dataclass(frozen=True, slots=True)
class Root:
    """A top-level row of the graph tree: a pass's root (the loss), or a pass's unconsumed nodes before its backward."""

    pass_index: int
    node: int | None  # the root node, when the pass has begun its backward
    sinks: tuple[int, ...] = ()  # nodes no other node consumed (forward only)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Node ids matching a query (the first SEARCH_LIMIT of them) and how many matched in all."""

    query: str
    nodes: tuple[int, ...]
    total: int


class RecordIndex:
    """Derived lookups over one Record. Every method reads the record as it is now: a live record
    only grows (or drops whole passes), so caches are keyed by the sizes they were built from."""

    def __init__(self, record: Record):
        self.record = record
        self._positions: dict[int, tuple[int, OrderPositions]] = {}
        self._pass_by_index: tuple[int, dict[int, int]] = (-1, {})
        self._consumers: tuple[tuple, Consumers] | None = None
        self._haystack: tuple[tuple, SearchTables] | None = None
        self._roots: tuple[tuple, list[Root]] | None = None
        self._modules: tuple[tuple, tuple[dict, dict]] | None = None

    # --- passes and steps -------------------------------------------------------------------

    def pass_list_index(self, pass_index: int) -> int | None:
        """The position in record.passes of the pass whose `index` is `pass_index`."""
        passes = self.record.passes
        count, table = self._pass_by_index
        if count != len(passes):
            table = {p.index: i for i, p in enumerate(list(passes))}
            self._pass_by_index = (len(passes), table)
        return table.get(pass_index)

    def positions(self, position: int) -> OrderPositions:
        """node id -> its place in the planned backward order of record.passes[position]."""
        p = self.record.passes[position]
        key = id(p.order)
        cached = self._positions.get(position)
        if cached is None or cached[0] != key:
            cached = (key, OrderPositions(p.order))
            self._positions[position] = cached
        return cached[1]

    def step_position(self, node_id: int) -> tuple[int, int] | None:
        """(pass position, step index) of the node's backward, when it is in a planned order."""
        node = self.record.nodes.get(node_id)
        if node is None:
            return None
        position = self.pass_list_index(node.pass_index)
        if position is None:
            return None
        step = self.positions(position).get(node_id)
        return None if step is None else (position, step)

    def leaf_grads(self, node_id: int) -> list[tuple[int, LeafGrad]]:
        """(step index, grad) of each grad accumulated into a leaf during its pass's backward."""
        node = self.record.nodes.get(node_id)
        if node is None:
            return []
        position = self.pass_list_index(node.pass_index)
        if position is None:
            return []
        return step_table(self.record.passes[position].steps).leaf_grads_of(node_id)

    # --- the graph ----------------------------------------------------------------------------

    def roots_key(self) -> tuple:
        """What the roots depend on: the node count and each pass's root (cheap to compute)."""
        return (self._nodes_key(), tuple((p.index, p.root if p.detailed else None) for p in list(self.record.passes)))

    def _nodes_key(self) -> tuple:
        """What the node lookups were built from: the node count and the table's version."""
        nodes = self.record.nodes
        return len(nodes), getattr(nodes, "version", None)

    def _columns(self):
        return self.record.nodes.columns()

    def cached_roots(self) -> list[Root] | None:
        """The roots when they are known for the record as it is now, else None."""
        cached = self._roots
        return cached[1] if cached is not None and cached[0] == self.roots_key() else None

    def roots(self) -> list[Root]:
        """The graph tree's top level: each detailed pass's root, then the forward-only nodes of
        any pass without a backward yet, as the nodes no other node consumed."""
        key = self.roots_key()
        if self._roots is not None and self._roots[0] == key:
            return self._roots[1]
        result = self._compute_roots()
        self._roots = (key, result)
        return result

    def _compute_roots(self) -> list[Root]:
        record = self.record
        rooted: dict[int, int | None] = {}
        for p in list(record.passes):
            if p.detailed and p.root is not None and p.root in record.nodes:
                rooted[p.index] = p.root
        result = [Root(index, node) for index, node in rooted.items()]
        c = self._columns()
        # a node nothing consumed, outside the passes with a root: a forward still going, or
        # one whose backward was not kept (nodes another pass still uses hang below it)
        loose = ~np.isin(c.pass_index, list(rooted)) & ~np.isin(c.id, c.inputs)
        ids, passes = c.id[loose], c.pass_index[loose]
        order = np.argsort(passes, kind="stable")
        ids, passes = ids[order], passes[order]
        cuts = np.flatnonzero(np.diff(passes)) + 1
        for group, index in zip(np.split(ids, cuts), passes[np.concatenate([[0], cuts])].tolist() if len(ids) else []):
            result.append(Root(index, None, tuple(group.tolist())))
        result.sort(key=lambda r: r.pass_index)
        return result

    def forward_until(self, created: int) -> Root:
        """The forward under way when node `created` was made: its pass's nodes made by then that no
        other of them consumed (what a live run's roots show at that moment)."""
        c = self._columns()
        pass_index = int(c.pass_index[c.id == created][0]) if np.any(c.id == created) else 0
        made = c.id[(c.pass_index == pass_index) & (c.id <= created)].tolist()
        nodes = self.record.nodes
        consumed = {i for node_id in made for i in (nodes.inputs_of(node_id) or ())}
        return Root(pass_index, None, tuple(i for i in made if i not in consumed))

    def consumers(self) -> Consumers:
        """input node id -> the node ids that consumed it (rebuilt when the record has grown)."""
        key = self._nodes_key()
        if self._consumers is None or self._consumers[0] != key:
            self._consumers = (key, Consumers(self._columns()))
        return self._consumers[1]

    # --- finding things ---------------------------------------------------------------------------

    def nan_origin(self) -> int | None:
        """The node where a NaN or an Inf first appeared: the recorder's finding if there is one,
        else the first value whose inputs were all finite, else the first backward step that
        turned a finite grad into a non-finite one."""
        record = self.record
        for finding in list(record.findings):
            if finding.kind == NAN_ORIGIN and finding.node in record.nodes:
                return finding.node
        c = self._columns()
        bad = c.output_nonfinite()
        if bad.any():
            rows = c.rows_of(c.inputs)
            known = rows >= 0
            edge_bad = np.zeros(len(rows), dtype=bool)
            edge_bad[known] = bad[rows[known]]
            owner = np.repeat(np.arange(len(c), dtype=np.int64), np.diff(c.inputs_start))
            fed_bad = np.bincount(owner[edge_bad], minlength=len(c)) > 0
            first = np.flatnonzero(bad & ~fed_bad)
            if first.size:
                return int(c.id[first[0]])
        for p in list(record.passes):
            output, inputs, _ = step_table(p.steps).nonfinite()
            turned = np.flatnonzero(inputs & ~output)  # a finite grad in, a NaN or an Inf out
            if turned.size:
                return p.steps[int(turned[0])].node
        return None

    def search(self, query: str) -> SearchResult:
        """Nodes whose op, name, module, parameter, `file:line` or source text contain `query`
        (case-insensitive; `#12` finds node 12)."""
        q = query.strip().lower()
        if not q:
            return SearchResult(query, (), 0)
        hits = self._search_tables().search(q)
        return SearchResult(query, tuple(hits[:SEARCH_LIMIT].tolist()), len(hits))

    def prepare(self) -> None:
        """Build the lookups a big record is slow to build (a worker thread calls this at start,
        so the first search or jump is quick): roots, consumers, the search text, modules."""
        self.roots()
        self._search_tables()
        self.consumers()
        self.modules()

    def fresh(self) -> bool:
        """Whether the lookups `prepare` builds match the record as it is now."""
        key = self._nodes_key()
        return (
            self._haystack is not None
            and self._haystack[0] == key
            and self._consumers is not None
            and self._consumers[0] == key
        )

    def modules(self) -> tuple[dict[str, list[int]], dict[str, list[str]]]:
        """(module path -> its node ids, module path -> its direct submodules; "" holds the top
        level); nodes outside any module are under NO_MODULE."""
        key = self._nodes_key()
        if self._modules is not None and self._modules[0] == key:
            return self._modules[1]
        c = self._columns()
        order = np.argsort(c.module, kind="stable")
        codes = c.module[order]
        cuts = np.flatnonzero(np.diff(codes)) + 1
        starts = np.concatenate([[0], cuts]) if len(codes) else np.zeros(0, dtype=np.int64)
        first_row = {int(codes[s]): int(order[s]) for s in starts.tolist()}
        groups = dict(zip((int(codes[s]) for s in starts.tolist()), np.split(c.id[order], cuts)))
        by_module: dict[str, list[int]] = {}
        for code in sorted(groups, key=first_row.__getitem__):  # in the order modules first appear
            by_module[c.strings[code] if code >= 0 else NO_MODULE] = groups[code].tolist()
        submodules: dict[str, list[str]] = {}
        known = set()
        for path in by_module:
            if path == NO_MODULE:
                continue
            parts = path.split(".")
            for depth in range(1, len(parts) + 1):
                prefix = ".".join(parts[:depth])
                if prefix in known:
                    continue
                known.add(prefix)
                submodules.setdefault(".".join(parts[: depth - 1]), []).append(prefix)
        self._modules = (key, (by_module, submodules))
        return by_module, submodules

    def _search_tables(self) -> SearchTables:
        key = self._nodes_key()
        if self._haystack is None or self._haystack[0] != key:
            self._haystack = (key, SearchTables(self._columns()))
        return self._haystack[1]


class OrderPositions:
    """node id -> its place in a planned backward order, held as two arrays (the ids sorted, and
    where each stood); read like a dict with `get`. A million-step order costs 16 bytes a step."""

    def __init__(self, order: tuple[int, ...]):
        ids = np.fromiter(order, np.int64, len(order))
        self._places = np.argsort(ids, kind="stable")
        self._ids = ids[self._places]

    def get(self, node_id: int, default: int | None = None) -> int | None:
        k = int(np.searchsorted(self._ids, node_id))
        return int(self._places[k]) if k < len(self._ids) and self._ids[k] == node_id else default


class Consumers:
    """input node id -> the ids of the nodes that consumed it, in creation order, held as two
    arrays (the edges sorted by input); read like a dict of lists."""

    def __init__(self, c):
        owner = np.repeat(c.id, np.diff(c.inputs_start))
        order = np.argsort(c.inputs, kind="stable")
        self._inputs, self._owners = c.inputs[order], owner[order]

    def get(self, node_id, default=()):
        a = int(np.searchsorted(self._inputs, node_id, "left"))
        b = int(np.searchsorted(self._inputs, node_id, "right"))
        return self._owners[a:b].tolist() if b > a else default

    def __getitem__(self, node_id) -> list[int]:
        found = self.get(node_id, None)
        if found is None:
            raise KeyError(node_id)
        return found

    def __contains__(self, node_id) -> bool:
        return self.get(node_id, None) is not None


class SearchTables:
    """What a search reads: the lowercased strings table, each site's `file:line text`, and the
    columns that index them. A query without a space lies within one field of a node's row
    ("#id op name module parameter file:line text"), so it is matched against the few distinct
    strings and the matches spread to the nodes as array lookups; one with a space is matched
    against each node's whole row, made for that query."""

    def __init__(self, c):
        self.columns = c
        self.strings = [s.lower() for s in c.strings] + [""]  # the last: None (-1)
        basenames: dict[str, str] = {}
        sites = []
        for site in c.sites:
            base = basenames.get(site.file)
            if base is None:
                base = basenames[site.file] = os.path.basename(site.file)
            sites.append(f"{base}:{site.line} {site.text}".lower())
        self.sites = sites + [""]
        ids = c.id
        self.digits = 1 + sum((ids >= 10**k).astype(np.int64) for k in range(1, 17))

    def search(self, q: str) -> np.ndarray:
        """The ids of the nodes matching the lowercased query, in creation order."""
        c = self.columns
        if " " in q:  # the rows holding its longest word, then the whole query in those rows
            rows = np.flatnonzero(self._hits(max(q.split(), key=len)))
            return c.id[rows[np.fromiter((q in row for row in self.rows(rows)), bool, len(rows))]]
        return c.id[self._hits(q)]

    def _hits(self, q: str) -> np.ndarray:
        """Per node: whether a field of its row contains q (a query without a space)."""
        c = self.columns
        text = np.fromiter((q in s for s in self.strings), bool, len(self.strings))
        site = np.fromiter((q in s for s in self.sites), bool, len(self.sites))
        hit = text[c.op] | text[c.name] | text[c.module] | text[c.parameter] | site[c.site]
        if set(q) <= set("#0123456789"):
            hit |= self._id_hits(q)
        return hit

    def _id_hits(self, q: str) -> np.ndarray:
        """Which ids' "#id" contain q (q of digits and #)."""
        ids, digits = self.columns.id, self.digits
        if q == "#":
            return np.ones(len(ids), dtype=bool)
        if "#" in q[1:]:
            return np.zeros(len(ids), dtype=bool)
        if q.startswith("#"):
            prefix, width = int(q[1:]), len(q) - 1
            shift = digits - width
            return (shift >= 0) & (ids // 10 ** np.maximum(shift, 0) == prefix) & ((shift == 0) | (q[1] != "0"))
        value, width = int(q), len(q)
        hit = np.zeros(len(ids), dtype=bool)
        for j in range(17 - width + 1):
            hit |= (digits >= j + width) & ((ids // 10**j) % 10**width == value)
        return hit

    def rows(self, rows: np.ndarray):
        """These nodes' whole rows, lowercased."""
        c = self.columns
        strings, sites = self.strings, self.sites
        for i, op, name, module, parameter, site in zip(
            c.id[rows].tolist(),
            c.op[rows].tolist(),
            c.name[rows].tolist(),
            c.module[rows].tolist(),
            c.parameter[rows].tolist(),
            c.site[rows].tolist(),
        ):
            yield f"#{i} {strings[op]} {strings[name]} {strings[module]} {strings[parameter]} {sites[site]}"
