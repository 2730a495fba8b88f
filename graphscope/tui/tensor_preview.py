"""TensorPreview: the visible window of a tensor as a table with a colour scale; the keys move a cursor over its
elements (the one the Rule tab explains), the window follows it, and [ ] change the slice."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from rich.color import Color
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget

from graphscope.trace.stats.summarize import TensorSummary

from .number_text import fit_number
from .wording import counted

CELL_WIDTH = 10
LABEL_WIDTH = 7
# Tensors with more elements than this are explained one element at a time: the cursor shows which.
WHOLE = 8


@dataclass(frozen=True, slots=True)
class Window:
    """Which part of the tensor is on screen: the leading indices, then a block of rows and columns."""

    lead: tuple[int, ...]
    row: int
    col: int
    rows: int
    cols: int


def cell_style(value: float, scale: float) -> Style:
    """A background from blue (negative) through the surface to red (positive), by magnitude."""
    if math.isnan(value):
        return Style(color="white", bgcolor="magenta", bold=True)
    if math.isinf(value):
        return Style(color="white", bgcolor="red", bold=True)
    t = 0.0 if scale <= 0 else min(abs(value) / scale, 1.0)
    level = int(30 + 150 * t)
    rgb = (level, 30, 30) if value > 0 else (30, 30, level) if value < 0 else (30, 30, 30)
    return Style(bgcolor=Color.from_rgb(*rgb))


class TensorPreview(Widget, can_focus=True):
    """Shows at most what fits, from the record alone (a live run and its snapshot look the same):
    full values are sliced here; a tensor too big for them shows the preview the record kept. The
    cursor is one flat element index; moving it tells the node details (`ElementMoved`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1, 0)", "Row up", show=False),
        Binding("down,j", "move(1, 0)", "Row down", show=False),
        Binding("left,h", "move(0, -1)", "Column left", show=False),
        Binding("right,l", "move(0, 1)", "Column right", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "origin", "Origin", show=False),
        Binding("left_square_bracket", "slice(-1)", "Prev slice"),
        Binding("right_square_bracket", "slice(1)", "Next slice"),
    ]

    DEFAULT_CSS = """
    TensorPreview {
        height: 14;
        width: 1fr;
        padding: 0 1;
        &:focus { background-tint: $foreground 5%; }
    }
    """

    class ElementMoved(Message):
        """The cursor moved to another element (a flat, row-major index)."""

        def __init__(self, element: int):
            super().__init__()
            self.element = element

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.summary: TensorSummary | None = None
        self.node_id: int | None = None
        self.what = "value"
        self.element = 0  # the cursor: a flat index into the whole tensor
        self.row = 0  # the window's first row and column in the grid
        self.col = 0

    def show(self, summary: TensorSummary | None, node_id: int | None, what: str = "value", element: int = 0) -> None:
        same = (
            (node_id, what) == (self.node_id, self.what)
            and summary is not None
            and self.summary is not None
            and summary.shape == self.summary.shape
        )
        self.summary, self.node_id, self.what = summary, node_id, what
        if not same:
            self.row = self.col = 0
        self.element = max(0, min(element, self._last()))
        self.refresh()

    @property
    def lead(self) -> tuple[int, ...]:
        """The leading indices of the 2-D slice shown (the cursor's)."""
        s = self.summary
        if s is None or len(s.shape) <= 2:
            return ()
        rows, cols = s.shape[-2], s.shape[-1]
        return tuple(int(i) for i in np.unravel_index(self.element // max(rows * cols, 1), s.shape[:-2]))

    def cursor(self) -> tuple[int, int]:
        """The cursor's (row, column) in the grid shown."""
        s = self.summary
        if s is not None and s.values is None:  # the kept preview, in rows as wide as the pane
            return self.element // self._visible_cols(), self.element % self._visible_cols()
        if s is not None and len(s.shape) >= 2:
            rows, cols = s.shape[-2], s.shape[-1]
            within = self.element % max(rows * cols, 1)
            return within // max(cols, 1), within % max(cols, 1)
        cols = max(self._grid_shape()[1], 1)
        return self.element // cols, self.element % cols

    def _last(self) -> int:
        """The last element the cursor may reach: the tensor's, or the kept preview's when that is all."""
        s = self.summary
        if s is None or s.numel == 0:
            return 0
        if s.values is None:
            return max(s.preview.size - 1, 0)
        return s.numel - 1

    # --- geometry ------------------------------------------------------------------------------

    def _grid_shape(self) -> tuple[int, int]:
        """(rows, cols) of the 2-D grid shown: a matrix slice, or a vector wrapped into rows."""
        s = self.summary
        shape = s.shape if s is not None else ()
        if len(shape) >= 2:
            return shape[-2], shape[-1]
        n = shape[0] if shape else 1
        cols = max(1, self._visible_cols())
        return math.ceil(n / cols) if n else 0, min(cols, n) if n else 0

    def _visible_cols(self) -> int:
        return max(1, (self.size.width - 2 - LABEL_WIDTH) // CELL_WIDTH)

    def _visible_rows(self) -> int:
        return max(1, self.size.height - 3)

    def window(self) -> Window:
        """The part on screen: where it was scrolled to, moved just enough to show the cursor."""
        rows, cols = self._grid_shape()
        vis_r, vis_c = self._visible_rows(), self._visible_cols()
        r, c = self.cursor()
        self.row = min(max(self.row, r - vis_r + 1), r)
        self.col = min(max(self.col, c - vis_c + 1), c)
        self.row = max(0, min(self.row, max(rows - vis_r, 0)))
        self.col = max(0, min(self.col, max(cols - vis_c, 0)))
        return Window(self.lead, self.row, self.col, min(vis_r, rows - self.row), min(vis_c, cols - self.col))

    # --- actions -------------------------------------------------------------------------------

    def _move_to(self, element: int) -> None:
        element = max(0, min(element, self._last()))
        moved = element != self.element
        self.element = element
        self.refresh()
        if moved:
            self.post_message(self.ElementMoved(element))

    def _grid_element(self, r: int, c: int) -> int:
        """The flat index of (row, column) in the cursor's slice, clamped to the grid."""
        s = self.summary
        rows, cols = self._grid_shape()
        r, c = max(0, min(r, rows - 1)), max(0, min(c, cols - 1))
        if s is not None and len(s.shape) >= 2:
            return self.element - self.element % max(rows * cols, 1) + r * cols + c
        return min(r * cols + c, self._last())

    def action_move(self, rows: int, cols: int) -> None:
        if self.summary is not None and self.summary.values is None:  # the kept preview: a flat list
            self._move_to(self.element + rows * self._visible_cols() + cols)
            return
        r, c = self.cursor()
        self._move_to(self._grid_element(r + rows, c + cols))

    def action_step(self, delta: int) -> None:
        """The next or previous element in row-major order (across rows and slices)."""
        self._move_to(self.element + delta)

    def action_page(self, pages: int) -> None:
        r, c = self.cursor()
        self.row += pages * self._visible_rows()
        self._move_to(self._grid_element(r + pages * self._visible_rows(), c))

    def action_origin(self) -> None:
        self.row = self.col = 0
        self._move_to(self._grid_element(0, 0))

    def action_slice(self, delta: int) -> None:
        """Step the leading indices like an odometer (last index fastest); the cursor keeps its cell."""
        s = self.summary
        if s is None or len(s.shape) <= 2:
            return
        dims = s.shape[:-2]
        lead = list(self.lead)
        i = len(lead) - 1
        while i >= 0:
            lead[i] += delta
            if 0 <= lead[i] < dims[i]:
                break
            lead[i] = 0 if delta > 0 else dims[i] - 1
            i -= 1
        else:
            return  # wrapped all the way round: stay at the ends
        rows, cols = s.shape[-2], s.shape[-1]
        within = self.element % max(rows * cols, 1)
        self._move_to(int(np.ravel_multi_index(tuple(lead), dims)) * rows * cols + within)

    # --- data ----------------------------------------------------------------------------------

    def _block(self, w: Window) -> np.ndarray | None:
        """The window's values as a 2-D array, when the record kept every value (else None)."""
        s = self.summary
        if s is None or s.values is None:
            return None
        return self._slice(np.asarray(s.values), w)

    def _slice(self, values: np.ndarray, w: Window) -> np.ndarray:
        if values.ndim >= 2:
            return values[w.lead][w.row : w.row + w.rows, w.col : w.col + w.cols]
        flat = values.reshape(-1)
        cols = self._grid_shape()[1]
        out = np.full((w.rows, w.cols), np.nan)
        for r in range(w.rows):
            start = (w.row + r) * cols + w.col
            chunk = flat[start : start + w.cols]
            out[r, : len(chunk)] = chunk
        return out

    # --- rendering -----------------------------------------------------------------------------

    def render(self):
        s = self.summary
        if s is None:
            return Text("")
        if s.numel == 0:
            return Text("empty tensor", "dim")
        if s.numel == 1 and not s.shape:
            return Text("")  # a scalar's stats say it all
        w = self.window()
        block = self._block(w)
        scale = max(abs(s.min or 0.0), abs(s.max or 0.0)) if isinstance(s.min, (int, float)) else 0.0
        if block is None:
            return self._render_preview(s, scale)
        vector = len(s.shape) < 2
        cols = self._grid_shape()[1]
        marked = self._marked()
        at = self.cursor()
        lines = [
            Text.assemble(
                " " * LABEL_WIDTH,
                *[(f"{'' if vector else w.col + c:>{CELL_WIDTH - 1}} ", "dim") for c in range(w.cols)],
            )
        ]
        for r in range(block.shape[0]):
            label = str((w.row + r) * cols + w.col) if vector else str(w.row + r)
            line = Text(f"{label:>{LABEL_WIDTH - 1}} ", "dim")
            end = s.numel - (w.row + r) * cols - w.col if vector else w.cols
            for c in range(min(w.cols, block.shape[1], end)):
                line.append_text(self._cell(block[r, c], scale, marked and at == (w.row + r, w.col + c)))
                line.append(" ")
            lines.append(line)
        lines.append(Text(self._caption(w), "dim"))
        return Text("\n").join(lines)

    def _marked(self) -> bool:
        """Whether the cursor's cell stands out: while the table has focus, or always when the tensor
        is explained one element at a time (then it is the element the Rule tab explains)."""
        return self.has_focus or (self.summary is not None and self.summary.numel > WHOLE)

    def _cell(self, value, scale: float, cursor: bool = False) -> Text:
        """One value, right-aligned in its cell, on its colour (the cursor's cell reversed)."""
        v = float(value)
        style = cell_style(v, scale)
        if cursor:
            style += Style(reverse=True, bold=True)
        return Text(f"{fit_number(value, CELL_WIDTH - 1):>{CELL_WIDTH - 1}}", style=style)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def _caption(self, w: Window) -> str:
        s = self.summary
        assert s is not None  # a window is drawn only over a summary
        cols = self._grid_shape()[1]
        where = "".join(f"[{i}]" for i in w.lead)
        if len(s.shape) >= 2:
            span = f"{where}[{w.row}:{w.row + w.rows}, {w.col}:{w.col + w.cols}] of {'×'.join(map(str, s.shape))}"
        else:
            first = w.row * cols
            span = f"[{first}:{min(first + w.rows * cols, s.numel)}] of {s.numel}"
        keys = "  ↑↓←→ move" + ("  [ ] slice" if len(s.shape) > 2 else "")
        return span + f"  at {element_text(self.element, s.shape)}" + keys

    def _render_preview(self, s: TensorSummary, scale: float):
        if s.dropped or s.preview.size == 0:
            return Text("values not kept (memory budget): statistics only", "dim")
        per_row = self._visible_cols()
        flat = s.preview.reshape(-1)
        marked = self._marked()
        first = self.row * per_row
        lines = []
        for start in range(first, min(flat.size, first + per_row * self._visible_rows()), per_row):
            line = Text(f"{start:>{LABEL_WIDTH - 1}} ", "dim")
            for i, v in enumerate(flat[start : start + per_row], start):
                line.append_text(self._cell(v, scale, marked and i == self.element))
                line.append(" ")
            lines.append(line)
        lines.append(
            Text(f"first {flat.size} of {counted(s.numel, 'element')}, row-major (only these were kept)", "dim")
        )
        return Text("\n").join(lines)


def element_text(element: int, shape: tuple[int, ...]) -> str:
    """A flat element index as the tensor's own indices: `[2, 3]`; a scalar's is `[]`."""
    if not shape:
        return "[]"
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(element, shape)) + "]"
