"""A pass's backward steps written as rows of its step table, one summary slot per distinct array."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from graphscope.engine.outer_grad import multiplied

from ..record.node_fields import NONE
from ..record.step_table import LiveSteps
from ..stats.device import DeviceArray
from .summary_work import WorkItem


class StepRows:
    """Writes a journal's steps into a pass's LiveSteps: each array met gets one summary slot and
    one work item for the summary batches, and an array met again (a grad passed down a chain is one
    step's grad input and the next one's grad output; a leaf's grad is its step's grad input too)
    shares them, as the batches would share its summary. An array is known by its id only while the
    work holds it: hand `work` over whole, then `restart` with a new list."""

    __slots__ = ("_slot_of", "rows", "work")

    def __init__(self, rows: LiveSteps, work: list[WorkItem]) -> None:
        self.rows = rows
        self.work = work
        self._slot_of: dict[int, int] = {}  # id(array) -> its slot in rows.summaries

    def restart(self, work: list[WorkItem]) -> None:
        """Go on with a new work list (the last one was handed over with its arrays)."""
        self.work = work
        self._slot_of = {}

    def slots(self, arrays: Iterable[DeviceArray | None]) -> list[int]:
        """Each array's summary slot (a new empty one, and its work item, where first met; NONE for None)."""
        slot_of, summaries, item = self._slot_of, self.rows.summaries, self.work.append
        out = []
        for a in arrays:
            if a is None:
                out.append(NONE)
                continue
            r = slot_of.get(id(a))
            if r is None:
                r = slot_of[id(a)] = len(summaries)
                summaries.append(None)
                item((summaries, r, a))
            out.append(r)
        return out

    def add(
        self,
        node: int,
        grad_output: DeviceArray,
        grad_inputs: Sequence[DeviceArray | None] | None,
        leaf_grads: Iterable[tuple[int, DeviceArray, DeviceArray | None, DeviceArray]],
    ) -> None:
        """The next step: its node, the grad it received, the grads it passed on (None: not yet
        known) and those it accumulated into leaves (leaf, added, `.grad` before or None, after)."""
        rows = self.rows
        rows.node.append(node)
        rows.inputs_start.append(len(rows.inputs))
        rows.leaves_start.append(len(rows.leaf_node))
        arrays = [grad_output]
        if grad_inputs is not None:  # (a recurrent weight's grad is kept as factors till now)
            arrays += multiplied(grad_inputs)
        given = len(arrays)
        for leaf, grad, before, now in leaf_grads:
            rows.leaf_node.append(leaf)
            arrays += (grad, now, before)  # (`now` before `before`: the batches meet them in the order they always did)
        found = self.slots(arrays)
        rows.grad_output.append(found[0])
        rows.inputs.extend(found[1:given])
        if given < len(found):
            rows.leaf_grad.extend(found[given::3])
            rows.leaf_now.extend(found[given + 1 :: 3])
            rows.leaf_before.extend(found[given + 2 :: 3])

    def inputs(self, grad_inputs: Sequence[DeviceArray | None]) -> None:
        """The last step's grads to its inputs, aligned with them (replacing any it had)."""
        inputs = self.rows.inputs
        del inputs[self.rows.inputs_start[-1] :]
        inputs.extend(self.slots(multiplied(grad_inputs)))

    def leaf_grad(self, leaf: int, grad: DeviceArray, before: DeviceArray | None, now: DeviceArray) -> None:
        """A grad the last step accumulated into node `leaf`: the added grad, `.grad` before (None:
        there was none) and after (the added grad's own copy when nothing was there)."""
        rows = self.rows
        rows.leaf_node.append(leaf)
        added, after, was = self.slots((grad, now, before))
        rows.leaf_grad.append(added)
        rows.leaf_now.append(after)
        rows.leaf_before.append(was)
