"""Timeline: the current pass's backward order as a flat list of steps, between the optimizer's events before and
after it; enter travels to a step."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from .moment import Moment
from .node_label import node_text
from .optimizer_words import event_line
from .outline import Outline, OutlineItem


class StepRows(Sequence[OutlineItem]):
    """The rows of a pass's order, each made when first shown: a 100,000-step pass costs nothing up
    front; notes before its first step (the events since the pass before) and after its end."""

    def __init__(
        self,
        order: tuple[int, ...],
        end: OutlineItem,
        before: list[OutlineItem] | None = None,
        after: list[OutlineItem] | None = None,
    ):
        self.order = order
        self.end = end
        self.before = before or []
        self.after = after or []
        self._made: dict[int, OutlineItem] = {}

    def __len__(self) -> int:
        return len(self.before) + len(self.order) + 1 + len(self.after)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if 0 <= i < len(self.before):
            return self.before[i]
        i -= len(self.before)
        if i == len(self.order):
            return self.end
        if i > len(self.order) and i - len(self.order) - 1 < len(self.after):
            return self.after[i - len(self.order) - 1]
        if not 0 <= i < len(self.order):
            raise IndexError(i)
        item = self._made.get(i)
        if item is None:
            item = self._made[i] = OutlineItem("step", self.order[i], step=i)
        return item

    def row_of_step(self, step: int) -> int:
        return len(self.before) + step

    def index(self, item: object, *args: int) -> int:
        if item is self.end:
            return self.row_of_step(len(self.order))
        if isinstance(item, OutlineItem) and item.step is not None and self._made.get(item.step) is item:
            return self.row_of_step(item.step)
        for rows, offset in ((self.before, 0), (self.after, len(self.before) + len(self.order) + 1)):
            for i, row in enumerate(rows):
                if row is item:
                    return offset + i
        raise ValueError(item)


def event_row(event) -> OutlineItem:
    """An optimizer event's row: its line; highlighting it shows the event in the details pane."""
    return OutlineItem("event", label=event_line(event), event=event)


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
        events = moment.optimizer_events()
        key = (position, id(order), len(order), len(events))
        if key != self._key:
            self._key = key
            if position is not None:
                end = OutlineItem("note", label=Text(f"end of pass {passes[position].index}", "dim"), step=len(order))
                k = passes[position].index
                before = [event_row(e) for e in events if e.passes == k]
                after = [event_row(e) for e in events if e.passes == k + 1]
            else:
                end = OutlineItem("note", label=Text("no backward pass yet", "dim"))
                before = [event_row(e) for e in events]
                after = []
            self._order = order
            self.roots = []
            self.rows = StepRows(order, end, before, after)
            self._resized()
        else:
            self.refresh()
        if state is not None and state.step is not None:
            self.cursor = self._step_rows().row_of_step(state.step)

    def _step_rows(self) -> StepRows:
        rows = self.rows
        assert isinstance(rows, StepRows)  # show_pass made them
        return rows

    def reveal_node(self, node_id: int) -> bool:
        if self.moment is None or self._key[0] is None:
            return False
        row = self.moment.index.positions(self._key[0]).get(node_id)
        if row is None:
            return False
        self.cursor = self._step_rows().row_of_step(row)
        return True

    def item_text(self, item: OutlineItem, width: int) -> Text:
        if item.kind != "step" or self.moment is None or item.step is None or item.node is None:  # (steps have both)
            return item.label or Text("")
        digits = len(str(len(self.rows)))
        nodes = self.moment.record.nodes
        return Text.assemble(
            (f"{item.step + 1:>{digits}} ", "dim"),
            node_text(nodes.get(item.node), self.moment.marks(item.node), nodes, width - digits - 1),
        )

    def action_activate(self) -> None:
        item = self.cursor_item
        if item is not None and item.step is not None:
            self.post_message(self.Activated(self, item))
