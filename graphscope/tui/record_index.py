"""RecordIndex: the lookups the screens need over a Record (steps by node, grads, roots, search, NaN origin), kept current as a live record grows."""

from __future__ import annotations

import os
from dataclasses import dataclass

from graphscope.trace.record import NAN_ORIGIN, LeafGrad, Record

# How many matches a search reports in full (the count covers them all).
SEARCH_LIMIT = 500

# The group of nodes made outside any module, in the module view.
NO_MODULE = "(outside any module)"


@dataclass(frozen=True, slots=True)
class Root:
    """A top-level row of the graph tree: a pass's root (the loss), or the unconsumed nodes of a pass without a backward yet."""

    pass_index: int
    node: int | None           # the root node, when the pass has begun its backward
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
        self._positions: dict[int, tuple[int, dict[int, int]]] = {}
        self._leaf_grads: dict[int, tuple[tuple, dict[int, list[tuple[int, LeafGrad]]]]] = {}
        self._pass_by_index: tuple[int, dict[int, int]] = (-1, {})
        self._consumers: tuple[int, dict[int, list[int]]] | None = None
        self._haystack: tuple[int, list[str], list[int]] | None = None
        self._roots: tuple[tuple, list[Root]] | None = None
        self._modules: tuple[int, tuple[dict, dict]] | None = None

    # --- passes and steps -------------------------------------------------------------------

    def pass_list_index(self, pass_index: int) -> int | None:
        """The position in record.passes of the pass whose `index` is `pass_index`."""
        passes = self.record.passes
        count, table = self._pass_by_index
        if count != len(passes):
            table = {p.index: i for i, p in enumerate(list(passes))}
            self._pass_by_index = (len(passes), table)
        return table.get(pass_index)

    def positions(self, position: int) -> dict[int, int]:
        """node id -> its place in the planned backward order of record.passes[position]."""
        p = self.record.passes[position]
        key = id(p.order)
        cached = self._positions.get(position)
        if cached is None or cached[0] != key:
            cached = (key, {n: i for i, n in enumerate(p.order)})
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
        steps = self.record.passes[position].steps
        # The step at a paused frontier gains its leaf grads after it was first recorded.
        key = (len(steps), len(steps[-1].leaf_grads) if steps else 0)
        cached = self._leaf_grads.get(position)
        if cached is None or cached[0] != key:
            table: dict[int, list[tuple[int, LeafGrad]]] = {}
            for i, step in enumerate(list(steps)):
                for lg in step.leaf_grads:
                    table.setdefault(lg.node, []).append((i, lg))
            cached = (key, table)
            self._leaf_grads[position] = cached
        return cached[1].get(node_id, [])

    # --- the graph ----------------------------------------------------------------------------

    def roots_key(self) -> tuple:
        """What the roots depend on: the node count and each pass's root (cheap to compute)."""
        return (len(self.record.nodes),
                tuple((p.index, p.root if p.detailed else None) for p in list(self.record.passes)))

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
        nodes = list(record.nodes.values())
        consumed = set()
        for node in nodes:
            consumed.update(node.inputs)
        loose: dict[int, list[int]] = {}
        for node in nodes:
            # a node nothing consumed, outside the passes with a root: a forward still going, or
            # one whose backward was not kept (nodes another pass still uses hang below it)
            if node.pass_index not in rooted and node.id not in consumed:
                loose.setdefault(node.pass_index, []).append(node.id)
        result += [Root(index, None, tuple(sinks)) for index, sinks in loose.items()]
        result.sort(key=lambda r: r.pass_index)
        return result

    def consumers(self) -> dict[int, list[int]]:
        """input node id -> the node ids that consumed it (rebuilt when the record has grown)."""
        count = len(self.record.nodes)
        if self._consumers is None or self._consumers[0] != count:
            table: dict[int, list[int]] = {}
            for node in list(self.record.nodes.values()):
                for i in node.inputs:
                    table.setdefault(i, []).append(node.id)
            self._consumers = (count, table)
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
        nodes = record.nodes
        for node in list(nodes.values()):
            out = node.output
            if out is None or not out.has_nonfinite:
                continue
            inputs = [nodes.get(i) for i in node.inputs]
            if all(i is None or i.output is None or not i.output.has_nonfinite for i in inputs):
                return node.id
        for p in list(record.passes):
            for step in list(p.steps):
                if step.grad_output is not None and step.grad_output.has_nonfinite:
                    continue
                if any(g is not None and g.has_nonfinite for g in step.grad_inputs):
                    return step.node
        return None

    def search(self, query: str) -> SearchResult:
        """Nodes whose op, name, module, parameter, `file:line` or source text contain `query`
        (case-insensitive; `#12` finds node 12)."""
        q = query.strip().lower()
        if not q:
            return SearchResult(query, (), 0)
        rows, ids = self._search_rows()
        hits = [i for i, row in enumerate(rows) if q in row]  # one C-level test per node
        return SearchResult(query, tuple(ids[i] for i in hits[:SEARCH_LIMIT]), len(hits))

    def prepare(self) -> None:
        """Build the lookups a big record is slow to build (a worker thread calls this at start,
        so the first search or jump is quick): roots, consumers, the search text, modules."""
        self.roots()
        self._search_rows()
        self.consumers()
        self.modules()

    def fresh(self) -> bool:
        """Whether the lookups `prepare` builds match the record as it is now."""
        count = len(self.record.nodes)
        return (self._haystack is not None and self._haystack[0] == count
                and self._consumers is not None and self._consumers[0] == count)

    def modules(self) -> tuple[dict[str, list[int]], dict[str, list[str]]]:
        """(module path -> its node ids, module path -> its direct submodules; "" holds the top
        level); nodes outside any module are under NO_MODULE."""
        count = len(self.record.nodes)
        if self._modules is not None and self._modules[0] == count:
            return self._modules[1]
        by_module: dict[str, list[int]] = {}
        for node in list(self.record.nodes.values()):
            by_module.setdefault(node.module or NO_MODULE, []).append(node.id)
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
                submodules.setdefault(".".join(parts[:depth - 1]), []).append(prefix)
        self._modules = (count, (by_module, submodules))
        return by_module, submodules

    def _search_rows(self) -> tuple[list[str], list[int]]:
        count = len(self.record.nodes)
        if self._haystack is not None and self._haystack[0] == count:
            return self._haystack[1], self._haystack[2]
        rows: list[str] = []
        ids: list[int] = []
        basenames: dict[str, str] = {}
        for node in list(self.record.nodes.values()):
            site = node.site
            if site is not None:
                base = basenames.get(site.file)
                if base is None:
                    base = basenames[site.file] = os.path.basename(site.file)
                where = f"{base}:{site.line} {site.text}"
            else:
                where = ""
            rows.append(f"#{node.id} {node.op} {node.name} {node.module or ''} {node.parameter or ''} {where}"
                        .lower())
            ids.append(node.id)
        self._haystack = (count, rows, ids)
        return rows, ids

