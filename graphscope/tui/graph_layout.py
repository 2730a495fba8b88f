"""Where the graph picture's boxes and edges go: grandalf's layered (Sugiyama) layout, snapped to
character cells: inputs in the layers above their consumers, edges down through the gaps between layers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grandalf.graphs import Edge, Vertex, graph_core
from grandalf.layouts import DummyVertex, SugiyamaLayout

GAP_X = 2  # columns between two boxes of a layer
MAX_TRACKS = 4  # rows for the edges' horizontal runs in one gap between layers (more share them)
COMPONENT_GAP = 4  # columns between unconnected parts of the picture
ORDERING_ROUNDS = 2  # grandalf's crossing reduction: sweeps down and up


@dataclass(frozen=True, slots=True)
class Box:
    """A node's box: its top-left cell, its size, its layer (0 at the top)."""

    node: int
    left: int
    top: int
    width: int
    height: int
    rank: int

    @property
    def right(self) -> int:
        return self.left + self.width - 1

    @property
    def bottom(self) -> int:
        return self.top + self.height - 1


@dataclass(frozen=True, slots=True)
class Route:
    """An edge from an input's box down to its consumer's: the column it runs down in each layer from the
    source's to the target's (its exit, the columns it passes other layers in, its entry), and the row of
    its horizontal run in each gap it crosses."""

    source: int
    target: int
    columns: tuple[int, ...]
    tracks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Layout:
    """Every box and route, the boxes of each layer from left to right, and the picture's size in cells."""

    boxes: dict[int, Box]
    routes: tuple[Route, ...]
    ranks: tuple[tuple[int, ...], ...]
    tops: tuple[int, ...]  # each layer's first row
    width: int
    height: int


class _View:
    """grandalf's view of a vertex: its size in, its centre out."""

    __slots__ = ("h", "w", "xy")

    def __init__(self, w: float, h: float):
        self.w, self.h = w, h
        self.xy = (0.0, 0.0)


def layout(widths: Mapping[int, int], edges: Sequence[tuple[int, int]], box_height: int) -> Layout:
    """Lay out boxes of these widths (by node id, all `box_height` rows) joined by (input, consumer) edges."""
    vertices = {node: Vertex(node) for node in widths}
    for node, vertex in vertices.items():
        vertex.view = _View(widths[node], box_height)
    pairs = [(a, b) for a, b in dict.fromkeys(edges) if a != b and a in widths and b in widths]
    links: list[Edge] = []
    lefts: dict[Any, int] = {}  # vertex or dummy -> its first column
    rank_of: dict[Any, int] = {}
    ranks: list[list[Any]] = []
    dummies: dict[Edge, dict[int, DummyVertex]] = {}
    offset = 0
    for part, part_pairs in _parts(list(vertices), pairs):
        part_links = [Edge(vertices[a], vertices[b]) for a, b in part_pairs]
        links += part_links
        sugiyama = SugiyamaLayout(graph_core([vertices[n] for n in part], part_links))
        sugiyama.xspace, sugiyama.yspace = GAP_X, 1
        sugiyama.init_all()
        for layer in sugiyama.layers:
            for vertex in layer:
                if isinstance(vertex, DummyVertex):
                    vertex.view = _View(1, box_height)
        sugiyama.draw(ORDERING_ROUNDS)
        dummies.update(sugiyama.ctrls)
        right = offset
        least = min(round(v.view.xy[0] - v.view.w / 2) for layer in sugiyama.layers for v in layer)
        for rank, layer in enumerate(sugiyama.layers):
            while len(ranks) <= rank:
                ranks.append([])
            for vertex in _snap(list(layer), lefts, offset - least):
                rank_of[vertex] = rank
                ranks[rank].append(vertex)
                right = max(right, lefts[vertex] + int(vertex.view.w))
        offset = right + COMPONENT_GAP
    return _routed(widths, vertices, links, lefts, rank_of, ranks, dummies, box_height)


def _parts(nodes: list[int], pairs: list[tuple[int, int]]) -> list[tuple[list[int], list[tuple[int, int]]]]:
    """The connected parts of the graph, each with its nodes and edges in the order given (grandalf's own
    `Graph` gathers a part's edges in a set, whose order changes from run to run, and the picture with it)."""
    leader = {n: n for n in nodes}

    def find(n: int) -> int:
        while leader[n] != n:
            n = leader[n]
        return n

    for a, b in pairs:
        x, y = find(a), find(b)
        if x != y:
            leader[max(x, y)] = min(x, y)
    parts: dict[int, tuple[list[int], list[tuple[int, int]]]] = {}
    for n in nodes:
        parts.setdefault(find(n), ([], []))[0].append(n)
    for a, b in pairs:
        parts[find(a)][1].append((a, b))
    return list(parts.values())


def _snap(layer: list[Any], lefts: dict[Any, int], offset: int) -> list[Any]:
    """Give a layer's vertices whole columns from grandalf's centres (moved by `offset`), left to
    right, at least GAP_X apart (a dummy, one column wide, at least one apart)."""
    layer.sort(key=lambda v: v.view.xy[0])
    edge: tuple[int, bool] | None = None  # the column after the one before, and whether it was a dummy
    for vertex in layer:
        width = int(vertex.view.w)
        column = round(vertex.view.xy[0] - width / 2) + offset
        if edge is not None:
            gap = 1 if isinstance(vertex, DummyVertex) or edge[1] else GAP_X
            column = max(column, edge[0] + gap)
        lefts[vertex] = column
        edge = (column + width, isinstance(vertex, DummyVertex))
    return layer


def _routed(
    widths: Mapping[int, int],
    vertices: dict[int, Vertex],
    links: list[Edge],
    lefts: dict[Any, int],
    rank_of: dict[Any, int],
    ranks: list[list[Any]],
    dummies: dict[Edge, dict[int, DummyVertex]],
    box_height: int,
) -> Layout:
    """The routes through the snapped columns, then the rows: each gap as tall as its horizontal runs need."""
    shift = -min(lefts.values(), default=0)
    paths: list[tuple[Edge, list[int]]] = []  # each edge's column per rank, exit and entry still centres
    for link in links:
        source, target = link.v
        first, last = rank_of[source], rank_of[target]  # first < last: a record's inputs come before
        middle = [lefts[dummies[link][r]] + shift for r in range(first + 1, last)] if link in dummies else []
        paths.append((link, [0, *middle, 0]))
    _spread(paths, lefts, shift, exits=True)
    _spread(paths, lefts, shift, exits=False)
    tracks, gaps = _tracks(paths, rank_of)
    tops = [0]
    for rank in range(1, len(ranks)):
        tops.append(tops[-1] + box_height + gaps.get(rank - 1, 1) + 1)
    boxes = {
        node: Box(node, lefts[v] + shift, tops[rank_of[v]], widths[node], box_height, rank_of[v])
        for node, v in vertices.items()
    }
    routes = []
    for link, columns in paths:
        first = rank_of[link.v[0]]
        rows = tuple(tops[first + i] + box_height + t for i, t in enumerate(tracks[link]))
        routes.append(Route(link.v[0].data, link.v[1].data, tuple(columns), rows))
    width = max((b.right + 1 for b in boxes.values()), default=0)
    width = max([width, *(c + 1 for _, cs in paths for c in cs)])
    return Layout(
        boxes,
        tuple(routes),
        tuple(tuple(v.data for v in sorted(layer, key=lefts.__getitem__) if isinstance(v, Vertex)) for layer in ranks),
        tuple(tops),
        width,
        (tops[-1] + box_height) if tops and boxes else 0,
    )


def _spread(paths: list[tuple[Edge, list[int]]], lefts: dict[Any, int], shift: int, exits: bool) -> None:
    """Spread the edges leaving (or entering) a box over its bottom (or top) border, in the order of
    where they go next, so that two edges do not run down one column."""
    by_box: dict[Vertex, list[tuple[Edge, list[int]]]] = {}
    for link, columns in paths:
        by_box.setdefault(link.v[0] if exits else link.v[1], []).append((link, columns))
    for vertex, leaving in by_box.items():
        left, width = lefts[vertex] + shift, int(vertex.view.w)

        def toward(item: tuple[Edge, list[int]]) -> float:
            link, columns = item
            near = columns[1] if exits else columns[-2]
            if len(columns) > 2:
                return near
            other = link.v[1] if exits else link.v[0]
            return lefts[other] + shift + other.view.w / 2

        leaving.sort(key=toward)
        count = len(leaving)
        for i, (_, columns) in enumerate(leaving):
            column = left + (i + 1) * width // (count + 1)
            columns[0 if exits else -1] = min(max(column, left + 1), left + width - 2)


def _tracks(
    paths: list[tuple[Edge, list[int]]], rank_of: dict[Any, int]
) -> tuple[dict[Edge, list[int]], dict[int, int]]:
    """The track (row in the gap) of each edge's horizontal run in each gap it crosses, runs that
    overlap on different tracks while there are tracks; and how many tracks each gap uses."""
    runs: dict[int, list[tuple[int, int, Edge, int]]] = {}
    for link, columns in paths:
        first = rank_of[link.v[0]]
        for i in range(len(columns) - 1):
            a, b = sorted((columns[i], columns[i + 1]))
            runs.setdefault(first + i, []).append((a, b, link, i))
    tracks: dict[Edge, list[int]] = {link: [0] * (len(columns) - 1) for link, columns in paths}
    used: dict[int, int] = {}
    for gap, gap_runs in runs.items():
        ends: list[int] = []  # each track's rightmost column taken
        for a, b, link, i in sorted(gap_runs, key=lambda run: (run[0], run[1])):
            if a == b:
                continue  # straight down: no run
            track = next((t for t, end in enumerate(ends) if end < a - 1), None)
            if track is None:
                if len(ends) < MAX_TRACKS:
                    track = len(ends)
                    ends.append(b)
                else:
                    track = min(range(len(ends)), key=ends.__getitem__)
            ends[track] = max(ends[track], b)
            tracks[link][i] = track
        used[gap] = max(len(ends), 1)
    return tracks, used
