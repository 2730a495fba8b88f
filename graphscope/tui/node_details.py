"""NodeDetails: the right pane: the selected node's header, then its value, grad, the rule of its backward step,
grad flow, saved tensors and source; the element of its tensors under the cursor (the one the Rule tab explains);
or an optimizer event chosen in the timeline."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static, TabbedContent, TabPane

from graphscope.trace.record.model import CONSTANT

from .against_view import AgainstView
from .event_details import EventDetails
from .grad_accumulation import GradAccumulation
from .grad_flow import GradFlow
from .moment import Moment
from .node_args import args_words
from .node_header import NodeHeader
from .node_label import one_line, shape_text, short_dtype
from .number_text import fit_number
from .rule_view import RuleView
from .source_view import SourceView
from .tensor_preview import TensorPreview
from .tensor_view import TensorView
from .wording import counted


class NodeDetails(Vertical):
    """Shows one node as the record holds it at the moment's cursor. The tab shown is the one last
    chosen while stepping (the Rule tab at first) or while not (the Value tab at first); a pass's
    end is stepping when the steps before it were."""

    DEFAULT_CSS = """
    NodeDetails {
        height: 1fr;
        & TabbedContent { height: 1fr; }
        & TabPane { padding: 0; height: 1fr; }
        & ContentSwitcher { height: 1fr; }
    }
    """

    def __init__(self, *, id: str | None = None, against: bool = False):
        super().__init__(id=id)
        self.against = against  # an Against tab, first while not stepping: a run is held against this one
        self.node_id: int | None = None
        self.element = 0  # the flat index of the element under the tables' cursor
        self._target: tuple | None = None
        self._drawn: set[str] = set()
        # on a backward step or not: the tab to show
        self._tab_for = {True: "tab-rule", False: "tab-against" if against else "tab-value"}
        self._stepping = False
        self._switching: str | None = None  # a tab this pane activated itself (not the user's choice)

    def compose(self) -> ComposeResult:
        yield NodeHeader()
        yield EventDetails()
        with TabbedContent(id="detail-tabs"):
            with TabPane("Value", id="tab-value"):
                yield TensorView("value", id="value-view")
            with TabPane("Grad", id="tab-grad"):
                yield GradAccumulation()
                yield TensorView("grad", id="grad-view")
            with TabPane("Rule", id="tab-rule"):
                yield RuleView()
            with TabPane("Flow", id="tab-flow"), VerticalScroll():
                yield GradFlow()
            with TabPane("Saved", id="tab-saved"), VerticalScroll():
                yield Static(id="saved")
            with TabPane("Source", id="tab-source"), VerticalScroll():
                yield SourceView()
            if self.against:
                with TabPane("Against", id="tab-against"), VerticalScroll():
                    yield AgainstView()

    def on_mount(self) -> None:
        self._showing_event(False)

    def _showing_event(self, event: bool) -> None:
        self.query_one(EventDetails).display = event
        self.query_one(NodeHeader).display = self.query_one(TabbedContent).display = not event

    def show_event(self, moment: Moment, event) -> None:
        """Show an optimizer event (a timeline row) instead of a node."""
        self.node_id = None
        self._target = None
        self.query_one(EventDetails).show(moment, event)
        self._showing_event(True)

    def show(self, moment: Moment, node_id: int | None) -> None:
        """Show a node: the header and the tab on screen now; the other tabs when they are opened
        (a step redraws only what is visible)."""
        self._showing_event(False)
        if node_id != self.node_id:
            self.element = 0
        self.node_id = node_id
        self._target = (moment, node_id)
        self._drawn = set()
        node = moment.record.nodes.get(node_id) if node_id is not None else None
        self.query_one(NodeHeader).show(moment, node)
        tabs = self.query_one(TabbedContent)
        if moment.on_step or not moment.at_pass_end:  # a pass's end keeps the tab the steps before it showed
            self._stepping = moment.on_step
        wanted = self._tab_for[self._stepping]
        if tabs.active != wanted:
            self._switching = wanted
            tabs.active = wanted
        self._draw(wanted)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.tabbed_content.id == "detail-tabs" and event.pane is not None and event.pane.id is not None:
            if event.pane.id == self._switching:
                self._switching = None
            else:  # the user's choice: kept for the next node while stepping (or not)
                self._tab_for[self._stepping] = event.pane.id
            self._draw(event.pane.id)

    # --- the element under the cursor ------------------------------------------------------------

    def move_element(self, delta: int) -> None:
        """The previous or next element of the node's tensors (row-major)."""
        self.set_element(self.element + delta)

    def set_element(self, element: int) -> None:
        """Put the tables' cursor on an element; redraw what depends on it."""
        if self._target is None:
            return
        moment, node_id = self._target
        node = moment.record.nodes.get(node_id) if node_id is not None else None
        numel = node.output.numel if node is not None and node.output is not None else 1
        element = max(0, min(element, numel - 1))
        if element == self.element:
            return
        self.element = element
        self._drawn = set()
        self._draw(self.query_one(TabbedContent).active or "tab-value")

    def on_tensor_preview_element_moved(self, message: TensorPreview.ElementMoved) -> None:
        message.stop()
        self.set_element(message.element)

    def _draw(self, tab: str) -> None:
        if self._target is None or tab in self._drawn:
            return
        self._drawn.add(tab)
        moment, node_id = self._target
        node = moment.record.nodes.get(node_id) if node_id is not None else None
        if tab == "tab-value":
            view = self.query_one("#value-view", TensorView)
            if node is None:
                view.show(None, None, absent="")
            else:
                view.show(
                    node.output,
                    node.id,
                    absent="This input is a Python value, not a tensor."
                    if node.op == CONSTANT
                    else "The record holds no value for this node.",
                    element=self.element,
                )
        elif tab == "tab-grad":
            view = self.query_one("#grad-view", TensorView)
            self.query_one(GradAccumulation).show(moment, node.id if node is not None else None, self.element)
            if node is None:
                view.show(None, None, absent="")
                return
            grad = moment.grad_of(node.id)
            if grad is not None:
                absent = ""
            elif moment.before_backward_of(node.id):
                absent = "No grad yet: the script is held in the forward, before this pass's backward."
            elif moment.index.step_position(node.id) is not None:
                absent = "No grad yet: its backward step has not run (press n to step)."
            elif not node.requires_grad:
                absent = "No grad: this tensor does not require grad."
            else:
                absent = "No grad reached this node in the record."
            view.show(grad, node.id, absent=absent, element=self.element)
        elif tab == "tab-rule":
            self.query_one(RuleView).show(moment, node_id if node is not None else None, self.element)
        elif tab == "tab-flow":
            self.query_one(GradFlow).show(moment, node_id if node is not None else None)
        elif tab == "tab-saved":
            self.query_one("#saved", Static).update(saved_text(node, moment.record.nodes))
        elif tab == "tab-source":
            self.query_one(SourceView).show(node.site if node is not None else None)
        elif tab == "tab-against" and moment.against is not None:
            self.query_one(AgainstView).show(moment.against, node)


def saved_text(node, nodes) -> Text:
    """What a node saved for backward, by the names a user knows: its inputs (by their parameter or
    variable name when they have one), its output, the arguments it kept; the engine's own arrays
    apart, as internals (their names are the engine's, not the script's). A ReLU's dead units too."""
    if node is None:
        return Text("")
    text = Text()
    values = [entry for entry in node.saved if entry == "output" or entry.startswith("input:")]
    internals = [entry for entry in node.saved if entry not in values]
    if values:
        text.append("Saved for backward:\n", "dim")
    for entry in values:
        text.append("  • ")
        if entry == "output":
            text.append("output", "bold")
            text.append(" (its own value)", "dim")
            summary = node.output
        else:
            label, summary = _saved_input(node, nodes, entry)
            text.append_text(label)
        text.append("  ")
        text.append_text(_value_text(summary))
        text.append("\n")
    words = args_words(node, nodes)
    if words:
        text.append("Arguments kept:\n" if values else "Arguments:\n", "dim")
        for word in words:
            text.append("  • ")
            text.append(one_line(word), "magenta")
            text.append("\n")
    if internals:
        text.append("Kept by the engine (its names, not your script's):\n", "dim")
        for name in internals:
            text.append("  • ")
            text.append(one_line(name), "italic")
            text.append("\n")
    if not node.saved:
        text.append("Nothing saved for backward.", "dim")
    if node.dead_units is not None:
        dead, units = node.dead_units
        text.append(
            f"\n{dead} of {counted(units, 'unit')} {'is' if dead == 1 else 'are'} zero for the whole batch"
            " (dead ReLU units)",
            "yellow" if dead else "dim",
        )
    return text


def _saved_input(node, nodes, entry: str):
    """(label, value) of a saved "input:K": its parameter or variable name, else `input K (op #id)`."""
    try:
        k = int(entry.partition(":")[2])
        input_id = node.inputs[k]
    except (ValueError, IndexError):
        return Text(one_line(entry), "bold"), None
    source = nodes.get(input_id)
    if source is None:
        return Text.assemble((f"input {k}", "bold"), (" (not in the record)", "dim")), None
    if source.parameter:
        return Text.assemble((one_line(source.parameter), "bold cyan"), (f"  input {k}", "dim")), source.output
    return Text.assemble((f"input {k}", "bold"), (f" ({one_line(source.op)} #{input_id})", "dim")), source.output


def _value_text(summary) -> Text:
    """Shape and dtype, then the values when there are a few, else their range."""
    if summary is None:
        return Text("no value in the record", "dim")
    text = Text(f"{shape_text(summary)} {one_line(short_dtype(summary.dtype))}", "dim")
    if summary.numel <= 4 and summary.preview.size == summary.numel:
        values = ", ".join(fit_number(v, 9) for v in summary.preview.tolist())
        text.append(f"  [{values}]")
    elif summary.min is not None:
        text.append(f"  {fit_number(summary.min, 9)} … {fit_number(summary.max, 9)}")
    return text
