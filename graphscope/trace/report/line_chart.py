"""Line charts in braille dots: series over a run's passes rasterised as cells of a terminal grid.

Each character cell holds 2 x 4 dots (Unicode braille, U+2800 + one bit per dot), so a chart
`width` cells wide has `2 * width` dot columns. Pass `i` of `passes` falls on dot column
`i * (2 * width - 1) // (passes - 1)`: the first pass at the left edge, the last at the right. A
series is drawn as its points joined by lines; where many passes share a dot column the column
shows their span (lowest to highest), so a million passes cost a few array operations. A point
that is NaN or Inf (or not positive on a log scale) is left out and breaks the line there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

BLANK = 0x2800  # the braille cell with no dot
# The bit of the dot at (x in the cell: 0 or 1, y in the cell: 0 at the top to 3).
DOT_BITS = np.array([[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]], dtype=np.uint8)
NO_SERIES = -1  # an owner cell no series drew in


@dataclass(frozen=True)
class Points:
    """One series: its values and the pass each belongs to (ascending)."""

    passes: np.ndarray  # int64: the pass of each value
    values: np.ndarray  # float64

    @classmethod
    def per_pass(cls, values: np.ndarray) -> Points:
        """A value for each pass, in order (a training series' column)."""
        values = np.asarray(values, dtype=np.float64)
        return cls(np.arange(len(values), dtype=np.int64), values)


@dataclass(frozen=True)
class Chart:
    """A chart's cells: the dots each cell shows, which series drew each cell last, the dot row of
    the guide line (if one was asked for), and the value range drawn."""

    dots: np.ndarray  # (height, width) uint8: the braille bits of each cell
    owner: np.ndarray  # (height, width) int: the index of the series that drew in the cell last, or NO_SERIES
    guide_dot: int | None  # the dot row (0 at the top) of the guide
    low: float  # the value at the bottom dot row (in data units, whatever the scale)
    high: float  # at the top dot row
    log: bool

    def row_text(self, row: int) -> str:
        """The characters of one row of cells."""
        return "".join(chr(BLANK + int(bits)) for bits in self.dots[row])

    @property
    def guide_row(self) -> int | None:
        """The row of cells the guide runs along."""
        return None if self.guide_dot is None else self.guide_dot // 4

    @property
    def guide_char(self) -> str:
        """A cell of the guide where no series drew: one dot in four, a dotted line."""
        return "" if self.guide_dot is None else chr(BLANK + int(DOT_BITS[0, self.guide_dot % 4]))


def dot_columns(passes: np.ndarray, count: int, width: int) -> np.ndarray:
    """The dot column of each pass, for `count` passes across `width` cells."""
    span = 2 * width - 1
    if count <= 1:
        return np.zeros(len(passes), dtype=np.int64)
    return (np.asarray(passes, dtype=np.int64) * span) // (count - 1)


def pass_cell(pass_position: int, count: int, width: int) -> int:
    """The cell column pass `pass_position` is drawn in."""
    return int(dot_columns(np.array([pass_position]), count, width)[0]) // 2


def pass_at(cell: int, count: int, width: int) -> int:
    """The pass a click on cell column `cell` chooses: the first pass drawn in that cell, else
    the pass drawn nearest to it."""
    if count <= 1:
        return 0
    cells = dot_columns(np.arange(count), count, width) // 2
    first = int(np.searchsorted(cells, cell))
    if first < count and cells[first] == cell:
        return first
    before = max(first - 1, 0)
    after = min(first, count - 1)
    return before if abs(int(cells[before]) - cell) <= abs(int(cells[after]) - cell) else after


def value_range(series: Sequence[Points], log: bool, guide: float | None = None) -> tuple[float, float] | None:
    """The lowest and highest value drawable (positive ones on a log scale), with the guide;
    None when there is none."""
    lows, highs = [], []
    for points in series:
        shown = _drawable(points.values, log)
        if shown.any():
            lows.append(float(points.values[shown].min()))
            highs.append(float(points.values[shown].max()))
    if guide is not None and (guide > 0 or not log):
        lows.append(guide)
        highs.append(guide)
    if not lows:
        return None
    low, high = min(lows), max(highs)
    if low == high:  # a flat line: in the middle of a range around it
        if log:
            return low / 10, high * 10
        pad = abs(low) / 2 if low else 0.5
        return low - pad, high + pad
    return low, high


def draw(
    series: Sequence[Points],
    count: int,
    width: int,
    height: int,
    log: bool = False,
    guide: float | None = None,
    bounds: tuple[float, float] | None = None,
) -> Chart:
    """Rasterise `series` over `count` passes into `width` x `height` cells (log: a log10 value scale;
    guide: a value to draw a dotted line at; bounds: the value range, when it is known beforehand,
    as a fraction's 0 to 1; else the series' own)."""
    dots = np.zeros((height, width), dtype=np.uint8)
    owner = np.full((height, width), NO_SERIES, dtype=np.int64)
    if bounds is None or value_range(series, log) is None:
        bounds = value_range(series, log, guide)
    if bounds is None or width <= 0 or height <= 0:
        return Chart(dots, owner, None, 0.0, 0.0, log)
    low, high = bounds
    scale = _scaler(low, high, log, 4 * height - 1)
    for index, points in enumerate(series):
        xs, ys = _series_dots(points, count, width, log, scale)
        cells_y, cells_x = ys // 4, xs // 2
        np.bitwise_or.at(dots, (cells_y, cells_x), DOT_BITS[xs % 2, ys % 4])
        owner[cells_y, cells_x] = index
    guide_dot = None
    if guide is not None and (guide > 0 or not log) and low <= guide <= high:
        guide_dot = int(scale(np.array([guide]))[0])
    return Chart(dots, owner, guide_dot, low, high, log)


def _drawable(values: np.ndarray, log: bool) -> np.ndarray:
    finite: np.ndarray = np.isfinite(values)
    return finite & (values > 0) if log else finite


def _scaler(low: float, high: float, log: bool, top: int) -> Callable[[np.ndarray], np.ndarray]:
    """value -> dot row (0 at the top, `top` at the bottom)."""
    if log:
        low, high = float(np.log10(low)), float(np.log10(high))
    span = high - low

    def scale(values: np.ndarray) -> np.ndarray:
        v = np.log10(values) if log else values
        # halves: the span of two finite floats may itself overflow
        rows = np.rint((high / 2 - v / 2) / (span / 2) * top)
        clipped: np.ndarray = np.clip(rows, 0, top).astype(np.int64)
        return clipped

    return scale


def _series_dots(
    points: Points, count: int, width: int, log: bool, scale: Callable[[np.ndarray], np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """The dots (x, y) one series lights: each dot column's span of values, joined to the next
    column's by a line unless a left-out point lies between them."""
    shown = np.flatnonzero(_drawable(points.values, log))
    if not len(shown):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    xs = dot_columns(points.passes[shown], count, width)
    values = points.values[shown]
    starts = np.concatenate(([0], np.flatnonzero(np.diff(xs)) + 1))
    ends = np.concatenate((starts[1:], [len(xs)])) - 1
    column_x = xs[starts]
    # each column's span, top (its highest value) to bottom, scaled once per column
    top, bottom = scale(np.maximum.reduceat(values, starts)), scale(np.minimum.reduceat(values, starts))
    first, last = scale(values[starts]), scale(values[ends])
    lengths = bottom - top + 1
    span_x = np.repeat(column_x, lengths)
    span_y = np.repeat(top, lengths) + _within(lengths)
    # joins between neighbouring columns with no left-out point between them
    joined = np.flatnonzero(shown[starts[1:]] == shown[ends[:-1]] + 1)
    x0, y0 = column_x[joined], last[joined]
    x1, y1 = column_x[joined + 1], first[joined + 1]
    steps = np.maximum(np.abs(x1 - x0), np.abs(y1 - y0)) + 1
    fraction = _within(steps) / np.repeat(np.maximum(steps - 1, 1), steps)
    line_x = np.rint(np.repeat(x0, steps) + np.repeat(x1 - x0, steps) * fraction).astype(np.int64)
    line_y = np.rint(np.repeat(y0, steps) + np.repeat(y1 - y0, steps) * fraction).astype(np.int64)
    return np.concatenate((span_x, line_x)), np.concatenate((span_y, line_y))


def _within(lengths: np.ndarray) -> np.ndarray:
    """0, 1, ..., n - 1 for each n in `lengths`, concatenated."""
    total = int(lengths.sum())
    within: np.ndarray = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return within
