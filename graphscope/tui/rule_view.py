"""RuleView: the Rule tab: the chain rule of the selected node's backward step with its numbers; for a leaf, how its
`.grad` came to be and what the optimizer did with it."""

from __future__ import annotations

from dataclasses import replace

from rich.text import Text

from graphscope.trace.explain.step import explain_lines, explain_step
from graphscope.trace.record.inconsistent import InconsistentRecord
from graphscope.trace.record.model import CONSTANT

from .grad_accumulation import accumulation_text
from .moment import Moment
from .node_label import one_line
from .optimizer_words import leaf_events_text
from .tensor_preview import WHOLE
from .text_pane import TextPane


def rule_text(moment: Moment, node_id: int | None, element: int = 0) -> Text:
    """What the Rule tab shows for a node at the moment's cursor (every string literal text)."""
    record = moment.record
    node = record.nodes.get(node_id) if node_id is not None else None
    if node is None:
        return Text("")
    if node.op == CONSTANT:
        return Text(f"A Python value passed to an op ({one_line(node.name)}): it has no grad and no rule.", "dim")
    rule = record.rules.get(node.op, "")
    if not node.is_leaf and moment.before_backward_of(node.id):
        return _not_run(rule, "Held in the forward: this pass's backward has not begun (c runs on to it).")
    found = moment.index.step_position(node.id)
    if found is None:
        return _leaf(moment, node, element)
    position, i = found
    step = moment.step_of(node.id)
    if step is None:
        return _not_run(rule, "Its backward has not run yet: step to it (n) to see the chain rule with its numbers.")
    chosen = element if node.output is not None and node.output.numel > WHOLE else None
    known = moment.known_record()
    total = len(record.passes[position].order)
    parts = [Text(line) for line in _lines(known, position, i, chosen, total)]
    if not step.grad_inputs and node.inputs and i > 0:
        # while stepping, the numbers of the step just taken are what one wants to read
        parts.append(Text("\nThe step just taken:", "bold"))
        parts += [Text(line) for line in _lines(known, position, i - 1, None, total)]
    return Text("\n").join(parts)


def _not_run(rule: str, why: str) -> Text:
    """The rule alone, and why its numbers are not known yet."""
    parts = [Text(line, "bold") for line in rule.splitlines()] if rule else []
    parts.append(Text(why, "dim"))
    return Text("\n").join(parts)


def _lines(record, position: int, i: int, element: int | None, total: int) -> list[str]:
    """explain_lines of a step, counted out of the whole pass (the record at the cursor holds only
    the steps taken) and without the source line (the header above shows it)."""
    try:
        return explain_lines(replace(explain_step(record, position, i, element), site=None, steps=total))
    except InconsistentRecord as error:  # a snapshot edited by hand: one line, not a traceback
        return [str(error)]


def _leaf(moment: Moment, node, element: int):
    """A leaf has no backward of its own: where its grads came from and what the optimizer did."""
    parts = []
    if node.requires_grad:
        parts.append(Text("A leaf: the grads that reach it add into its .grad.", "dim"))
        accumulated = accumulation_text(moment, node.id, element)
        parts.append(accumulated if accumulated.plain else Text("No grad has reached it yet at this step.", "dim"))
    else:
        parts.append(Text("A tensor that does not require grad: backward does not reach it.", "dim"))
    if moment.before_optimizer_step and node.id in moment.stepped_leaves():
        parts.append(
            Text("\noptimizer.step() runs next (n): it reads this .grad and updates the parameter.", "bold yellow")
        )
    events = leaf_events_text(moment, node, element)
    if events.plain:
        parts += [Text(""), events]
    return Text("\n").join(parts)


class RuleView(TextPane):
    """The rule and its numbers, for the element under the tables' cursor when the tensor is big."""

    def show(self, moment: Moment, node_id: int | None, element: int = 0) -> None:
        self.set_text(rule_text(moment, node_id, element))
