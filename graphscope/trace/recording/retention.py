"""What the recorder keeps: the policy, the detail window and trimming, NaN pins, the memory budget."""

from __future__ import annotations

from dataclasses import dataclass

from ..stats.finite import any_nonfinite
from .journal import ConstantEvent, Journal, OpEvent
from ..stats.summarize import FULL_VALUES_LIMIT


@dataclass(frozen=True)
class Policy:
    """How much the recorder keeps.

    Every pass keeps its loss and per-parameter grad norms. Full detail (nodes with value
    summaries, backward steps with grad summaries) is kept for the first `keep_first` passes,
    the last `keep_last` (None: every pass), and the passes where the first NaN/Inf value and
    the first NaN/Inf grad appeared. Captured values (previews and full values) are held within
    `memory_budget` bytes; past it the oldest are dropped and the record counts them.
    """

    keep_first: int = 1
    keep_last: int | None = 3
    full_values_limit: int = FULL_VALUES_LIMIT
    memory_budget: int = 512 * 2**20
    vanishing: float = 1e-7           # a parameter grad norm under this is vanishing
    exploding: float = 1e3            # over this, exploding
    console_limit: int = 100_000      # console lines kept (the oldest are dropped past it)
    # Look for NaN/Inf in every value and grad of every pass. Otherwise a pass is scanned when
    # its loss or a grad norm is NaN/Inf (then the passes still held before it too, oldest
    # first) and at the end: a NaN that reaches neither the loss nor any parameter's grad is
    # then found only in the passes held at that moment (the last four).
    scan_every_pass: bool = False

    @classmethod
    def every_pass(cls, **options) -> Policy:
        """Full detail for every pass."""
        return cls(keep_last=None, **options)


def _event_value(e):
    """The array (or value) an event holds for a NaN/Inf check; None for an op output
    overwritten in place since."""
    kind = type(e)
    if kind is OpEvent:
        return e.array if e.vc[0] == e.version else None
    if kind is ConstantEvent:
        return e.value
    return e.copy


class Retention:
    """The Recorder's half that decides what detail survives: it pins the first passes with
    NaN/Inf, trims passes that leave the detail window (keeping nodes later passes refer to),
    and drops captured values past the memory budget. It reads and writes the Recorder's state
    (`record`, `policy`, the journals) and materialises through it."""

    def _note_nonfinite(self, index: int, is_value: bool) -> None:
        if is_value and self._nan_value_pass is None:
            self._nan_value_pass = index
            self._pinned.add(index)
        elif not is_value and self._nan_grad_pass is None:
            self._nan_grad_pass = index
            self._pinned.add(index)

    def _check_nonfinite(self, j: Journal) -> None:
        """Pin the first pass whose values (and the first whose grads) hold a NaN or Inf, so its
        detail survives for the findings however long the run goes on. A materialised pass was
        checked by its summaries; the others are checked on their copies."""
        want_values = self._nan_value_pass is None
        want_grads = self._nan_grad_pass is None
        if not (want_values or want_grads) or j.materialized and j.done == len(j.events):
            return
        finite = j.finite
        if want_values:
            if any_nonfinite([_event_value(e) for e in j.events[j.done:]], finite):
                self._note_nonfinite(j.index, True)
            else:  # a leaf copy shared with the next pass need not be checked again
                for leaf, copy in j.fresh:
                    if leaf.copy is copy:
                        leaf.finite = True
        if want_grads:
            grads = []
            for k in range(j.steps_done, len(j.steps)):
                _, grad_output, grad_inputs = j.steps[k]
                grads.append(grad_output)
                grads += grad_inputs or ()
                grads += [lg[1] for lg in j.step_leaves.get(k, ())]
            if any_nonfinite(grads, finite):
                self._note_nonfinite(j.index, False)
        if j.index in self._pinned:
            self._materialize_through(j.index)

    def _trim(self, index: int) -> None:
        """Pass `index` left the detail window: drop its detail unless it is pinned or first."""
        passes = self.record.passes
        if index < self.policy.keep_first or index in self._pinned or not 0 <= index < len(passes):
            return
        j = next((x for x in self._recent if x.index == index), None)
        if j is not None and not j.materialized:
            self._trim_journal(j)
            return
        p = passes[index]
        if not p.detailed:
            return
        p.detailed = False
        p.root, p.order, p.steps = None, (), []
        passes.compact(index)
        self._drop_optimizer_detail(index)
        if j is not None:
            j.steps, j.step_leaves, j.saved = [], {}, {}
            keep = self._closure(j, j.referenced)
            nodes = self.record.nodes
            freed = self._captured.pop(index, [])
            self._captured_bytes -= sum(map(self._captured_size, freed))
            gone = [nid for nid in j.ids if nid not in keep]
            for nid in gone:
                del nodes[nid]
            self.record.trimmed_nodes += len(gone) + len(j.events) - j.done
            j.events, j.done = [], 0
            self._forget(j, keep)
            j.ids = [nid for nid in j.ids if nid in keep]
            survivors = self._output_rows(j.ids)
            if survivors:
                self._captured[index] = survivors
                self._captured_bytes += sum(map(self._captured_size, survivors))
            self._orphans |= keep
        self._sweep_orphans()

    def _trim_journal(self, j: Journal) -> None:
        """Throw away a journal never put into the record, except nodes later passes refer to."""
        p = self.record.passes[j.index] if j.index < len(self.record.passes) else None
        if p is not None:
            p.detailed = False
            p.root, p.order, p.steps = None, (), []
            self.record.passes.compact(j.index)
            self._drop_optimizer_detail(j.index)
        keep = self._closure(j, j.referenced)
        j.steps, j.step_leaves = [], {}
        if keep:  # a graph used across passes: put only what later passes refer to in the record
            j.events = [e for e in j.events if e is not None and e.id in keep]
            self._materialize(j)
            self._forget(j, keep)
            self._orphans |= keep
        else:
            j.made, j.tensors, j.functions = {}, {}, {}
        self.record.trimmed_nodes += (p.node_count if p is not None else 0) - len(keep)
        j.events, j.done, j.referenced, j.saved = [], 0, set(), {}
        self._sweep_orphans()

    def _sweep_orphans(self) -> None:
        """Drop nodes kept from trimmed passes once nothing still in the record refers to them."""
        orphans = self._orphans
        if not orphans:
            return
        nodes, passes = self.record.nodes, self.record.passes
        refs = set()
        for k in nodes:
            if k not in orphans:
                refs.update(nodes.inputs_of(k))
        for j in self._recent:
            for e in j.events:
                if type(e) is OpEvent:
                    refs.update(e.inputs)
        keep_last = self.policy.keep_last or 0
        detailed = set(range(min(self.policy.keep_first, len(passes)))) | self._pinned
        detailed.update(range(max(0, len(passes) - keep_last - 1), len(passes)))
        for index in detailed:
            p = passes[index]
            if p.detailed:
                refs.add(p.root)
                refs.update(p.order)
                for st in p.steps:
                    refs.add(st.node)
                    refs.update(lg.node for lg in st.leaf_grads)
        if self.record.error is not None:
            refs.add(self.record.error.node)
        keep, stack = set(), [nid for nid in refs if nid in orphans]
        while stack:
            nid = stack.pop()
            if nid not in keep:
                keep.add(nid)
                stack.extend(k for k in nodes.inputs_of(nid) if k in orphans)
        for nid in orphans - keep:
            self._captured_bytes -= self._delete_node(nid)
        self.record.trimmed_nodes += len(orphans - keep)
        if len(keep) < len(orphans):
            for j in self._recent:
                self._forget(j, {nid for nid in j.made.values() if nid in nodes}
                             | {e.node for e in j.tensors.values() if e.node in nodes}
                             | {e.node for e in j.functions.values() if e.node in nodes})
        self._orphans = keep

    def _closure(self, j: Journal, wanted: set[int]) -> set[int]:
        """`wanted` and, within this journal, everything they were computed from."""
        if not wanted:
            return set()
        nodes = self.record.nodes
        inputs = {nid: nodes.inputs_of(nid) for nid in j.ids if nid in nodes}
        inputs.update((e.id, e.inputs) for e in j.events if type(e) is OpEvent)
        own = set(inputs) | {e.id for e in j.events if e is not None}
        keep, stack = set(), [nid for nid in wanted if nid in own]
        while stack:
            nid = stack.pop()
            if nid not in keep:
                keep.add(nid)
                stack.extend(k for k in inputs.get(nid, ()) if k in own)
        return keep

    @staticmethod
    def _forget(j: Journal, keep: set[int]) -> None:
        """Later passes must not link to nodes that are gone."""
        j.made = {seq: nid for seq, nid in j.made.items() if nid in keep}
        j.tensors = {k: e for k, e in j.tensors.items() if e.node in keep}
        j.functions = {k: e for k, e in j.functions.items() if e.node in keep}

    def _enforce_budget(self) -> None:
        """Past the memory budget, drop captured values, oldest pass first, and count them."""
        budget = self.policy.memory_budget
        if self._captured_bytes <= budget:
            return
        for index in sorted(self._captured):
            summaries = self._captured[index]
            i = 0
            while i < len(summaries) and self._captured_bytes > budget:
                freed = self._drop_captured(summaries[i])
                i += 1
                if freed:
                    self._captured_bytes -= freed
                    self.record.dropped_values += 1
            del summaries[:i]
            if not summaries:
                del self._captured[index]
            if self._captured_bytes <= budget:
                return
