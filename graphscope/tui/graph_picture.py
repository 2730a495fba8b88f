"""GraphPicture: the graph around the selected node drawn as a layered DAG of boxes and arrows (the whole
graph when it is small); the arrow keys move along its edges, enter selects the node in the graph view."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from graphscope.trace.record.model import CONSTANT

from .graph_canvas import BoxLook, Drawing
from .graph_layout import Layout, layout
from .graph_neighbourhood import neighbourhood
from .moment import Marks, Moment
from .node_label import keep_tail, marks_text, node_text, one_line, shape_text, short_dtype

LABEL_WIDTH = 24  # the most columns a box's label takes
NOTHING = ("No node to draw yet:", "select one in another view (v),", "or step (n).")
CURSOR_FILL = Style(bgcolor="grey23")
MARK_COLOURS = {"failed": "red", "nonfinite": "red", "current": "yellow"}


class GraphPicture(ScrollView, can_focus=True):
    """Draws the nodes `neighbourhood` picks around the node under its cursor; moving the cursor to a node
    not drawn (an input or consumer past the picture's edge) draws the picture around it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move('up')", "Input", show=False),
        Binding("down,j", "move('down')", "Consumer", show=False),
        Binding("left,h", "move('left')", "Left", show=False),
        Binding("right,l", "move('right')", "Right", show=False),
        Binding("enter", "choose", "Select", show=False),
    ]

    DEFAULT_CSS = """
    GraphPicture { background: $surface; scrollbar-size: 1 1; }
    """

    class Highlighted(Message):
        """The cursor moved onto a node: show it."""

        def __init__(self, node: int):
            super().__init__()
            self.node = node

    class Chosen(Message):
        """Enter on a node: select it in the graph view."""

        def __init__(self, node: int):
            super().__init__()
            self.node = node

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.moment: Moment | None = None
        self.cursor: int | None = None
        self.nodes: list[int] = []  # the nodes drawn
        self.whole = False  # whether they are every node connected to the cursor's
        self.picture: Layout | None = None
        self._modules = False  # whether a node drawn has a module (a line for it in every box)
        self._hidden: dict[int, tuple[int, int]] = {}  # each box's inputs and consumers not drawn
        self._laid_out: tuple = ()  # what the picture was laid out from: nodes, whole, edges, hidden counts
        self._label_cache: dict[tuple[int, bool], tuple[Text, ...]] = {}
        self._look_cache: dict[tuple[int, Marks, bool], BoxLook] = {}  # by (node, marks, under the cursor)
        self._marks: tuple[Moment | None, list[int], tuple[Marks, ...]] = (None, [], ())  # the nodes' marks then
        self._centred = 0  # the record's node count when the picture was laid out
        self._drawing: Drawing | None = None  # the picture's rows, kept between steps
        self._stale = True  # the rows are drawn anew before they are next rendered
        self._note: list[Strip] = []  # what to do when there is no picture, in the widget's style
        self._style: Style | None = None  # the widget's style
        self._shown: dict[int, Strip] = {}  # the rows on screen, cropped to the view
        self._shown_at = (0, 0)  # their first column and width
        self._sized: tuple[Size, Size, Size] | None = None  # the sizes the scrollbars were last fitted to

    # --- what is drawn ---------------------------------------------------------------------------

    def show(self, moment: Moment) -> None:
        """Draw at this moment (new markers; a live record that grew is drawn around the cursor again)."""
        self.moment = moment
        if self.cursor is not None and self.cursor not in moment.record.nodes:
            self.cursor = self.picture = None
            self.nodes = []
        elif self.cursor is not None and self._centred != len(moment.record.nodes):
            self._centre(self.cursor)
        self._redraw()

    set_moment = show

    def reveal_node(self, node_id: int) -> bool:
        """Put the cursor on the node, drawing the picture around it when it is not in the picture."""
        moment = self.moment
        if moment is None or moment.record.nodes.op_of(node_id) in (None, CONSTANT):
            return False
        self._go(node_id, announce=False)
        return True

    def _inputs(self, node_id: int) -> list[int]:
        """The node's tensor inputs (Python values passed to an op are its arguments, not edges)."""
        assert self.moment is not None  # (asked only while a moment is shown)
        nodes = self.moment.record.nodes
        return [i for i in nodes.inputs_of(node_id) or () if nodes.op_of(i) not in (None, CONSTANT)]

    def _consumers(self, node_id: int) -> list[int]:
        assert self.moment is not None  # (asked only while a moment is shown)
        return list(self.moment.index.consumers().get(node_id, ()))

    def _centre(self, node_id: int) -> None:
        """Lay out the picture around `node_id` (the picture drawn stays when it would come out the same, as
        when a live record grew by a pass that does not touch it)."""
        assert self.moment is not None  # (asked only while a moment is shown)
        self._centred = len(self.moment.record.nodes)
        drawn, whole = neighbourhood(node_id, self._inputs, self._consumers)
        shown = set(drawn)
        edges = [(i, n) for n in drawn for i in self._inputs(n) if i in shown]
        hidden = {
            n: (
                sum(i not in shown for i in self._inputs(n)),
                sum(c not in shown for c in self._consumers(n)),
            )
            for n in drawn
        }
        if self.picture is not None and (drawn, whole, edges, hidden) == self._laid_out:
            return
        self._laid_out = (drawn, whole, edges, hidden)
        self.nodes, self.whole, self._hidden = drawn, whole, hidden
        self._label_cache, self._look_cache = {}, {}
        nodes = self.moment.record.nodes
        self._modules = any(getattr(nodes.get(n), "module", None) for n in drawn)
        labels = {n: self._labels(n, Marks()) for n in drawn}
        widths = {n: max(8, *(line.cell_len + 4 for line in lines)) for n, lines in labels.items()}
        height = 2 + max(len(lines) for lines in labels.values())
        self.picture = layout(widths, edges, height)
        self.virtual_size = Size(self.picture.width, self.picture.height)

    def _labels(self, node_id: int, marks: Marks) -> tuple[Text, ...]:
        """A box's lines: its op (or parameter's name) and arguments, shape and dtype, and module (made once
        for each look, red or not, of the picture's nodes)."""
        key = (node_id, marks.nonfinite or marks.failed)
        lines = self._label_cache.get(key)
        if lines is None:
            lines = self._label_cache[key] = self._label_lines(node_id, marks)
        return lines

    def _label_lines(self, node_id: int, marks: Marks) -> tuple[Text, ...]:
        assert self.moment is not None  # (asked only while a moment is shown)
        nodes = self.moment.record.nodes
        node = nodes.get(node_id)
        name = node_text(node, marks, nodes, LABEL_WIDTH, with_shape=False)
        name.truncate(LABEL_WIDTH, overflow="ellipsis")
        lines = [name]
        if node is not None and node.output is not None:
            lines.append(Text.assemble(shape_text(node.output), " ", (one_line(short_dtype(node.output.dtype)), "dim")))
            lines[-1].truncate(LABEL_WIDTH, overflow="ellipsis")
        if self._modules:  # every box as tall
            module = node.module if node is not None else ""
            lines.append(Text(keep_tail(one_line(module or ""), LABEL_WIDTH), "dim italic"))
        return tuple(lines)

    def _look(self, node_id: int, marks: Marks) -> BoxLook:
        """The box's labels, its markers on its border, and its border: double at the current step, heavy
        under the cursor; red on NaN/Inf or the failing node, yellow at the current step, cyan under the cursor;
        +N on its top (bottom) border for N inputs (consumers) not drawn (one object for each look: the
        drawing redraws a box when its look is another object)."""
        key = (node_id, marks, node_id == self.cursor)
        look = self._look_cache.get(key)
        if look is None:
            look = self._look_cache[key] = self._new_look(node_id, marks)
        return look

    def _new_look(self, node_id: int, marks: Marks) -> BoxLook:
        cursor = node_id == self.cursor
        colour = next((c for mark, c in MARK_COLOURS.items() if getattr(marks, mark)), "cyan" if cursor else None)
        badge = Text.assemble(*(mark for mark in marks_text(marks).divide(range(1, 3)) if mark.plain != " "))
        return BoxLook(
            self._labels(node_id, marks),
            badge,
            "double" if marks.current else "heavy" if cursor else "plain",
            Style(color=colour, bold=colour is not None),
            CURSOR_FILL if cursor else Style(),
            *(f"+{count}" if count else "" for count in self._hidden.get(node_id, (0, 0))),
        )

    def _redraw(self) -> None:
        """The markers or the cursor may have moved: repaint the rows of the boxes and edges that change, drawn
        as they are rendered (a new picture is drawn whole, once, before the next frame)."""
        if self.picture is None:
            self.virtual_size = Size(max(map(len, NOTHING)), len(NOTHING))
        drawing = self._drawing
        if self._stale or drawing is None or drawing.layout is not self.picture:
            self._stale = True
            self.refresh()
            return
        top, height = self.scroll_offset.y, self.scrollable_content_region.height
        start = count = 0
        for row in sorted(self._update(drawing)):
            self._shown.pop(row, None)
            if top <= row < top + height:
                if count and row == start + count:
                    count += 1
                    continue
                if count:
                    self.refresh_lines(start, count)
                start, count = row, 1
        if count:
            self.refresh_lines(start, count)

    def _draw(self) -> None:
        """Draw the rows anew: the picture's (for the widget's style), or what to do when there is none."""
        self._stale, self._shown = False, {}
        moment, picture = self.moment, self.picture
        if moment is None or picture is None:
            note = [Text(line, "dim italic") for line in NOTHING]
            self._note = [Strip(line.render(self.app.console)).apply_style(self._base()) for line in note]
            self._drawing = None
            return
        self._drawing = Drawing(picture, self._base())
        self._update(self._drawing)

    def _update(self, drawing: Drawing) -> set[int]:
        """Ask the drawing for the moment's marks and the cursor; the rows that may change."""
        assert self.moment is not None  # (a drawing is kept only while a moment is shown)
        moment, nodes, marks = self._marks
        if moment is not self.moment or nodes is not self.nodes:
            marks = tuple(self.moment.marks(n) for n in self.nodes)
            self._marks = (self.moment, self.nodes, marks)
        looks = {n: self._look(n, m) for n, m in zip(self.nodes, marks)}
        return drawing.update(looks, () if self.cursor is None else (self.cursor,))

    # --- moving ----------------------------------------------------------------------------------

    def _go(self, node_id: int, announce: bool = True) -> None:
        if self.picture is None or node_id not in self.picture.boxes:
            self._centre(node_id)
        self.cursor = node_id
        self._redraw()
        self.call_after_refresh(self._scroll_to_cursor)  # once the new picture's size is known
        if announce:
            self.post_message(self.Highlighted(node_id))

    def _scroll_to_cursor(self) -> None:
        """The cursor's box in the middle of the view (as far as the picture lets it be) when it is not in view."""
        if self.picture is not None and self.cursor in self.picture.boxes:
            box = self.picture.boxes[self.cursor]
            region = Region(box.left, box.top, box.width, box.height)
            seen = Region(*self.scroll_offset, *self.scrollable_content_region.size)
            if not seen.contains_region(region):  # (a box in view stays put: stepping does not scroll)
                self.scroll_to_region(region, animate=False, force=True, center=True)

    def action_move(self, direction: str) -> None:
        """↑ to an input, ↓ to a consumer (the one nearest below or above), ←→ to the next box of the layer."""
        picture, cursor = self.picture, self.cursor
        if picture is None or cursor is None:
            return
        box = picture.boxes[cursor]
        if direction in ("left", "right"):
            layer = picture.ranks[box.rank]
            at = layer.index(cursor) + (1 if direction == "right" else -1)
            if 0 <= at < len(layer):
                self._go(layer[at])
            return
        others = self._inputs(cursor) if direction == "up" else self._consumers(cursor)
        if not others:
            return
        drawn = [n for n in others if n in picture.boxes]
        if not drawn:  # past the picture's edge: draw it around the cursor, where they are
            self._centre(cursor)
            picture = self.picture
            assert picture is not None  # (_centre made it)
            drawn = [n for n in others if n in picture.boxes] or others[:1]
        middle = picture.boxes[cursor].left + picture.boxes[cursor].width / 2
        self._go(min(drawn, key=lambda n: abs(picture.boxes[n].left + picture.boxes[n].width / 2 - middle)))

    def action_choose(self) -> None:
        if self.cursor is not None:
            self.post_message(self.Chosen(self.cursor))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.picture is None:
            return
        x, y = offset.x + self.scroll_offset.x, offset.y + self.scroll_offset.y
        for node, box in self.picture.boxes.items():
            if box.left <= x <= box.right and box.top <= y <= box.bottom:
                if node == self.cursor:
                    self.action_choose()
                else:
                    self._go(node)
                return

    # --- rendering -------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        if self._stale:
            self._draw()
        width = self.scrollable_content_region.width
        row = y + self.scroll_offset.y
        x = self.scroll_offset.x
        if self._shown_at != (x, width):  # scrolled or resized: crop again
            self._shown_at, self._shown = (x, width), {}
        strip = self._shown.get(row)
        if strip is None:
            base, drawing = self._base(), self._drawing
            if drawing is not None:
                rows = drawing.layout.height
                strip = drawing.row(row) if row < rows else Strip.blank(width, base)
            else:
                strip = self._note[row] if row < len(self._note) else Strip.blank(width, base)
            strip = self._shown[row] = strip.crop_extend(x, x + width, base)
        return strip

    def _base(self) -> Style:
        """The widget's own style (worked out from the CSS once: render_line asks on every line)."""
        if self._style is None:
            self._style = self.rich_style
        return self._style

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        """Fit the scrollbars only when the view's size or the picture's changed: Textual's ScrollView fits and
        repaints them on every layout of the screen (the app lays out on most steps; 6-8 ms of a step here), as
        it compares the picture's size with the one the compositor passes, which is the view's."""
        key = (size, container_size, self.virtual_size)
        if key == self._sized:
            return False
        self._sized = key
        return super()._size_updated(size, virtual_size, container_size, layout)

    def notify_style_update(self) -> None:
        self._drawing, self._stale, self._style = None, True, None  # (the rows hold the widget's style)
        super().notify_style_update()
