"""The recorder's optimizer events: zero_grad, step (before, grad, update, after, state) and grad resets.

Values are copied when the event happens (the optimizer changes them in place next), sharing the
copies the recorder holds already where the tensor has not changed since (a parameter's value
from this pass's forward, its `.grad` from the last accumulation), and summarised only for the
passes kept in detail; an event of a pass that leaves the detail window keeps its row and drops
its parameters.
"""

from __future__ import annotations

from collections import deque
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
        first = self.arrays[0]
        if type(first) is Summarized or type(self.arrays[-1]) is Summarized:
            return None
        if self.kind == "zeros":
            return namespace(first).zeros_like(first)
        return namespace(first).subtract(first, self.arrays[1])


# A pending change is a row per parameter: (ParamChange, its fields' copies (or Derived, or None)
# in FIELDS order, [(state name, copy or literal)] or None).
FIELDS = ("before", "grad", "after", "update")
_SET_TO_NONE = {True: (("set_to_none", "True"),), False: (("set_to_none", "False"),)}


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

    def forget_dead(self) -> None:
        """Drop the entries of leaves that have died."""
        self._by_array = {k: e for k, e in self._by_array.items() if e.ref() is not None}

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
        # Once per step with every parameter: written for speed (no calls per parameter but
        # what it must do).
        set_to_none = bool(set_to_none)
        event = self._optimizer_event(ZERO_GRAD, name(type(owner).__name__), _SET_TO_NONE[set_to_none])
        leaves, changes, rows = self._leaf_copies, event.params, []
        for p in params:
            grad = p._grad
            if grad is None:
                continue
            leaf = leaves.get(id(p))
            if leaf is None or leaf.first is None or leaf.ref() is not p:
                continue
            change = ParamChange(leaf.first, leaf.label or self._label(p))
            changes.append(change)
            before = self._grad_copy(leaf, grad)
            rows.append((change, (before, None, None if set_to_none else Derived("zeros", (before,)), None), None))
        self._pending_changes(event, rows)

    def grad_clearing(self, tensor):
        self._reset_by_user(tensor, self._known_leaf(tensor), zeros=False)

    def tensor_zeroing(self, tensor):
        found = self._grad_owners.owner(tensor)
        if found is not None:
            self._reset_by_user(*found, zeros=True)

    def optimizer_step_begun(self, optimizer):
        kind = name(type(optimizer).__name__)
        leaves, writes = self._leaf_copies, data_writes
        steps = []
        for group in optimizer.param_groups:
            event = self._optimizer_event(OPTIMIZER_STEP, kind, self._settings_of(group))
            changes, rows, changed = event.params, [], []
            for p in group["params"]:
                grad = p._grad
                if grad is None:
                    continue  # the step skips a parameter without a grad
                leaf = leaves.get(id(p))
                if leaf is None or leaf.first is None or leaf.ref() is not p:
                    continue
                change = ParamChange(leaf.first, leaf.label or self._label(p))
                changes.append(change)
                # Its value: the copy its pass holds, while it has not changed since.
                array = p.array
                if leaf.array is array and leaf.copy is not None and leaf.version == (p._vc[0], writes[0]):
                    before = leaf.copy
                else:
                    before = self._keep(array)
                rows.append((change, (before, self._grad_copy(leaf, grad), None, None), None))
                changed.append((change, p, leaf, before))
            self._pending_changes(event, rows)
            steps.append((event, changed))
        self._open_steps[id(optimizer)] = steps

    def optimizer_step_ended(self, optimizer):
        steps = self._open_steps.pop(id(optimizer), None)
        if steps is None or self._sealed:
            return
        state = optimizer.state
        state = state if isinstance(state, dict) else {}
        fresh, writes = self._journal.fresh, data_writes
        for event, changed in steps:
            rows = []
            for change, p, leaf, before in changed:
                array = p.array
                after = self._keep(array)
                # The next forward shares this copy while the parameter stays as the step left it.
                leaf.array, leaf.version, leaf.copy, leaf.finite = array, (p._vc[0], writes[0]), after, False
                fresh.append((leaf, after))
                slot = state.get(p)
                rows.append((change, (None, None, after, Derived("update", (after, before))),
                             self._state_copies(slot) if slot else None))
            self._pending_changes(event, rows)

    # --- what the rest of the recorder calls --------------------------------------------

    def _settle_optimizer(self) -> None:
        """Summarise the pending changes (of passes still in the detail window: a pass trimmed
        since has none)."""
        if self._optimizer_pending:
            work, shared, states = self._optimizer_work(len(self.record.passes) + 1)
            self._summarize_into(max(len(self.record.passes) - 1, 0), work, at_once=True, shared=shared, states=states)

    def _drop_optimizer_detail(self, index: int) -> None:
        """Pass `index` left the detail window: its events keep their rows, not their parameters.
        (Passes leave it in order: the events of an earlier pass still here belong to one kept
        for good, a pinned one, and are let go of.)"""
        held = self._held_events
        events = self.record.optimizer
        while held and held[0][0] <= index:
            passed, position = held.popleft()
            if passed == index:
                events.compact(position, drop_params=True)
        self._optimizer_pending.pop(index, None)

    # --- helpers --------------------------------------------------------------------------

    def _optimizer_event(self, kind: str, optimizer: str, settings: tuple) -> OptimizerEvent:
        passes = len(self.record.passes)
        event = OptimizerEvent(kind, passes, optimizer, settings, self._names.site(hooks.user_site()))
        if not self._sealed:
            events = self.record.optimizer
            if passes - 1 >= self.policy.keep_first:  # those of the first passes stay in detail
                self._held_events.append((passes - 1, len(events)))
            events.append(event)
        return event

    def _settings_of(self, group: dict) -> tuple:
        """The group's options as literals, made again only when one of them changed."""
        cached = self._group_settings.get(id(group))
        if cached is not None and len(cached[0]) == len(group) - 1:
            for k, v in cached[0]:  # unchanged: every option is the same plain value
                now = group.get(k, _MISSING)
                if now is not v and (type(now) is not type(v) or now != v):
                    break
            else:
                return cached[1]
        options = [(k, v) for k, v in group.items() if k != "params"]
        settings = tuple((name(str(k)), short_repr(v)) for k, v in options)
        if all(_plain(v) for _, v in options):  # (a literal of equal plain values is the same)
            if len(self._group_settings) > 1024:
                self._group_settings.clear()
            self._group_settings[id(group)] = (options, settings)
        return settings

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
        change = ParamChange(leaf.first, leaf.label or self._label(tensor))
        event.params.append(change)
        before = self._grad_copy(leaf, tensor._grad)
        self._pending_changes(event, [(change, (before, None, Derived("zeros", (before,)) if zeros else None, None),
                                       None)])

    def _state_copies(self, slot: dict) -> list:
        """The optimizer's state for a parameter: tensors copied, numbers as literals."""
        out = []
        for key, value in slot.items():
            if isinstance(value, Tensor):
                out.append((name(str(key)), self._keep(value.array)))
            elif isinstance(value, (int, float)):
                out.append((name(str(key)), short_repr(value)))
        return out

    def _pending_changes(self, event: OptimizerEvent, rows: list) -> None:
        """Keep the copies to summarise with the next pass put into the record, or at a flush."""
        if rows and not self._sealed:
            index = event.passes - 1
            pending = self._optimizer_pending.get(index)
            if pending is None:
                pending = self._optimizer_pending[index] = []
            pending.append(rows)

    def _optimizer_work(self, before: int) -> tuple[list, list, list]:
        """The summarising work of the pending changes of passes before `before`, to do in one
        batch with a pass's own: [(target, key, array)], the part of it that reuses copies of
        the pass before (values and grads), and what to finish after it."""
        work, states, shared = [], [], []
        pending = self._optimizer_pending
        for index in [i for i in pending if i < before]:
            for rows in pending.pop(index):
                for change, copies, entries in rows:
                    for key, raw in zip(FIELDS, copies):
                        if type(raw) is Derived:
                            raw = raw.compute()
                        if raw is not None:
                            work.append((change, key, raw))
                            if key == "before" or key == "grad":
                                shared.append(raw)
                    if entries:
                        slots = [None] * len(entries)
                        work += [(slots, i, value) for i, (_, value) in enumerate(entries) if type(value) is not str]
                        states.append((change, entries, slots))
        return work, shared, states

    def _pending_copies(self):
        """The copies of values and grads that pending changes share with a pass's own."""
        for pending in self._optimizer_pending.values():
            for rows in pending:
                for _, (before, grad, _, _), _ in rows:
                    if before is not None:
                        yield before
                    if grad is not None:
                        yield grad

    @staticmethod
    def _finish_states(states: list) -> None:
        """Put each summarised state into its change: tensors as summaries, the rest as literals."""
        for change, entries, slots in states:
            change.state = tuple((key, value if type(value) is str else s) for (key, value), s in zip(entries, slots))


def new_optimizer_state(recorder) -> None:
    """The recorder's optimizer bookkeeping, empty."""
    recorder._optimizer_pending = {}  # pass index -> the rows of its events' changes waiting to be summarised
    recorder._open_steps = {}
    recorder._grad_owners = GradOwners()
    recorder._group_settings = {}  # id(param group) -> (its options, their literals)
    recorder._held_events = deque()  # (pass index, position in record.optimizer) of events held as objects


_MISSING = object()


def _plain(value) -> bool:
    kind = type(value)
    return kind in _PLAIN or kind is tuple and all(type(v) in _PLAIN for v in value)


_PLAIN = (int, float, bool, str, type(None))
