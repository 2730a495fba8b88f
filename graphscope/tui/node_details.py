"""NodeDetails: the right pane: the selected node's header, then its value, grad, grad flow, saved tensors and source."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static, TabbedContent, TabPane

from graphscope.trace.record import CONSTANT

from .grad_flow import GradFlow
from .moment import Moment
from .node_header import NodeHeader
from .node_label import one_line
from .source_view import SourceView
from .tensor_preview import Fetch
from .tensor_view import TensorView


class NodeDetails(Vertical):
    """Shows one node of the record; `fetch` (a live session's) lets big tensors be paged through."""

    DEFAULT_CSS = """
    NodeDetails {
        height: 1fr;
        & TabbedContent { height: 1fr; }
        & TabPane { padding: 0; height: 1fr; }
        & ContentSwitcher { height: 1fr; }
    }
    """

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.node_id: int | None = None
        self._target: tuple | None = None
        self._drawn: set[str] = set()

    def compose(self) -> ComposeResult:
        yield NodeHeader()
        with TabbedContent(id="detail-tabs"):
            with TabPane("Value", id="tab-value"):
                yield TensorView("value", id="value-view")
            with TabPane("Grad", id="tab-grad"):
                yield TensorView("grad", id="grad-view")
            with TabPane("Flow", id="tab-flow"), VerticalScroll():
                yield GradFlow()
            with TabPane("Saved", id="tab-saved"), VerticalScroll():
                yield Static(id="saved")
            with TabPane("Source", id="tab-source"), VerticalScroll():
                yield SourceView()

    def show(self, moment: Moment, node_id: int | None, fetch: Fetch | None = None) -> None:
        """Show a node: the header and the tab on screen now; the other tabs when they are opened
        (a step redraws only what is visible)."""
        self.node_id = node_id
        self._target = (moment, node_id, fetch)
        self._drawn = set()
        node = moment.record.nodes.get(node_id) if node_id is not None else None
        self.query_one(NodeHeader).show(moment, node)
        self._draw(self.query_one(TabbedContent).active or "tab-value")

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.tabbed_content.id == "detail-tabs" and event.pane is not None:
            self._draw(event.pane.id)

    def _draw(self, tab: str) -> None:
        if self._target is None or tab in self._drawn:
            return
        self._drawn.add(tab)
        moment, node_id, fetch = self._target
        node = moment.record.nodes.get(node_id) if node_id is not None else None
        live = fetch if moment.live and moment.state is not None and moment.state.kind == "paused" else None
        if tab == "tab-value":
            view = self.query_one("#value-view", TensorView)
            if node is None:
                view.show(None, None, absent="")
            else:
                view.show(node.output, node.id, live,
                          absent="This input is a Python value, not a tensor." if node.op == CONSTANT
                          else "The record holds no value for this node.")
        elif tab == "tab-grad":
            view = self.query_one("#grad-view", TensorView)
            if node is None:
                view.show(None, None, absent="")
                return
            grad = moment.grad_of(node.id)
            if grad is not None:
                absent = ""
            elif moment.index.step_position(node.id) is not None:
                absent = "No grad yet: its backward step has not run (press n to step)."
            elif not node.requires_grad:
                absent = "No grad: this tensor does not require grad."
            else:
                absent = "No grad reached this node in the record."
            view.show(grad, node.id, live if grad is not None else None, absent=absent)
        elif tab == "tab-flow":
            self.query_one(GradFlow).show(moment, node_id if node is not None else None)
        elif tab == "tab-saved":
            self.query_one("#saved", Static).update(saved_text(node))
        elif tab == "tab-source":
            self.query_one(SourceView).show(node.site if node is not None else None)


def saved_text(node) -> Text:
    """The names of the arrays a node saved for backward, and a ReLU's dead units."""
    if node is None:
        return Text("")
    if not node.saved:
        return Text("Nothing saved for backward.", "dim")
    text = Text("Saved for backward:\n", "dim")
    for name in node.saved:
        text.append("  • ")
        text.append(one_line(name), "bold")
        text.append("\n")
    if node.dead_units is not None:
        dead, units = node.dead_units
        text.append(f"\n{dead} of {units} units are zero for the whole batch (dead ReLU units)",
                    "yellow" if dead else "dim")
    return text
