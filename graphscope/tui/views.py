"""Views: the left pane: the view bar over the graph, modules, timeline, passes, findings, training and dag views,
which one is shown (each but the graph made when first shown), bringing it up to date (a big record's graph roots
are found off the UI thread), and going where a view chose (a node in the graph; a pass: the debuggee's cursor)."""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import ContentSwitcher

from graphscope.trace.record.keep_option import KEEP_ALL

from .findings_view import FindingsView
from .graph_picture import GraphPicture
from .graph_tree import GraphTree
from .module_tree import ModuleTree
from .moment import Moment
from .outline import Outline
from .passes_view import PassesView
from .record_index import RecordIndex
from .timeline import Timeline
from .training_view import TrainingView
from .view_bar import ViewBar

VIEWS = ("graph", "modules", "timeline", "passes", "findings", "training", "picture")
VIEW_TITLES = {
    "graph": "graph",
    "modules": "modules",
    "timeline": "timeline",
    "passes": "passes",
    "findings": "findings",
    "training": "training",
    "picture": "dag",
}
# Where the titles do not fit the pane (80 columns): shortened.
SHORT_TITLES = {
    "graph": "graph",
    "modules": "mod",
    "timeline": "time",
    "passes": "pass",
    "findings": "find",
    "training": "train",
    "picture": "dag",
}
# The views made the first time they are shown (the graph's is made with the pane): they are most of the
# app's widgets, and a start that laid them out and styled them while hidden took about a sixth longer.
MADE_WHEN_SHOWN = {
    "modules": ModuleTree,
    "timeline": Timeline,
    "passes": PassesView,
    "findings": FindingsView,
    "training": TrainingView,
    "picture": GraphPicture,
}
# Views that draw pictures take more of the screen while shown (unless the user set the pane's width).
WIDE_VIEWS = ("training",)

# Records with more nodes than this find the graph's roots off the UI thread (about 50 ms here).
BIG_RECORD = 20_000


class Views(Vertical):
    """Shows one view at a time, at the app's moment (`moment`, which the app sets on every new
    one); the app says when to bring it up to date and where to go (`refresh_view`, `choose`, `reveal`)."""

    class RootsReady(Message):
        """A big record's graph roots are found: the app can settle the state it was showing."""

    def __init__(self, index: RecordIndex, moment: Moment, goto_pass: Callable[[int], bool], *, id: str | None = None):
        super().__init__(id=id)
        self.index = index
        self.moment = moment
        self.goto_pass = goto_pass  # the debuggee's: the cursor to a pass's first step, False where it cannot
        self._finding_roots = False

    def compose(self) -> ComposeResult:
        yield ViewBar()
        with ContentSwitcher(initial="graph", id="views"):
            yield GraphTree(id="graph")

    def on_mount(self) -> None:
        self.query_one(ViewBar).show(VIEWS, VIEW_TITLES, "graph", short=SHORT_TITLES)

    @property
    def current(self) -> str:
        return self.query_one("#views", ContentSwitcher).current or "graph"

    def _current_view(self):
        return self.query_one(f"#{self.current}")

    def refresh_view(self) -> bool:
        """Bring the shown view up to date; False while its data is still being built."""
        moment = self.moment
        view = self.current
        if view == "graph":
            roots = self._graph_roots()
            if roots is None:
                self.query_one(GraphTree).show_loading(len(self.index.record.nodes))
                return False
            self.query_one(GraphTree).show_roots(moment, roots)
        elif view == "modules":
            self.query_one(ModuleTree).show_modules(moment)
        elif view == "timeline":
            self.query_one(Timeline).show_pass(moment)
        elif view == "findings":
            self.query_one(FindingsView).show_findings(moment)
        elif view == "training":
            self.query_one(TrainingView).show_training(moment)
        elif view == "picture":
            self.query_one(GraphPicture).show(moment)
        else:
            self.query_one(PassesView).show_passes(moment)
        return True

    def repaint_marks(self) -> None:
        """New breakpoints: repaint the shown view's markers."""
        if self.current != "passes":
            self._current_view().set_moment(self.moment)

    def _graph_roots(self):
        """The graph tree's roots, or None while a worker finds them (only a big record waits)."""
        roots = self.index.cached_roots()
        if roots is not None or len(self.index.record.nodes) <= BIG_RECORD:
            return roots if roots is not None else self.index.roots()
        if not self._finding_roots:
            self._finding_roots = True
            self._find_roots()
        return None

    @work(thread=True, group="roots")
    def _find_roots(self) -> None:
        self.index.roots()
        self.app.call_from_thread(self._roots_ready)

    def _roots_ready(self) -> None:
        self._finding_roots = False
        self.post_message(self.RootsReady())

    def reveal(self, node_id: int, switch: bool = True) -> bool:
        """Put the shown view's cursor on the node (the graph view when the shown one lacks it)."""
        view = self.current
        if view in ("graph", "modules", "timeline", "picture") and self._current_view().reveal_node(node_id):
            return True
        if not switch and view != "passes":
            return False
        if view != "graph":
            self._switch_to("graph")
        return self.query_one(GraphTree).reveal_node(node_id)

    async def choose(self, view: str, selected: int | None) -> None:
        """Show `view`, with the selected node under its cursor (made first, where it is shown for the first time)."""
        switcher = self.query_one("#views", ContentSwitcher)
        if not switcher.query_children(f"#{view}"):
            await switcher.add_content(MADE_WHEN_SHOWN[view](id=view))
        self._switch_to(view)
        if selected is not None and view not in ("passes", "training"):
            self._current_view().reveal_node(selected)

    def next_view(self) -> str:
        return VIEWS[(VIEWS.index(self.current) + 1) % len(VIEWS)]

    def _switch_to(self, view: str) -> None:
        self.query_one("#views", ContentSwitcher).current = view
        self.set_class(view in WIDE_VIEWS, "-wide")
        self.query_one(ViewBar).show(VIEWS, VIEW_TITLES, view, short=SHORT_TITLES)
        self.refresh_view()
        widget = self.query_one(f"#{view}")
        (widget.query_one("#pass-table") if view == "passes" else widget).focus()

    def on_outline_activated(self, message: Outline.Activated) -> None:
        if message.item.kind == "link" and message.item.node is not None:  # a node shown elsewhere: go there
            message.stop()
            self.query_one(GraphTree).reveal_node(message.item.node)

    def on_findings_view_chosen(self, message: FindingsView.Chosen) -> None:
        self._switch_to("graph")
        self.query_one(GraphTree).reveal_node(message.node)

    def on_graph_picture_chosen(self, message: GraphPicture.Chosen) -> None:
        self._switch_to("graph")
        self.query_one(GraphTree).reveal_node(message.node)

    def on_passes_view_chosen(self, message: PassesView.Chosen) -> None:
        chosen = self.index.record.passes[message.position]
        if not chosen.detailed or chosen.root is None or chosen.root not in self.index.record.nodes:
            self.notify(
                f"Pass {chosen.index} was not kept in full: only its loss and grad norms are in the record "
                f"({KEEP_ALL} to keep every pass).",
                severity="warning",
            )
            return
        self._switch_to("graph")
        self.query_one(GraphTree).reveal_node(chosen.root)

    def on_training_view_chosen(self, message: TrainingView.Chosen) -> None:
        state = self.moment.state  # the app's latest, a running one included
        if state is not None and state.kind.busy:
            self.notify("The script is running: choose a pass when it pauses.", severity="warning")
        elif not self.goto_pass(message.position):
            passes = self.index.record.passes
            number = passes[message.position].index if message.position < len(passes) else message.position
            self.notify(
                f"Pass {number} was not kept in full: only its figures are in the record ({KEEP_ALL} to keep "
                "every pass).",
                severity="warning",
            )
