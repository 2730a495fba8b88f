"""What detail survives (`Retention`): the detail window and trimming, by the policy, the pins and the
budget of `keeping.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from graphscope.engine.outer_grad import multiplied

from ..record.model import BackwardPass, Record
from ..record.pass_history import PassHistory
from ..record.step_table import step_table
from ..stats.device import DeviceArray
from ..stats.finite import any_nonfinite, is_finite
from .journal import ConstantEvent, Journal, Journals, OpEvent
from .keeping import CapturedValues, Pins, Policy

if TYPE_CHECKING:  # collaborators it calls (imported for their types only)
    from .materialize import Materializer
    from .optimizer_events import OptimizerRecording


def _event_value(e: Any) -> DeviceArray:  # (Any: a journal's event, told apart by `kind`, which mypy does not follow)
    """The array (or value) an event holds for a NaN/Inf check; None for an op output
    overwritten in place since."""
    kind = type(e)
    if kind is OpEvent:
        return e.array if e.vc[0] == e.version else None
    if kind is ConstantEvent:
        return e.value
    return e.copy


class Retention:
    """Decides what detail survives: it pins the first passes with NaN/Inf (found on the journals'
    copies; a pass put into the record is checked by its summaries), trims passes that leave the
    detail window (keeping nodes later passes refer to) and lets go of old journals."""

    def __init__(
        self,
        record: Record,
        policy: Policy,
        journals: Journals,
        pins: Pins,
        captured: CapturedValues,
        materializer: Materializer,
        optimizer: OptimizerRecording,
    ):
        self._record = record
        self._policy = policy
        self._journals = journals
        self._pins = pins
        self._captured = captured
        self._materializer = materializer
        self._optimizer = optimizer
        self._orphans: set[int] = set()  # nodes of trimmed passes that others refer to

    def pass_ended(self, p: BackwardPass, j: Journal) -> None:
        """Pass `p`'s backward ended (`j` the current journal): put it into the record if it is kept,
        and look for NaN/Inf where its loss or a grad norm says so (or always)."""
        index, policy = p.index, self._policy
        if index < policy.keep_first or policy.keep_last is None:
            self._materializer.materialize_through(index)
        if policy.scan_every_pass or not is_finite(p.loss) or not all(map(is_finite, p.grad_norms.values())):
            for held in self._journals.recent():  # oldest first: the first NaN may be a pass or two back
                if held.index <= index and (held is j or not policy.scan_every_pass):
                    self.check_nonfinite(held)

    def slide(self, index: int) -> None:
        """Pass `index` ended and the next one's journal began: the passes that left the detail
        window lose their detail, and the journals past the last few are let go of."""
        policy = self._policy
        window = (policy.keep_last or 0) + 1
        if policy.keep_last is not None:
            self._trim(index - policy.keep_last)
        for old in self._journals.let_go(max(window, 4)):
            if not old.materialized and old.index not in self._pins and old.events:
                self._trim_journal(old)

    def check_held(self) -> None:
        """Look for NaN/Inf in every journal still held (the recording ends)."""
        for held in self._journals.recent():
            self.check_nonfinite(held)

    def check_nonfinite(self, j: Journal) -> None:
        """Pin the first pass whose values (and the first whose grads) hold a NaN or Inf, so its
        detail survives for the findings however long the run goes on. A materialised pass was
        checked by its summaries; the others are checked on their copies."""
        want_values, want_grads = self._pins.wanted()
        if not (want_values or want_grads) or (j.materialized and j.done == len(j.events)):
            return
        finite = j.finite
        if want_values:
            if any_nonfinite([_event_value(e) for e in j.events[j.done :]], finite):
                self._pins.nonfinite(j.index, True)
            else:  # a leaf copy shared with the next pass need not be checked again
                for leaf, copy in j.fresh:
                    if leaf.copy is copy:
                        leaf.finite = True
        if want_grads:
            grads = []
            for k in range(j.steps_done, len(j.steps)):
                _, grad_output, grad_inputs = j.steps[k]
                grads.append(grad_output)
                grads += multiplied(grad_inputs or ())
                grads += [lg[1] for lg in j.step_leaves.get(k, ())]
            if any_nonfinite(grads, finite):
                self._pins.nonfinite(j.index, False)
        if j.index in self._pins:
            self._materializer.materialize_through(j.index)

    def _trim(self, index: int) -> None:
        """Pass `index` left the detail window: drop its detail unless it is pinned or first."""
        passes = self._record.passes
        if self._pins.for_good(index) or not 0 <= index < len(passes):
            return
        j = self._journals.holding(index)
        if j is not None and not j.materialized:
            self._trim_journal(j)
            return
        p = passes[index]
        if not p.detailed:
            return
        p.detailed = False
        p.root, p.order, p.steps = None, (), []
        cast(PassHistory, passes).compact(index)  # (the recorder's: Record says only a list)
        self._optimizer.drop_detail(index)
        if j is not None:
            j.steps, j.step_leaves, j.saved = [], {}, {}
            keep = self._closure(j, j.referenced)
            nodes = self._record.nodes
            self._captured.release(index)
            gone = [nid for nid in j.ids if nid not in keep]
            for nid in gone:
                del nodes[nid]
            self._record.trimmed_nodes += len(gone) + len(j.events) - j.done
            j.events, j.done = [], 0
            _forget(j, keep)
            j.ids = [nid for nid in j.ids if nid in keep]
            self._captured.hold_outputs(index, j.ids)
            self._orphans |= keep
        self._sweep_orphans()

    def _trim_journal(self, j: Journal) -> None:
        """Throw away a journal never put into the record, except nodes later passes refer to."""
        p = self._record.passes[j.index] if j.index < len(self._record.passes) else None
        if p is not None:
            p.detailed = False
            p.root, p.order, p.steps = None, (), []
            cast(PassHistory, self._record.passes).compact(j.index)  # (the recorder's: Record says only a list)
            self._optimizer.drop_detail(j.index)
        keep = self._closure(j, j.referenced)
        j.steps, j.step_leaves = [], {}
        if keep:  # a graph used across passes: put only what later passes refer to in the record
            j.events = [e for e in j.events if e is not None and e.id in keep]
            self._materializer.materialize(j)
            _forget(j, keep)
            self._orphans |= keep
        else:
            j.made, j.tensors, j.functions = {}, {}, {}
        self._record.trimmed_nodes += (p.node_count if p is not None else 0) - len(keep)
        j.events, j.done, j.referenced, j.saved = [], 0, set(), {}
        self._sweep_orphans()

    def _sweep_orphans(self) -> None:
        """Drop nodes kept from trimmed passes once nothing still in the record refers to them."""
        orphans = self._orphans
        if not orphans:
            return
        record = self._record
        nodes, passes = record.nodes, record.passes
        refs: set[int | None] = set()
        for k in nodes:
            if k not in orphans:
                refs.update(nodes.inputs_of(k))  # type: ignore[arg-type]  # a node in the record: it has inputs
        recent = self._journals.recent()
        for j in recent:
            for e in j.events:
                if type(e) is OpEvent:
                    refs.update(e.inputs)
        keep_last = self._policy.keep_last or 0
        detailed = set(range(min(self._policy.keep_first, len(passes)))) | self._pins.pinned()
        detailed.update(range(max(0, len(passes) - keep_last - 1), len(passes)))
        for index in detailed:
            p = passes[index]
            if p.detailed:
                refs.add(p.root)
                refs.update(p.order)
                steps = step_table(p.steps)  # (its ids read without making the Steps)
                refs.update(steps.node_ids())
                refs.update(steps.leaves())
        if record.error is not None:
            refs.add(record.error.node)
        keep, stack = set(), [nid for nid in refs if nid in orphans]
        while stack:
            nid = stack.pop()
            if nid not in keep:
                keep.add(nid)
                stack.extend(k for k in nodes.inputs_of(nid) if k in orphans)  # type: ignore[union-attr]  # an orphan: in the record
        for nid in orphans - keep:
            self._captured.delete_node(nid)
        record.trimmed_nodes += len(orphans - keep)
        if len(keep) < len(orphans):
            for j in recent:
                _forget(
                    j,
                    {nid for nid in j.made.values() if nid in nodes}
                    | {e.node for e in j.tensors.values() if e.node in nodes}
                    | {e.node for e in j.functions.values() if e.node in nodes},
                )
        self._orphans = keep

    def _closure(self, j: Journal, wanted: set[int]) -> set[int]:
        """`wanted` and, within this journal, everything they were computed from."""
        if not wanted:
            return set()
        nodes = self._record.nodes
        # (nodes in the record: each has its inputs)
        inputs: dict[int, tuple[int, ...]] = {nid: nodes.inputs_of(nid) for nid in j.ids if nid in nodes}  # type: ignore[misc]
        inputs.update((e.id, e.inputs) for e in j.events if type(e) is OpEvent)
        own = set(inputs) | {e.id for e in j.events if e is not None}
        keep, stack = set(), [nid for nid in wanted if nid in own]
        while stack:
            nid = stack.pop()
            if nid not in keep:
                keep.add(nid)
                stack.extend(k for k in inputs.get(nid, ()) if k in own)
        return keep


def _forget(j: Journal, keep: set[int]) -> None:
    """Later passes must not link to nodes that are gone."""
    j.made = {seq: nid for seq, nid in j.made.items() if nid in keep}
    j.tensors = {k: e for k, e in j.tensors.items() if e.node in keep}
    j.functions = {k: e for k, e in j.functions.items() if e.node in keep}
