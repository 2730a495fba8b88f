"""The graph picture drawn on a character canvas: each box in box-drawing characters around its label lines,
each edge as a line from its input's box down to an arrow into its consumer's (rows as Strips, labels literal)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from rich.cells import get_character_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from .graph_layout import Layout, Route

UP, DOWN, LEFT, RIGHT = 1, 2, 4, 8
LINES = {
    UP: "│",
    DOWN: "│",
    UP | DOWN: "│",
    LEFT: "─",
    RIGHT: "─",
    LEFT | RIGHT: "─",
    DOWN | RIGHT: "╭",
    DOWN | LEFT: "╮",
    UP | RIGHT: "╰",
    UP | LEFT: "╯",
    UP | DOWN | RIGHT: "├",
    UP | DOWN | LEFT: "┤",
    DOWN | LEFT | RIGHT: "┬",
    UP | LEFT | RIGHT: "┴",
    UP | DOWN | LEFT | RIGHT: "┼",
}
ARROW = "▼"
# A box's border: corners and sides (top-left, top, top-right, side, bottom-left, bottom, bottom-right), and
# the mark where an edge leaves its bottom.
BORDERS = {
    "plain": (tuple("╭─╮│╰─╯"), "┬"),
    "heavy": (tuple("┏━┓┃┗━┛"), "┳"),
    "double": (tuple("╔═╗║╚═╝"), "╦"),
}
EDGE_STYLE = Style(color="bright_black")
NEAR_STYLE = Style(color="cyan", bold=True)  # the edges of the box under the cursor
NO_STYLE = Style()
NOTE_STYLE = Style(dim=True, bold=False)


@dataclass(frozen=True, slots=True)
class BoxLook:
    """How a box is drawn: its label lines, its markers (on its top border), its border ("plain", "heavy",
    "double"), the border's style and the inside's (under the labels' own), and notes at the right of its
    top and bottom borders (how many inputs and consumers are not drawn)."""

    lines: tuple[Text, ...]
    badge: Text = field(default_factory=Text)
    border: str = "plain"
    style: Style = NO_STYLE
    fill: Style = NO_STYLE
    above: str = ""
    below: str = ""


class Canvas:
    """A grid of characters and styles; a wide character's second cell holds "". It notes the rows written
    since they were last taken as Strips."""

    def __init__(self, width: int, height: int, base: Style = NO_STYLE):
        self.width, self.height, self.base = width, height, base
        self.chars = [[" "] * width for _ in range(height)]
        self.styles = [[base] * width for _ in range(height)]
        self.written: set[int] = set()  # rows written since `take_rows`

    def put(self, x: int, y: int, char: str, style: Style) -> None:
        if 0 <= y < self.height and 0 <= x < self.width:
            self.chars[y][x] = char
            self.styles[y][x] = _added(self.base, style)
            self.written.add(y)

    def write(self, x: int, y: int, text: Text, room: int, base: Style = NO_STYLE) -> None:
        """`text` from column x, in at most `room` cells, each character with its style over `base`."""
        styles = [_added(base, text.style)] * len(text.plain)
        for span in text.spans:
            for i in range(span.start, min(span.end, len(styles))):
                styles[i] = _added(styles[i], span.style)
        end = x + room
        for char, style in zip(text.plain, styles):
            size = get_character_cell_size(char)
            if x + size > end:
                break
            self.put(x, y, char, style)
            if size == 2:
                self.put(x + 1, y, "", style)
            x += size

    def put_all(self, cells: Iterable[tuple[int, int, str]], style: Style) -> None:
        """`put` for each (x, y, character) in the canvas, all in one style."""
        style = _added(self.base, style)
        chars, styles, written = self.chars, self.styles, self.written
        for x, y, char in cells:
            chars[y][x] = char
            styles[y][x] = style
            written.add(y)

    def row(self, y: int) -> Strip:
        """Row y as a Strip, runs of one style in one segment."""
        chars, styles = self.chars[y], self.styles[y]
        segments = []
        start, run = 0, styles[0] if styles else None
        for i, style in enumerate(styles):
            if style is not run:
                segments.append(Segment("".join(chars[start:i]), run))
                start, run = i, style
        if styles:
            segments.append(Segment("".join(chars[start:]), run))
        return Strip(segments, self.width)

    def take_rows(self) -> set[int]:
        """The rows written since last asked (and forget them)."""
        rows, self.written = self.written, set()
        return rows


@lru_cache(maxsize=1024)
def _added(base: Style, style: str | Style) -> Style:
    """`style` over `base`, one object for each pair (the rows join runs of the same object)."""
    return base + (Style.parse(style) if isinstance(style, str) else style)


class Drawing:
    """One layout's rows, kept between frames. An update says which rows will change (those of the boxes whose
    look changed, and of the edges that came nearer the cursor or left it); a row asked for is drawn then, so
    updates between two frames are drawn once, and rows out of view not until they are asked for."""

    def __init__(self, layout: Layout, base: Style = NO_STYLE):
        self.layout = layout
        self.canvas = Canvas(layout.width, layout.height, base)
        self._rows: list[Strip | None] = [None] * layout.height  # each row's Strip; None: to be made
        self._looks: dict[int, BoxLook] = {}  # the look each box is to have
        self._near: frozenset[int] = frozenset()  # the nodes whose edges are to be bright
        self._drawn: tuple[dict[int, BoxLook], frozenset[int]] | None = None  # looks and near drawn; None: none
        self._pending = True  # an update not drawn yet
        width, height = layout.width, layout.height
        boxed = [bytearray(width) for _ in range(height)]  # 1 under a box (drawn over any edge)
        for box in layout.boxes.values():
            for y in range(box.top, box.bottom + 1):
                boxed[y][box.left : box.right + 1] = b"\1" * box.width
        masks: dict[tuple[int, int], int] = {}
        self._cells = [  # each route's cells in the canvas and not under a box
            {
                (x, y)
                for x, y in _route_cells(layout, route, masks)
                if 0 <= y < height and 0 <= x < width and not boxed[y][x]
            }
            for route in layout.routes
        ]
        self._chars = {cell: LINES[mask] for cell, mask in masks.items()}  # each edge cell's line
        self._arrows = {  # the route whose arrow is drawn at a cell (the last one drawn there)
            (route.columns[-1], layout.boxes[route.target].top - 1): k for k, route in enumerate(layout.routes)
        }
        self._chars.update(dict.fromkeys(self._arrows, ARROW))
        self._exits: dict[int, list[int]] = {}  # the columns where edges leave each box
        for route in layout.routes:
            self._exits.setdefault(route.source, []).append(route.columns[0])

    def update(self, looks: Mapping[int, BoxLook], near: Collection[int] = ()) -> set[int]:
        """To be drawn with these looks (compared by identity), edges touching a node in `near` brighter; the
        rows that may change (all of them until the first is drawn)."""
        near = frozenset(near)
        boxes = self.layout.boxes
        rows = {
            y
            for node, look in looks.items()
            if look is not self._looks.get(node)
            for y in range(boxes[node].top, boxes[node].bottom + 1)
        }
        rows.update(y for k in self._flipped(self._near, near) for _, y in self._cells[k])
        self._looks, self._near, self._pending = dict(looks), near, True
        return set(range(self.layout.height)) if self._drawn is None else rows

    def row(self, y: int) -> Strip:
        """Row y as a Strip, drawn as the last update asked."""
        if self._pending:
            self._draw()
        strip = self._rows[y]
        if strip is None:
            strip = self._rows[y] = self.canvas.row(y)
        return strip

    def _flipped(self, was: frozenset[int], near: frozenset[int]) -> list[int]:
        """The routes bright with one of `was` and `near` (the nodes whose edges are bright) and not the other."""
        changed = was ^ near
        return [
            k
            for k, route in enumerate(self.layout.routes)
            if (route.source in changed or route.target in changed)
            and (route.source in was or route.target in was) != (route.source in near or route.target in near)
        ]

    def _draw(self) -> None:
        """Draw the boxes and edges that changed since last drawn (all of them the first time)."""
        routes, looks, near = self.layout.routes, self._looks, self._near
        shine = [route.source in near or route.target in near for route in routes]
        if self._drawn is None:
            redo: Collection[int] = range(len(routes))
            boxes = list(self.layout.boxes)
        else:
            drawn_looks, was = self._drawn
            redo = self._flipped(was, near)
            boxes = [node for node in self.layout.boxes if looks[node] is not drawn_looks.get(node)]
        self._drawn, self._pending = (looks, near), False
        bright = set().union(*(self._cells[k] for k, on in enumerate(shine) if on))
        arrows, chars = self._arrows, self._chars
        lit: list[tuple[int, int, str]] = []
        dim: list[tuple[int, int, str]] = []
        for cell in set().union(*(self._cells[k] for k in redo)):
            arrow = arrows.get(cell)
            (lit if (cell in bright if arrow is None else shine[arrow]) else dim).append((*cell, chars[cell]))
        self.canvas.put_all(lit, NEAR_STYLE)
        self.canvas.put_all(dim, EDGE_STYLE)
        for node in boxes:
            self._box(node, looks[node])
        for y in self.canvas.take_rows():
            self._rows[y] = None

    def _box(self, node: int, look: BoxLook) -> None:
        """The node's box over its cells: border, markers, notes, label lines, and the marks where edges leave."""
        canvas, box = self.canvas, self.layout.boxes[node]
        corners, exit_mark = BORDERS[look.border]
        top_left, side_top, top_right, side, bottom_left, side_bottom, bottom_right = corners
        inner = box.width - 2
        canvas.write(box.left, box.top, Text(top_left + side_top * inner + top_right), box.width, look.style)
        canvas.write(
            box.left, box.bottom, Text(bottom_left + side_bottom * inner + bottom_right), box.width, look.style
        )
        canvas.write(box.left + 1, box.top, look.badge, inner - 1, look.style)
        for note, y in ((look.above, box.top), (look.below, box.bottom)):
            if note and len(note) + look.badge.cell_len < inner:
                canvas.write(box.right - len(note), y, Text(note), len(note), _added(look.style, NOTE_STYLE))
        for i in range(box.height - 2):
            y = box.top + 1 + i
            canvas.put(box.left, y, side, look.style)
            canvas.put(box.right, y, side, look.style)
            canvas.write(box.left + 1, y, Text(" " * inner), inner, look.fill)
            if i < len(look.lines):
                canvas.write(box.left + 2, y, look.lines[i], inner - 2, look.fill)
        for column in self._exits.get(node, ()):
            canvas.put(column, box.bottom, exit_mark, look.style)


def draw(
    layout: Layout, looks: Mapping[int, BoxLook], near: Collection[int] = (), base: Style = NO_STYLE
) -> list[Strip]:
    """The picture's rows: edges first (those touching a node in `near` brighter), boxes over them, every
    cell's style over `base` (the widget's)."""
    drawing = Drawing(layout, base)
    drawing.update(looks, near)
    return [drawing.row(y) for y in range(layout.height)]


def _route_cells(layout: Layout, route: Route, masks: dict[tuple[int, int], int]) -> list[tuple[int, int]]:
    """Add the route's lines to `masks` (which directions each cell joins); the cells it passes."""
    cells: list[tuple[int, int]] = []
    source = layout.boxes[route.source]

    def join(x: int, y: int, bits: int) -> None:
        masks[(x, y)] = masks.get((x, y), 0) | bits
        cells.append((x, y))

    def down(x: int, y0: int, y1: int) -> None:
        for y in range(y0, y1 + 1):
            join(x, y, (UP if y > y0 else 0) | (DOWN if y < y1 else 0))

    def across(y: int, x0: int, x1: int) -> None:
        lo, hi = sorted((x0, x1))
        for x in range(lo, hi + 1):
            join(x, y, (LEFT if x > lo else 0) | (RIGHT if x < hi else 0))

    for i, track in enumerate(route.tracks):
        a, b = route.columns[i], route.columns[i + 1]
        start = source.bottom + 1 if i == 0 else layout.tops[source.rank + i] - 1
        end = layout.tops[source.rank + i + 1] - 1
        down(a, start, track)
        if a != b:
            across(track, a, b)
        down(b, track, end)
        if i == 0:
            masks[(a, start)] |= UP  # it leaves through the box's border above
    return cells
