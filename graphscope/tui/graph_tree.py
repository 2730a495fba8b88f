"""GraphTree: the graph from each pass's loss down to the leaves; a node already shown elsewhere is a link to it."""

from __future__ import annotations

from collections import deque

from rich.text import Text

from graphscope.trace.record.model import CONSTANT

from .moment import Moment
from .node_label import node_text
from .outline import Outline, OutlineItem
from .passes_view import not_kept_note
from .record_index import Root
from .wording import counted

# How many levels of the current pass's graph are open when it is first shown, and at most how
# many rows that opens (a level is opened whole, then no more once past it).
OPEN_LEVELS = 3
OPEN_ROWS = 5000


class GraphTree(Outline):
    """Roots are the backward passes' roots; a node's children are its inputs, added when it is
    expanded. The graph is a DAG, so each node is shown once (its first appearance) and every
    later appearance is a link row that jumps there: unrolling a DAG in full is exponential."""

    DEFAULT_CSS = """
    GraphTree { }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self.home: dict[int, OutlineItem] = {}
        self._roots_key: tuple = ()

    # --- building ------------------------------------------------------------------------------

    def show_roots(self, moment: Moment, roots: list[Root]) -> None:
        """Rebuild from these roots, as far as known at the moment's cursor, when they differ from
        the ones shown (keeps the cursor's node)."""
        before, self.moment = self.moment, moment
        roots = moment.known_roots(roots)
        key = tuple((r.pass_index, r.node, r.sinks) for r in roots)
        if key == self._roots_key:
            self.repaint_marks_since(before)  # a row shows the moment by its markers alone
            return
        selected = self.cursor_item.node if self.cursor_item is not None else None
        self._roots_key = key
        self.home = {}
        items = []
        current = moment.state.pass_index if moment.state is not None else None
        record = moment.record
        trimmed = sorted(p.index for p in moment.known_passes() if not p.detailed)
        shown = {r.pass_index for r in roots}
        for root in roots:
            missing = [i for i in trimmed if i not in shown and i < root.pass_index]
            trimmed = [i for i in trimmed if i not in missing]
            if missing:
                items.append(self._note(missing))
            if root.node is not None:
                item = self._node_item(root.node, None)
                items.append(item)
            else:
                position = moment.index.pass_list_index(root.pass_index)
                why = "forward, no backward yet" if position is None else "its backward was not kept"
                label = Text.assemble(
                    (f"pass {root.pass_index}", "bold"), (f" · {why} · {counted(len(root.sinks), 'output')}", "dim")
                )
                item = OutlineItem("group", label=label, expandable=bool(root.sinks))
                item.children = [self._node_item(s, item) for s in root.sinks]
                items.append(item)
        missing = [i for i in trimmed if i not in shown]
        if missing:
            items.append(self._note(missing))
        # The current pass (or the last one) opens a few levels down from its root, as a
        # debugger shows the frame it stopped in.
        graphs = [item for item in items if item.kind != "note"]
        for item, root in zip(graphs, roots):
            position = moment.index.pass_list_index(root.pass_index)
            if position == current or len(graphs) == 1 or (current is None and root is roots[-1]):
                self._open(item, OPEN_LEVELS)
        self.set_roots(items)
        if selected is not None and selected in record.nodes:
            self.reveal_node(selected)

    @staticmethod
    def _note(indices: list[int]) -> OutlineItem:
        """A row saying why these passes have no graph here."""
        return OutlineItem("note", label=Text(not_kept_note(indices), "dim italic"))

    def show_loading(self, count: int) -> None:
        """A note while a big record's roots are found."""
        self._roots_key = ()
        self.home = {}
        self.set_roots([OutlineItem("note", label=Text(f"indexing {counted(count, 'node')}…", "dim"))])

    def _open(self, item: OutlineItem, levels: int) -> None:
        """Expand `item` and its first appearances `levels` deep (links and leaves stay closed), a
        level at a time, until OPEN_ROWS rows are open: in a huge forward (a million nodes) the
        rows past the first screens stay closed until asked for."""
        frontier = [item]
        opened = 0
        for _ in range(levels):
            below: list[OutlineItem] = []
            for it in frontier:
                if opened >= OPEN_ROWS:
                    return
                if it.expandable and it.kind in ("node", "group"):
                    self._load(it)
                    it.expanded = bool(it.children)
                    below.extend(it.children or ())
                    opened += len(it.children or ())
            frontier = below

    def _node_item(self, node_id: int, parent: OutlineItem | None) -> OutlineItem:
        """The first appearance of a node becomes its home; later ones are links."""
        if node_id in self.home:
            return OutlineItem("link", node_id, parent=parent)
        inputs = self.moment.record.nodes.inputs_of(node_id) if self.moment is not None else None
        item = OutlineItem("node", node_id, parent=parent, expandable=bool(inputs))
        # expandable is settled when its children are loaded (constants alone leave none)
        self.home[node_id] = item
        return item

    def load_children(self, item: OutlineItem) -> list[OutlineItem]:
        if item.kind != "node" or self.moment is None:
            return item.children or []
        nodes = self.moment.record.nodes
        inputs = nodes.inputs_of(item.node)
        if inputs is None:
            return []
        # Python values passed to the op (an exponent, keepdim=False) are not graph edges: the
        # details pane lists them; the tree shows tensors only.
        return [self._node_item(i, item) for i in inputs if nodes.op_of(i) != CONSTANT]

    # --- finding a node ------------------------------------------------------------------------

    def reveal_node(self, node_id: int) -> bool:
        """Expand the tree down to the node's home and put the cursor there."""
        expanded = False
        if node_id not in self.home:
            path = self._path_from_shown(node_id)
            if path is None:
                return False
            for step in path[:-1]:
                ancestor = self.home[step]
                self._load(ancestor)
                ancestor.expanded = expanded = True
        item = self.home.get(node_id)
        if item is None:
            return False
        self.reveal(item, rebuild=expanded)
        return True

    def _path_from_shown(self, node_id: int) -> list[int] | None:
        """Node ids from the nearest node already in the tree down to `node_id` (following consumers up)."""
        assert self.moment is not None  # the tree shows a moment's record
        consumers = self.moment.index.consumers()
        came_from: dict[int, int] = {node_id: node_id}
        queue = deque([node_id])
        while queue:
            current = queue.popleft()
            for up in consumers.get(current, ()):
                if up in came_from:
                    continue
                came_from[up] = current
                if up in self.home:
                    path = [up]
                    while path[-1] != node_id:
                        path.append(came_from[path[-1]])
                    return path
                queue.append(up)
        return None

    # --- rendering -----------------------------------------------------------------------------

    def item_text(self, item: OutlineItem, width: int) -> Text:
        moment = self.moment
        if item.kind in ("group", "note") or moment is None or item.node is None:  # (other rows have a node)
            return item.label or Text("")
        nodes = moment.record.nodes
        node = nodes.get(item.node)
        if item.kind == "link":
            number = f" #{item.node}"
            link = Text.assemble("↪ ", node_text(node, None, nodes, width - 2 - len(number)), number)
            link.stylize("dim italic")
            return link
        if item.parent is None and node is not None:
            title = f"pass {node.pass_index} "
            return Text.assemble(
                (title, "bold blue"), node_text(node, moment.marks(item.node), nodes, width - len(title))
            )
        return node_text(node, moment.marks(item.node), nodes, width)
