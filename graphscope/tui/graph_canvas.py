"""The graph picture drawn on a character canvas: each box in box-drawing characters around its label lines,
each edge as a line from its input's box down to an arrow into its consumer's (rows as Strips, labels literal)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
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
    """A grid of characters and styles; a wide character's second cell holds ""."""

    def __init__(self, width: int, height: int, base: Style = NO_STYLE):
        self.width, self.height, self.base = width, height, base
        self.chars = [[" "] * width for _ in range(height)]
        self.styles = [[base] * width for _ in range(height)]

    def put(self, x: int, y: int, char: str, style: Style) -> None:
        if 0 <= y < self.height and 0 <= x < self.width:
            self.chars[y][x] = char
            self.styles[y][x] = _added(self.base, style)

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

    def rows(self) -> list[Strip]:
        """Each row as a Strip, runs of one style in one segment."""
        out = []
        width = self.width
        for chars, styles in zip(self.chars, self.styles):
            segments = []
            start = 0
            for i in range(1, width + 1):
                if i == width or styles[i] is not styles[start]:
                    segments.append(Segment("".join(chars[start:i]), styles[start]))
                    start = i
            out.append(Strip(segments, width))
        return out


@lru_cache(maxsize=1024)
def _added(base: Style, style: str | Style) -> Style:
    """`style` over `base`, one object for each pair (the rows join runs of the same object)."""
    return base + (Style.parse(style) if isinstance(style, str) else style)


def draw(
    layout: Layout, looks: Mapping[int, BoxLook], near: Collection[int] = (), base: Style = NO_STYLE
) -> list[Strip]:
    """The picture's rows: edges first (those touching a node in `near` brighter), boxes over them, every
    cell's style over `base` (the widget's)."""
    canvas = Canvas(layout.width, layout.height, base)
    masks: dict[tuple[int, int], int] = {}
    bright: set[tuple[int, int]] = set()
    arrows: list[tuple[int, int, bool]] = []
    for route in layout.routes:
        cells = _route_cells(layout, route, masks)
        shine = route.source in near or route.target in near
        if shine:
            bright.update(cells)
        target = layout.boxes[route.target]
        arrows.append((route.columns[-1], target.top - 1, shine))
    for (x, y), mask in masks.items():
        canvas.put(x, y, LINES[mask], NEAR_STYLE if (x, y) in bright else EDGE_STYLE)
    for x, y, shine in arrows:
        canvas.put(x, y, ARROW, NEAR_STYLE if shine else EDGE_STYLE)
    for node, box in layout.boxes.items():
        look = looks[node]
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
        for route in layout.routes:
            if route.source == node:
                canvas.put(route.columns[0], box.bottom, exit_mark, look.style)
    return canvas.rows()


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
