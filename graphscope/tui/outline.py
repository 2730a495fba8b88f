"""Outline: a lazily expanded, virtually rendered tree of rows; the base of the graph, module and timeline views."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .moment import Moment
from .node_label import marks_text
from .scroll_range import set_scroll_range
from .style_memo import StyleMemo

# Deeper rows than this keep the same indentation and show their depth instead (a 10,000-deep
# chain of nodes must stay readable and cheap).
MAX_INDENT = 12


class OutlineItem:
    """One row of an outline: a node, a link to a node shown elsewhere, a group, or a backward step."""

    __slots__ = ("children", "depth", "event", "expandable", "expanded", "kind", "label", "node", "parent", "step")

    def __init__(
        self,
        kind: str,
        node: int | None = None,
        label: Text | None = None,
        parent=None,
        expandable: bool = False,
        step: int | None = None,
        event=None,
    ):
        self.kind = kind  # "node" | "link" | "group" | "step" | "note" | "event"
        self.node = node
        self.label = label  # groups and notes: their text
        self.parent: OutlineItem | None = parent
        self.children: list[OutlineItem] | None = None  # None until loaded
        self.expanded = False
        self.depth = 0 if parent is None else parent.depth + 1
        self.expandable = expandable
        self.step = step  # timeline rows: the step index in the pass
        self.event = event  # an "event" row: the record's OptimizerEvent


class Outline(ScrollView, can_focus=True):
    """Rows are kept as one flat list of the visible items; expanding splices a node's visible
    descendants in, and only the lines on screen are rendered, so 100,000 rows stay cheap."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("enter", "activate", "Expand/open", show=False),
        Binding("right,l", "expand", "Expand", show=False),
        Binding("left,h", "collapse", "Collapse", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {"outline--cursor", "outline--guide"}

    MARKED_KIND: ClassVar[str] = "node"  # the kind of row whose gutter shows the node's markers

    DEFAULT_CSS = """
    Outline {
        background: $surface;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        & > .outline--cursor { background: $block-cursor-blurred-background; }
        &:focus > .outline--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
        & > .outline--guide { color: $text-muted; }
    }
    """

    cursor: reactive[int] = reactive(0, always_update=True, init=False, repaint=False)  # watch_cursor repaints two rows

    class ItemMessage(Message):
        """A message about one item of an outline."""

        def __init__(self, outline: Outline, item: OutlineItem):
            super().__init__()
            self.outline = outline
            self.item = item

        @property
        def control(self) -> Outline:
            return self.outline

    class Highlighted(ItemMessage):
        """The cursor moved onto an item."""

    class Activated(ItemMessage):
        """Enter (or a click on the cursor's row) on an item that does something: a link or a step."""

    def __init__(self, *, id: str | None = None, classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self.roots: list[OutlineItem] = []
        self.rows: Sequence[OutlineItem] = []  # a list; a Timeline's are made as they are shown
        self.moment: Moment | None = None
        self._style = StyleMemo(self)
        self._strips: dict = {}  # rendered lines by their text, width, cursor and focus

    # --- what subclasses provide ----------------------------------------------------------------

    def load_children(self, item: OutlineItem) -> list[OutlineItem]:
        """The children of an expandable item, made when it is first expanded."""
        return []

    def item_text(self, item: OutlineItem, width: int) -> Text:
        """The row's text after its indentation and expand icon, in `width` columns (longer is cut)."""
        return item.label or Text("")

    def item_gutter(self, item: OutlineItem) -> Text:
        """The moment's markers before the indentation, on the rows of `MARKED_KIND` (the same
        column on every row: the others get as many blanks)."""
        if item.kind != self.MARKED_KIND or self.moment is None or item.node is None:  # (marked rows have a node)
            return Text("    ")
        return Text.assemble(marks_text(self.moment.marks(item.node)), " ")

    # --- the rows ------------------------------------------------------------------------------

    @property
    def cursor_item(self) -> OutlineItem | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def set_roots(self, roots: list[OutlineItem]) -> None:
        """Replace every row; expanded roots show their children."""
        self.roots = roots
        self._rebuild()
        self.cursor = min(self.cursor, max(len(self.rows) - 1, 0))

    def set_moment(self, moment: Moment) -> None:
        """New state or breakpoints: repaint the markers."""
        self.moment = moment
        self.refresh()

    def repaint_marks_since(self, before: Moment | None) -> None:
        """Repaint the rows on screen whose markers differ from `before`'s (a step changes two or three),
        for an outline whose rows show the moment through their markers alone."""
        moment = self.moment
        if before is None or moment is None:
            self.refresh()
            return
        top = self.scroll_offset.y
        for row in range(top, min(top + self.size.height, len(self.rows))):
            item = self.rows[row]
            node = item.node
            if item.kind == self.MARKED_KIND and node is not None and before.marks(node) != moment.marks(node):
                self.refresh_line(row)

    def expand_item(self, item: OutlineItem) -> None:
        if not item.expandable or item.expanded:
            return
        self._load(item)
        item.expanded = True
        try:
            at = self._row_index(item)
        except ValueError:
            return
        rows = self.rows
        assert isinstance(rows, list)  # only a tree's items expand, and a tree's rows are a list
        rows[at + 1 : at + 1] = list(self._visible_below(item))
        self._resized()

    def collapse_item(self, item: OutlineItem) -> None:
        if not item.expanded:
            return
        item.expanded = False
        try:
            at = self._row_index(item)
        except ValueError:
            return
        end = at + 1
        rows = self.rows
        assert isinstance(rows, list)  # only a tree's items expand, and a tree's rows are a list
        while end < len(rows) and rows[end].depth > item.depth:
            end += 1
        del rows[at + 1 : end]
        if self.cursor > at:
            self.cursor = at if self.cursor < end else self.cursor - (end - at - 1)
        self._resized()

    def reveal(self, item: OutlineItem, rebuild: bool = False) -> None:
        """Expand the item's ancestors and put the cursor on it (`rebuild`: items were expanded
        behind the rows' back)."""
        parent = item.parent
        hidden = rebuild
        while parent is not None:
            if not parent.expanded:
                self._load(parent)
                parent.expanded = True
                hidden = True
            parent = parent.parent
        if hidden:
            self._rebuild()
        with contextlib.suppress(ValueError):
            self.cursor = self._row_index(item)

    def _load(self, item: OutlineItem) -> None:
        if item.children is None:
            item.children = self.load_children(item)
            if not item.children:
                item.expandable = False

    def _row_index(self, item: OutlineItem) -> int:
        cursor = self.cursor_item
        if cursor is item:
            return self.cursor
        return self.rows.index(item)

    @staticmethod
    def _visible_below(item: OutlineItem):
        """The visible descendants of an expanded item, in row order (iterative: graphs are deep)."""
        stack = [iter(item.children or ())]
        while stack:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
                continue
            yield child
            if child.expanded and child.children:
                stack.append(iter(child.children))

    def _rebuild(self) -> None:
        rows: list[OutlineItem] = []
        for root in self.roots:
            rows.append(root)
            if root.expanded:
                rows.extend(self._visible_below(root))
        self.rows = rows
        self._resized()

    def _resized(self) -> None:
        set_scroll_range(self, Size(self.size.width, len(self.rows)))  # rows come and go: the box stays
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self.rows))

    # --- cursor --------------------------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.rows) - 1)) if self.rows else 0

    def watch_cursor(self, previous: int, value: int) -> None:
        self.scroll_to_region(Region(0, value, max(self.size.width, 1), 1), animate=False, force=True, x_axis=False)
        self.refresh_line(previous)  # the rows the cursor left and reached (a scroll repaints them all)
        self.refresh_line(value)
        item = self.cursor_item
        if item is not None:
            self.post_message(self.Highlighted(self, item))

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_page_up(self) -> None:
        self.cursor -= max(self.size.height - 1, 1)

    def action_page_down(self) -> None:
        self.cursor += max(self.size.height - 1, 1)

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = len(self.rows) - 1

    def action_expand(self) -> None:
        item = self.cursor_item
        if item is not None:
            self.expand_item(item)

    def action_collapse(self) -> None:
        item = self.cursor_item
        if item is None:
            return
        if item.expanded:
            self.collapse_item(item)
        elif item.parent is not None:
            self.reveal(item.parent)

    def action_activate(self) -> None:
        item = self.cursor_item
        if item is None:
            return
        if item.kind in ("link", "step"):
            self.post_message(self.Activated(self, item))
        elif item.expanded:
            self.collapse_item(item)
        else:
            self.expand_item(item)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = offset.y + self.scroll_offset.y
        if row >= len(self.rows):
            return
        if row == self.cursor:
            self.action_activate()
        else:
            self.cursor = row

    # --- rendering -----------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        self._style.clear()
        self._strips = {}
        super().notify_style_update()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width  # the scrollbar, when shown, is not ours to draw on
        row = y + self.scroll_offset.y
        base = self._style.get()
        if row >= len(self.rows):
            return Strip.blank(width, base)
        item = self.rows[row]
        depth = item.depth
        if depth <= MAX_INDENT:
            indent = Text("  " * depth)
        else:
            indent = Text(f"{depth:>{2 * MAX_INDENT - 1}}›", self._style.get("outline--guide"))
        icon = ("▾ " if item.expanded else "▸ ") if item.expandable else "  "
        gutter = self.item_gutter(item)
        room = width - gutter.cell_len - indent.cell_len - len(icon)
        text = Text.assemble(gutter, indent, (icon, "dim"), self.item_text(item, room), no_wrap=True, end="")
        key = (text.plain, tuple(text.spans), width, row == self.cursor, self.has_focus)
        strip = self._strips.get(key)
        if strip is None:  # a step changes a few rows' markers: the others are drawn from here
            text.truncate(width, overflow="ellipsis", pad=True)
            if row == self.cursor:
                text.stylize(self._style.get("outline--cursor"))
            segments = list(text.render(self.app.console))
            strip = Strip(segments, width).apply_style(base).crop_extend(0, width, base)
            if len(self._strips) > 2048:
                self._strips.clear()
            self._strips[key] = strip
        return strip
