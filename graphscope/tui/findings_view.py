"""FindingsView: what looks wrong in the run so far (NaN/Inf origin, grads not zeroed, dead ReLUs, vanishing and
exploding grads), each with its pass, node and line; enter jumps to the finding's node."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from graphscope.trace.record.model import FINDING_TITLES, Finding

from .moment import Moment
from .node_label import one_line

NONE_YET = (
    "No findings so far: no NaN or Inf, no grads piling up without zeroing, no dead ReLU, no vanishing "
    "or exploding grad."
)


class FindingsView(OptionList):
    """One option per finding at the moment's cursor, worked out again when the cursor or the record
    has moved; highlighting one shows its node, enter posts `Chosen` to go there."""

    DEFAULT_CSS = """
    FindingsView { height: 1fr; border: none; background: $surface; padding: 0; }
    FindingsView:focus { border: none; }
    """

    class Highlighted(Message):
        """The cursor is on a finding with a node: show that node."""

        def __init__(self, node: int):
            super().__init__()
            self.node = node

    class Chosen(Message):
        """Enter on a finding with a node: go to it in the graph."""

        def __init__(self, node: int):
            super().__init__()
            self.node = node

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.moment: Moment | None = None
        self.findings: list[Finding] = []
        self._key: tuple = (None,)

    def show_findings(self, moment: Moment) -> None:
        """List the findings at the moment's cursor (worked out again only when it or the record moved)."""
        self.moment = moment
        record = moment.record
        key = (moment.state, len(record.nodes), len(record.passes), len(record.optimizer))
        if key == self._key:
            return
        self._key = key
        was = self.highlighted
        self.findings = moment.findings()
        self.clear_options()
        if not self.findings:
            self.add_option(Option(Text(NONE_YET, "dim"), disabled=True))
            return
        self.add_options([Option(self._prompt(f)) for f in self.findings])
        with self.prevent(OptionList.OptionHighlighted):  # the details stay on the cursor's node
            self.highlighted = min(was or 0, len(self.findings) - 1)

    def set_moment(self, moment: Moment) -> None:
        self.show_findings(moment)

    def reveal_node(self, node_id: int) -> bool:
        """Put the cursor on the first finding at this node, if there is one."""
        for i, finding in enumerate(self.findings):
            if finding.node == node_id:
                with self.prevent(OptionList.OptionHighlighted):  # the node is shown already
                    self.highlighted = i
                return True
        return False

    def _prompt(self, finding: Finding) -> Text:
        """Its title and pass; its node and line; what it says (every name literal)."""
        style = "bold red" if finding.kind.startswith("nan") else "bold yellow"
        text = Text.assemble((FINDING_TITLES.get(finding.kind, finding.kind), style))
        if finding.pass_index is not None:
            text.append(f"  pass {finding.pass_index}", "bold")
        where = []
        assert self.moment is not None  # show_findings set it
        node = self.moment.record.nodes.get(finding.node) if finding.node is not None else None
        if node is not None:
            where.append(f"{one_line(node.parameter or node.op)} #{node.id}")
        if finding.site is not None:
            where.append(f"{one_line(finding.site.file.rsplit('/', 1)[-1])}:{finding.site.line}")
        if where:
            text.append("\n" + "  ".join(where), "cyan")
        text.append("\n" + one_line(finding.message))
        return text

    def _node_at(self, index: int | None) -> int | None:
        if index is None or not 0 <= index < len(self.findings):
            return None
        node = self.findings[index].node
        return node if node is not None and self.moment is not None and node in self.moment.record.nodes else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        node = self._node_at(event.option_index)
        if node is not None:
            self.post_message(self.Highlighted(node))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        node = self._node_at(event.option_index)
        if node is not None:
            self.post_message(self.Chosen(node))
