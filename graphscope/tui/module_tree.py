"""ModuleTree: the nodes grouped by the module path that made them (`model.layers.0` -> its ops and parameters)."""

from __future__ import annotations

from rich.text import Text

from graphscope.trace.record.model import CONSTANT

from .moment import Moment
from .node_label import node_text, one_line
from .outline import Outline, OutlineItem
from .record_index import NO_MODULE
from .wording import counted


class ModuleTree(Outline):
    """One group per module path segment; a module's ops and parameters are listed under it."""

    DEFAULT_CSS = """
    ModuleTree { }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self._by_module: dict[str, list[int]] = {}
        self._submodules: dict[str, list[str]] = {}
        self._count = -1
        self._paths: dict[OutlineItem, str] = {}

    def show_modules(self, moment: Moment) -> None:
        """Group the record's nodes (rebuilt when the record has grown)."""
        self.moment = moment
        count = len(moment.record.nodes)
        if count == self._count:
            self.refresh()
            return
        selected = self.cursor_item.node if self.cursor_item is not None else None
        self._count = count
        self._by_module, self._submodules = moment.index.modules()
        self._paths = {}
        roots = [self._group(path, None) for path in self._submodules.get("", [])]
        if NO_MODULE in self._by_module:
            roots.append(self._group(NO_MODULE, None))
        if len(roots) == 1:
            self._load(roots[0])
            roots[0].expanded = True
        self.set_roots(roots)
        if selected is not None:
            self.reveal_node(selected)

    def _group(self, path: str, parent: OutlineItem | None) -> OutlineItem:
        name = path if parent is None else path.rpartition(".")[2]
        count = len(self._by_module.get(path, ()))
        label = Text.assemble((one_line(name), "bold"), (f"  {counted(count, 'node')}" if count else "", "dim"))
        item = OutlineItem("group", label=label, parent=parent, expandable=True)
        self._paths[item] = path
        return item

    def load_children(self, item: OutlineItem) -> list[OutlineItem]:
        path = self._paths.get(item)
        if path is None:
            return []
        groups = [self._group(sub, item) for sub in self._submodules.get(path, []) if path != NO_MODULE]
        record = self.moment.record.nodes if self.moment is not None else {}
        nodes = [
            OutlineItem("node", n, parent=item)
            for n in self._by_module.get(path, ())
            if n not in record or record[n].op != CONSTANT
        ]
        return groups + nodes

    def reveal_node(self, node_id: int) -> bool:
        if self.moment is None:
            return False
        node = self.moment.record.nodes.get(node_id)
        if node is None:
            return False
        path = node.module or NO_MODULE
        parts = (
            [NO_MODULE]
            if path == NO_MODULE
            else [".".join(path.split(".")[: i + 1]) for i in range(path.count(".") + 1)]
        )
        level = self.roots
        for prefix in parts:
            group = next((g for g in level if self._paths.get(g) == prefix), None)
            if group is None:
                return False
            self._load(group)
            level = group.children or []
        target = next((c for c in level if c.kind == "node" and c.node == node_id), None)
        if target is None:
            return False
        self.reveal(target, rebuild=True)
        return True

    def item_text(self, item: OutlineItem, width: int) -> Text:
        if item.kind == "group" or self.moment is None or item.node is None:  # (other rows have a node)
            return item.label or Text("")
        nodes = self.moment.record.nodes
        return node_text(nodes.get(item.node), self.moment.marks(item.node), nodes, width)
