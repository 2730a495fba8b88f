"""EventDetails: the details pane for an optimizer event chosen in the timeline (what it did to each parameter)."""

from __future__ import annotations

from rich.text import Text

from .moment import Moment
from .node_label import one_line
from .optimizer_words import change_text, event_line
from .text_pane import TextPane


def event_text(moment: Moment, event) -> Text:
    """The event's line, when it ran, then each parameter's before, update and after (a reset's `.grad`)."""
    text = event_line(event)
    begun = event.passes
    text.append(
        "\n" + (f"after the backward of pass {begun - 1}" if begun else "before the first backward pass"), "dim"
    )
    if not event.params:
        text.append("\n\nIts values were not kept (the pass is outside the recording window).", "dim")
    for change in event.params:
        text.append("\n\n")
        text.append(one_line(change.label), "bold cyan")
        text.append("\n")
        text.append_text(change_text(moment, event, change))
    return text


class EventDetails(TextPane):
    """Shown in place of a node's tabs while an event row is highlighted."""

    def show(self, moment: Moment, event) -> None:
        self.set_text(event_text(moment, event))
