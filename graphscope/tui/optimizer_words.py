"""The optimizer's events (zero_grad, step, a script's `.grad` reset or update by hand) in words, for the passes
view, the timeline and a parameter's Rule tab."""

from __future__ import annotations

from rich.text import Text

from graphscope.trace.explain.optimizer_step import explain_change
from graphscope.trace.record.inconsistent import InconsistentRecord

from .moment import Moment
from .node_label import one_line

STYLE = "magenta"
# Option values a title leaves out: switched off, or left to the optimizer (the learning rate always shows).
UNSET = ("0", "0.0", "False", "None")


def event_title(event) -> str:
    """`optimizer.step()  SGD(lr=0.1, momentum=0.9)`, `optimizer.zero_grad()  SGD`, `w.grad = None`,
    `w, b updated by the script`."""
    if event.kind == "hand_update":
        return f"{', '.join(one_line(c.label) for c in event.params) or 'parameters'} updated by the script"
    if event.kind == "grad_reset":
        labels = ", ".join(one_line(c.label) for c in event.params) or "a leaf"
        zeroed = any(c.after is not None for c in event.params)
        return f"{labels}{'.grad.zero_()' if zeroed else '.grad = None'}"
    settings = ", ".join(f"{one_line(k)}={one_line(v)}" for k, v in event.settings if k == "lr" or v not in UNSET)
    name = one_line(event.optimizer) or "optimizer"
    return (
        f"optimizer.{event.kind}()  {name}({settings})" if event.kind == "step" else f"optimizer.{event.kind}()  {name}"
    )


def event_short(event) -> str:
    """At most 10 characters, for a table cell: `step SGD`, `zero_grad`, `.grad=None`, `update`."""
    if event.kind == "hand_update":
        return "update"
    if event.kind == "step":
        return f"step {one_line(event.optimizer)}"[:10]
    if event.kind == "zero_grad":
        return "zero_grad"
    return ".grad=None" if all(c.after is None for c in event.params) else ".grad=0"


def steps_values(event) -> bool:
    """Whether the event changed parameters' values (a step, the optimizer's or by hand), not their grads."""
    return event.kind in ("step", "hand_update")


def event_site(event) -> str:
    site = event.site
    return f"{one_line(site.file.rsplit('/', 1)[-1])}:{site.line}" if site is not None else ""


def event_line(event) -> Text:
    """One line for a list of events: its title and where the script called it."""
    site = event_site(event)
    return Text.assemble(("↳ ", "dim"), (event_title(event), STYLE), (f"  {site}" if site else "", "dim"))


def leaf_events_text(moment: Moment, node, element: int = 0) -> Text:
    """What the optimizer and the script did to this leaf between its pass's backward and the ones
    around it, as far as known at the cursor: a step's before, update and after, a zero_grad's `.grad`."""
    leaf = node.leaf
    if leaf is None:
        return Text("")
    passes = moment.record.passes
    position = moment.index.pass_list_index(node.pass_index)
    k = passes[position].index if position is not None else node.pass_index
    text = Text()
    for when, begun in (
        ("Before this pass's backward (after the one before it):", k),
        ("After this pass's backward:", k + 1),
    ):
        found = [
            (event, change)
            for event in moment.optimizer_events()
            if event.passes == begun
            for change in event.params
            if change.leaf == leaf
        ]
        if not found:
            continue
        if text.plain:
            text.append("\n\n")
        text.append(when, "bold")
        for event, change in found:
            text.append("\n")
            text.append_text(event_line(event))
            text.append("\n")
            text.append_text(change_text(moment, event, change, element))
    return text


def change_text(moment: Moment, event, change, element: int = 0) -> Text:
    """explain_optim's lines: a step's before, update (the rule with the numbers) and after; a
    reset's `.grad` before and after."""
    try:
        lines = explain_change(moment.record, event, change, element)
    except InconsistentRecord as error:  # a snapshot edited by hand: one line, not a traceback
        lines = [str(error)]
    return Text("\n".join("  " + line for line in lines))
