"""Timeline: the current pass's backward order as a flat list of steps; enter travels to a step."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from .moment import Moment
from .node_label import node_text
from .outline import Outline, OutlineItem


class StepRows(Sequence):
    """The rows of a pass's order, each made when first shown: a 100,000-step pass costs nothing up front."""

    def __init__(self, order: tuple[int, ...], end: OutlineItem):
        self.order = order
        self.end = end
        self._made: dict[int, OutlineItem] = {}

    def __len__(self) -> int:
        return len(self.order) + 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if i == len(self.order):
            return self.end
        if not 0 <= i < len(self.order):
            raise IndexError(i)
        item = self._made.get(i)
        if item is None:
            item = self._made[i] = OutlineItem("step", self.order[i], step=i)
        return item

    def index(self, item, *args) -> int:
        if item is self.end:
            return len(self.order)
        if item.step is not None and self._made.get(item.step) is item:
            return item.step
        raise ValueError(item)


class Timeline(Outline):
    """Step i is the i-th node the backward runs; rows before the frontier have known grads."""

    MARKED_KIND = "step"

    DEFAULT_CSS = """
    Timeline { }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self._key: tuple = (None,)
        self._order: tuple[int, ...] = ()

    def show_pass(self, moment: Moment) -> None:
        """List the steps of the state's pass (rebuilt when the pass or its order changes)."""
        self.moment = moment
        state = moment.state
        position = state.pass_index if state is not None else None
        passes = moment.record.passes
        order = passes[position].order if position is not None and position < len(passes) else ()
        key = (position, id(order), len(order))
        if key != self._key:
            self._key = key
            if position is not None:
                end = OutlineItem("note", label=Text(f"end of pass {passes[position].index}", "dim"), step=len(order))
            else:
                end = OutlineItem("note", label=Text("no backward pass yet", "dim"))
            self._order = order
            self.roots = []
            self.rows = StepRows(order, end)
            self._resized()
        else:
            self.refresh()
        if state is not None and state.step is not None:
            self.cursor = state.step

    def reveal_node(self, node_id: int) -> bool:
        if self.moment is None or self._key[0] is None:
            return False
        row = self.moment.index.positions(self._key[0]).get(node_id)
        if row is None:
            return False
        self.cursor = row
        return True

    def item_text(self, item: OutlineItem, width: int) -> Text:
        if item.kind != "step" or self.moment is None:
            return item.label or Text("")
        digits = len(str(len(self.rows)))
        nodes = self.moment.record.nodes
        return Text.assemble((f"{item.step + 1:>{digits}} ", "dim"),
                             node_text(nodes.get(item.node), self.moment.marks(item.node), nodes, width - digits - 1))

    def action_activate(self) -> None:
        item = self.cursor_item
        if item is not None and item.step is not None:
            self.post_message(self.Activated(self, item))
