"""The recorder's optimizer events: zero_grad, step (before, grad, update, after, state) and grad resets.

Values are copied when the event happens (the optimizer changes them in place next), sharing the
copies the recorder holds already where the tensor has not changed since (a parameter's value
from this pass's forward, its `.grad` from the last accumulation), and summarised only for the
passes kept in detail; an event of a pass that leaves the detail window keeps its row and drops
its parameters.
"""

from __future__ import annotations

from typing import NamedTuple

from graphscope.engine import hooks
from graphscope.engine.backend import namespace
from graphscope.engine.tensor import Tensor, data_writes

from .journal import LeafEntry
from .naming import name, short_repr
from .record import GRAD_RESET, OPTIMIZER_STEP, ZERO_GRAD, OptimizerEvent, ParamChange
from .summary import Summarized


class Derived(NamedTuple):
    """An array worked out from copies only when it is summarised: `after - before`, or zeros."""

    kind: str        # "update" or "zeros"
    arrays: tuple

    def compute(self):
        """The array, or None where a copy was summarised at once (too large to keep)."""
        if any(type(a) is Summarized for a in self.arrays):
            return None
        xp = namespace(self.arrays[0])
        if self.kind == "zeros":
            return xp.zeros_like(self.arrays[0])
        after, before = self.arrays
        return xp.subtract(after, before)


class PendingChanges(NamedTuple):
    """Copies of one event's values waiting to be summarised."""

    index: int          # the backward pass the event follows (-1: before any)
    event: OptimizerEvent
    work: list          # (ParamChange, field, copy or Derived)
    states: list        # (ParamChange, [(state name, copy or literal)])


class GradOwners:
    """Which leaf a `.grad` array belongs to, so `w.grad.zero_()` is known as a reset of w's grad."""

    def __init__(self):
        self._by_array: dict[int, LeafEntry] = {}

    def note(self, leaf: LeafEntry, array) -> None:
        key = id(array)
        old = leaf.grad_key
        if old == key:
            return
        if old is not None and self._by_array.get(old) is leaf:
            del self._by_array[old]
        self._by_array[key] = leaf
        leaf.grad_key = key

    def owner(self, tensor: Tensor):
        """(the leaf Tensor, its entry) whose `.grad` is `tensor` (or shares its array), else None."""
        leaf = self._by_array.get(id(tensor.array))
        t = leaf.ref() if leaf is not None else None
        if t is None or t._grad is None or t._grad.array is not tensor.array:
            return None
        return t, leaf


class OptimizerRecording:
    """The Recorder's half that records optimizer events. It reads and writes the Recorder's
    state (`record`, `policy`, the leaf entries, the names) and summarises through it."""

    # --- engine events ------------------------------------------------------------------

    def grads_zeroing(self, owner, params, set_to_none):
        event = self._optimizer_event(ZERO_GRAD, name(type(owner).__name__), (("set_to_none", repr(bool(set_to_none))),))
        work = []
        for p in params:
            grad = p._grad
            leaf = self._known_leaf(p) if grad is not None else None
            if leaf is not None:
                work += self._grad_reset(event, p, leaf, zeros=not set_to_none)
        self._pending_changes(event, work)

    def grad_clearing(self, tensor):
        self._reset_by_user(tensor, self._known_leaf(tensor), zeros=False)

    def tensor_zeroing(self, tensor):
        found = self._grad_owners.owner(tensor)
        if found is not None:
            self._reset_by_user(*found, zeros=True)

    def optimizer_step_begun(self, optimizer):
        kind = name(type(optimizer).__name__)
        steps = []
        for group in optimizer.param_groups:
            settings = tuple((name(str(k)), short_repr(v)) for k, v in group.items() if k != "params")
            event = self._optimizer_event(OPTIMIZER_STEP, kind, settings)
            work, changed = [], []
            for p in group["params"]:
                grad = p._grad
                leaf = self._known_leaf(p) if grad is not None else None
                if leaf is None:
                    continue  # the step skips a parameter without a grad
                change = ParamChange(leaf.first, leaf.label or self._label(p))
                event.params.append(change)
                before = self._value_copy(leaf, p)
                work += [(change, "before", before), (change, "grad", self._grad_copy(leaf, grad))]
                changed.append((change, p, leaf, before))
            self._pending_changes(event, work)
            steps.append((event, changed))
        self._open_steps[id(optimizer)] = steps

    def optimizer_step_ended(self, optimizer):
        steps = self._open_steps.pop(id(optimizer), None)
        if steps is None or self._sealed:
            return
        state = optimizer.state
        fresh = self._journal.fresh
        for event, changed in steps:
            work, states = [], []
            for change, p, leaf, before in changed:
                array = p.array
                after = self._keep(array)
                # The next forward shares this copy while the parameter stays as the step left it.
                leaf.array, leaf.version, leaf.copy, leaf.finite = array, (p._vc[0], data_writes[0]), after, False
                fresh.append((leaf, after))
                work += [(change, "after", after), (change, "update", Derived("update", (after, before)))]
                slot = state.get(p) if isinstance(state, dict) else None
                if slot:
                    states.append((change, self._state_copies(slot)))
            self._pending_changes(event, work, states)

    # --- what the rest of the recorder calls --------------------------------------------

    def _settle_optimizer(self, final: bool) -> None:
        """Summarise the pending changes of the passes kept in detail (all of them when `final`),
        drop those of passes trimmed since; the others wait."""
        passes = self.record.passes
        waiting = []
        for pending in self._optimizer_pending:
            index = pending.index
            if 0 <= index < len(passes) and not passes[index].detailed:
                continue  # its event lost its parameters with the pass
            if final or self._kept_for_good(index):
                self._summarize_changes(pending)
            else:
                waiting.append(pending)
        self._optimizer_pending = waiting

    def _drop_optimizer_detail(self, index: int) -> None:
        """Pass `index` left the detail window: its events keep their rows, not their parameters."""
        events = self.record.optimizer
        for i in range(len(events) - 1, -1, -1):
            event = events[i]
            if event.passes - 1 < index:
                break
            if event.passes - 1 == index:
                event.params = []
                events.compact(i)
        self._optimizer_pending = [p for p in self._optimizer_pending if p.index != index]

    # --- helpers --------------------------------------------------------------------------

    def _optimizer_event(self, kind: str, optimizer: str, settings: tuple) -> OptimizerEvent:
        event = OptimizerEvent(kind, len(self.record.passes), optimizer, settings, self._names.site(hooks.user_site()))
        if not self._sealed:
            self.record.optimizer.append(event)
        return event

    def _known_leaf(self, t: Tensor) -> LeafEntry | None:
        """The leaf's entry when it has an identity (it was in a recorded pass)."""
        leaf = self._leaf_copies.get(id(t))
        if leaf is None or leaf.ref() is not t or leaf.first is None:
            return None
        return leaf

    def _reset_by_user(self, tensor: Tensor, leaf: LeafEntry | None, zeros: bool) -> None:
        """`tensor.grad = None` or `tensor.grad.zero_()`: one event, or a row added to the last
        when it is the same line's (a loop over the parameters)."""
        if leaf is None or tensor._grad is None:
            return
        site = self._names.site(hooks.user_site())
        events = self.record.optimizer
        last = events[-1] if events else None
        if (last is not None and last.kind == GRAD_RESET and last.site == site
                and last.passes == len(self.record.passes) and all(c.leaf != leaf.first for c in last.params)):
            event = last
        else:
            event = self._optimizer_event(GRAD_RESET, "", ())
        self._pending_changes(event, self._grad_reset(event, tensor, leaf, zeros))

    def _grad_reset(self, event: OptimizerEvent, t: Tensor, leaf: LeafEntry, zeros: bool) -> list:
        change = ParamChange(leaf.first, leaf.label or self._label(t))
        event.params.append(change)
        before = self._grad_copy(leaf, t._grad)
        work = [(change, "before", before)]
        if zeros:
            work.append((change, "after", Derived("zeros", (before,))))
        return work

    def _value_copy(self, leaf: LeafEntry, t: Tensor):
        """A copy of the leaf's value: the one its last pass holds while it has not changed since."""
        if leaf.array is t.array and leaf.version == (t._vc[0], data_writes[0]) and leaf.copy is not None:
            return leaf.copy
        return self._keep(t.array)

    def _state_copies(self, slot: dict) -> list:
        """The optimizer's state for a parameter: tensors copied, numbers as literals."""
        out = []
        for key, value in slot.items():
            if isinstance(value, Tensor):
                out.append((name(str(key)), self._keep(value.array)))
            elif isinstance(value, (int, float)):
                out.append((name(str(key)), short_repr(value)))
        return out

    def _pending_changes(self, event: OptimizerEvent, work: list, states: list = ()) -> None:
        """Summarise the copies now when their pass is kept in detail for good, else later."""
        if not (work or states) or self._sealed:
            return
        pending = PendingChanges(event.passes - 1, event, work, list(states))
        if self._kept_for_good(pending.index):
            self._summarize_changes(pending)
        else:
            self._optimizer_pending.append(pending)

    def _kept_for_good(self, index: int) -> bool:
        policy = self.policy
        return index < policy.keep_first or index in self._pinned or policy.keep_last is None

    def _summarize_changes(self, pending: PendingChanges) -> None:
        work = []
        for target, key, raw in pending.work:
            if type(raw) is Derived:
                raw = raw.compute()
            if raw is not None:
                work.append((target, key, raw))
        states = []
        for change, entries in pending.states:
            slots = [None] * len(entries)
            for i, (_, value) in enumerate(entries):
                if type(value) is not str:
                    work.append((slots, i, value))
            states.append((change, entries, slots))
        self._summarize_into(max(pending.index, 0), work)
        for change, entries, slots in states:
            change.state = tuple((key, value if type(value) is str else s)
                                 for (key, value), s in zip(entries, slots))


def new_optimizer_state(recorder) -> None:
    """The recorder's optimizer bookkeeping, empty."""
    recorder._optimizer_pending = []
    recorder._open_steps = {}
    recorder._grad_owners = GradOwners()
