"""FindDialog: find a node by op, name, module, parameter or `file:line`; enter jumps to it."""

from __future__ import annotations

from typing import ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from .moment import Moment
from .node_label import node_row, one_line
from .record_index import SearchResult
from .wording import counted

SHOWN = 50


class FindDialog(ModalScreen[int | None]):
    """Searches on every keystroke over the whole record; dismisses with the chosen node id."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Close"),
        Binding("down", "focus_results", "Results", show=False),
    ]

    DEFAULT_CSS = """
    FindDialog {
        align: center top;
        & > Vertical {
            margin-top: 2;
            width: 90%;
            max-width: 100;
            height: auto;
            max-height: 80%;
            border: thick $primary;
            background: $surface;
        }
        & #find-count { height: 1; padding: 0 1; color: $text-muted; }
        & OptionList { height: auto; max-height: 20; border: none; }
    }
    """

    def __init__(self, moment: Moment, query: str = ""):
        super().__init__()
        self.moment = moment
        self.initial = query
        self.result: SearchResult | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "find a node"
            yield Input(self.initial, placeholder="op, name, module, parameter, file:line or #id", id="find-input")
            yield Static(id="find-count")
            yield OptionList(id="find-results")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        if self.initial:
            self.run_query(self.initial)

    @on(Input.Changed, "#find-input")
    def changed(self, event: Input.Changed) -> None:
        self.run_query(event.value)

    @work(thread=True, exclusive=True, group="find")
    def run_query(self, query: str) -> None:
        """Search off the UI thread (a grown live record rebuilds its search text first)."""
        result = self.moment.index.search(query)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, query, result)

    def _show(self, query: str, result: SearchResult) -> None:
        self.result = result
        results = self.query_one(OptionList)
        results.clear_options()
        record = self.moment.record
        options = []
        for node_id in result.nodes[:SHOWN]:
            node = record.nodes.get(node_id)
            label = node_row(node, self.moment.marks(node_id), self.moment.record.nodes)
            extra = []
            if node is not None and node.module:
                extra.append(one_line(node.module))
            if node is not None and node.site is not None:
                extra.append(one_line(f"{node.site.file.rsplit('/', 1)[-1]}:{node.site.line}"))
            label.append(f"  #{node_id}  " + "  ".join(extra), "dim")
            options.append(Option(label, id=str(node_id)))
        results.add_options(options)
        if options:
            results.highlighted = 0
        count = self.query_one("#find-count", Static)
        if not query.strip():
            count.update("")
        elif result.total > len(options):
            count.update(Text(f"{counted(result.total, 'match', 'matches')}, the first {len(options)} shown"))
        else:
            count.update(Text(counted(result.total, "match", "matches")))

    @on(Input.Submitted, "#find-input")
    def submitted(self) -> None:
        results = self.query_one(OptionList)
        if results.highlighted is not None and results.option_count:
            self.dismiss(int(cast(str, results.get_option_at_index(results.highlighted).id)))  # options have ids

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(cast(str, event.option.id)))  # every option is made with its node's id

    def action_focus_results(self) -> None:
        self.query_one(OptionList).focus()
