"""The recorder's optimizer events: zero_grad, step (before, grad, update, after, state), grad resets and
updates by hand.

An event is journaled cheaply: a row of `record.optimizer` (kind, pass, optimizer, settings, site)
and, for its parameters, plain tuples of the copies it saw (the optimizer changes values and
grads in place next). Copies the recorder holds already are shared while the tensor has not
changed since (a parameter's value from this pass's forward, its `.grad` from the last
accumulation), so a step copies only each value after it, which the next forward shares. Only
for a pass kept in detail do the tuples become ParamChange objects with summaries; a pass that
leaves the detail window drops them, and its events stay rows.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from graphscope.engine import hooks
from graphscope.engine.backend import namespace
from graphscope.engine.tensor import Tensor, data_writes

from ..record.model import GRAD_RESET, HAND_UPDATE, OPTIMIZER_STEP, ZERO_GRAD, ParamChange, Record
from ..record.naming import Names, name, short_repr
from ..record.node import SourceSite
from ..record.optimizer_history import OptimizerHistory
from ..record.tensor_summary import TensorSummary
from ..stats.device import DeviceArray
from ..stats.summarize import Summarized
from .journal import Journals
from .keeping import Pins, Policy
from .leaves import LeafEntry, Leaves
from .summary_work import StateWork, WorkItem
from .training_series import TrainingRecording

if TYPE_CHECKING:
    from graphscope.engine.optim.optimizer import Optimizer

# A parameter an event saw: (leaf identity, label, copy of value or `.grad` before, copy of the `.grad` read or None).
SawParam = tuple[int, str, DeviceArray, DeviceArray | None]
# An optimizer's state for a parameter: [(name, a copy of a tensor, or a number's literal)].
StateCopies = list[tuple[str, DeviceArray | str]]


class Saw(NamedTuple):
    """The parameters an event saw, waiting for their pass to be kept: (leaf identity, label, copy
    of the value (step) or `.grad` (zero_grad, reset) before it, copy of the `.grad` a step read
    or None) each."""

    row: int  # the event's index in record.optimizer
    params: list[SawParam]
    zeros: bool  # the grads were zeroed in place: `after` is zeros


class Stepped(NamedTuple):
    """A step's parameters after it, aligned with its Saw, the last of its event's: (copy after,
    copy before, the optimizer's state for it [(name, copy or literal)] or None) each."""

    row: int
    params: list[tuple[DeviceArray, DeviceArray, StateCopies | None]]


_new = tuple.__new__  # the pending tuples are built with it: half the cost of calling their classes
_SET_TO_NONE = {True: (("set_to_none", "True"),), False: (("set_to_none", "False"),)}


class OptimizerRecording:
    """Records optimizer events into `record.optimizer`, and holds their parameters' copies until
    their pass is put into the record (`work`) or leaves the detail window (`drop_detail`). The
    recorder hands it the engine's optimizer events while it is not sealed."""

    def __init__(
        self,
        record: Record,
        policy: Policy,
        leaves: Leaves,
        names: Names,
        journals: Journals,
        keep: Callable[[DeviceArray], DeviceArray],
        training: TrainingRecording,
        pins: Pins,
    ) -> None:
        self._record = record
        self._pins = pins
        # The recorder made record.optimizer an OptimizerHistory (Record says only a list).
        self._history = cast(OptimizerHistory, record.optimizer)
        self._keep_first = policy.keep_first
        self._leaves = leaves
        self._names = names
        self._journals = journals
        self._keep = keep  # array -> a copy to summarise later (see Recorder)
        self._training = training  # each step's update ratios, for every pass
        # pass index -> its events' Saw and Stepped copies, until kept or dropped
        self._pending: dict[int, list[Saw | Stepped]] = {}
        # The last pass that left the detail window: an event of it (its optimizer step, when the window
        # keeps no last passes) is a row from the start. Passes leave in order, so a pass at or before
        # it that is not kept for good has left too.
        self._dropped = -1
        # id(optimizer) -> (pass index, [(row, [(param, leaf, copy before)], its group's lr)]) while it steps
        self._open_steps: dict[
            int, tuple[int, list[tuple[int, list[tuple[Tensor, LeafEntry, DeviceArray]], float]]]
        ] = {}
        # (row, site, passes, leaves) of the last grad reset event
        self._last_reset: tuple[int, SourceSite | None, int, set[int | None]] | None = None
        # (row, passes, leaves) of the last update by hand
        self._last_update: tuple[int, int, set[int | None]] | None = None
        # (tensor, leaf, copy of its value, of its grad) while updated by hand
        self._updating: tuple[Tensor, LeafEntry, DeviceArray, DeviceArray | None] | None = None
        self._type_names: dict[type, tuple[str, str]] = {}  # class -> (its __name__, as a name)
        self._state_names: dict[str, str] = {}  # an optimizer state's key -> it as a name
        # id(param group) -> (its options, their literals); Any: the values the script set
        self._group_settings: dict[int, tuple[list[tuple[str, Any]], tuple[tuple[str, str], ...]]] = {}
        # (pass index, position in record.optimizer) of events held with parameters
        self._held_events: deque[tuple[int, int]] = deque()

    # --- engine events ------------------------------------------------------------------
    # Once or twice a step with every parameter: written for speed (no calls per parameter but
    # what it must do).

    def grads_zeroing(self, owner: object, params: Iterable[Tensor], set_to_none: object) -> None:
        set_to_none = bool(set_to_none)
        passes = len(self._record.passes)
        row = self._add_event(ZERO_GRAD, passes, self._type_name(owner), _SET_TO_NONE[set_to_none])
        seen: list[SawParam] = []
        entry_of, writes = self._leaves.entry_of, data_writes[0]
        for p in params:
            grad = p._grad
            if grad is None:
                continue
            leaf = entry_of(id(p))
            if leaf is None or leaf.first is None or leaf.ref() is not p:
                continue
            # Its `.grad`: the copy the last accumulation made, while it has not changed since.
            if leaf.grad_array is grad.array and leaf.grad_version == (grad._vc[0], writes):
                before = leaf.grad_copy
            else:
                before = self._leaves.grad_copy(leaf, grad)
            seen.append((leaf.first, leaf.label or self._leaves.label(p), before, None))
        if seen:
            self._pend(passes - 1, _new(Saw, (row, seen, not set_to_none)))

    def grad_clearing(self, tensor: Tensor) -> None:
        self._reset_by_user(tensor, self._leaves.known(tensor), zeros=False)

    def tensor_zeroing(self, tensor: Tensor) -> None:
        found = self._leaves.grad_owner(tensor)
        if found is not None:
            self._reset_by_user(*found, zeros=True)

    def optimizer_step_begun(self, optimizer: Optimizer) -> None:
        passes = len(self._record.passes)
        kind = self._type_name(optimizer)
        entry_of, value_and_grad, writes = self._leaves.entry_of, self._leaves.value_and_grad, data_writes[0]
        steps = []
        for group in optimizer.param_groups:
            row = self._add_event(OPTIMIZER_STEP, passes, kind, self._settings_of(group))
            seen: list[SawParam] = []
            changed: list[tuple[Tensor, LeafEntry, DeviceArray]] = []
            p: Tensor
            for p in group["params"]:
                grad = p._grad
                if grad is None:
                    continue  # the step skips a parameter without a grad
                leaf = entry_of(id(p))
                if leaf is None or leaf.first is None or leaf.ref() is not p:
                    continue
                before, read = value_and_grad(p, leaf, grad, writes)
                seen.append((leaf.first, leaf.label or self._leaves.label(p), before, read))
                changed.append((p, leaf, before))
            if seen:
                self._pend(passes - 1, _new(Saw, (row, seen, False)))
                steps.append((row, changed, _number(group.get("lr"))))
        self._open_steps[id(optimizer)] = (passes - 1, steps)

    def optimizer_step_ended(self, optimizer: Optimizer) -> None:
        opened = self._open_steps.pop(id(optimizer), None)
        if opened is None:
            return
        index, steps = opened
        state = optimizer.state
        state = state if isinstance(state, dict) else {}
        label, value_after, fresh = self._leaves.label, self._leaves.value_after, self._journals.current.fresh
        for row, changed, lr in steps:
            afters = []
            updates = []
            for p, leaf, before in changed:
                slot = state.get(p)
                after = value_after(p, leaf, fresh)
                afters.append((after, before, self._state_copies(slot) if slot else None))
                updates.append((leaf.label or label(p), before, after))
            self._pend(index, _new(Stepped, (row, afters)))
            self._training.updates(index, updates, lr)

    def leaf_updating(self, tensor: Tensor) -> None:
        self._updating = None
        leaf = self._leaves.known(tensor)
        passes = len(self._record.passes)
        if leaf is None or not passes or self._open_steps:
            return  # an initialisation, or an optimizer's step changing its parameter its own way
        grad = tensor._grad
        before, read = self._leaves.value_and_grad(tensor, leaf, grad, data_writes[0])
        self._updating = (tensor, leaf, before, read)

    def leaf_updated(self, tensor: Tensor) -> None:
        opened, self._updating = self._updating, None
        if opened is None or opened[0] is not tensor:
            return
        _, leaf, before, read = opened
        passes = len(self._record.passes)
        last = self._last_update  # (its row, passes, the leaves it updated)
        if last is None or last[0] != len(self._history) - 1 or last[1] != passes or leaf.first in last[2]:
            row = self._history.add(HAND_UPDATE, passes, "", (), self._names.site(hooks.user_site()))
            last = self._last_update = (row, passes, set())
        last[2].add(leaf.first)
        self._pend(
            passes - 1,
            _new(Saw, (last[0], [(leaf.first, leaf.label or self._leaves.label(tensor), before, read)], False)),
        )
        after = self._leaves.value_after(tensor, leaf, self._journals.current.fresh)
        self._pend(passes - 1, _new(Stepped, (last[0], [(after, before, None)])))
        self._training.updates(passes - 1, [(leaf.label or self._leaves.label(tensor), before, after)], _NAN)

    # --- what the rest of the recorder calls --------------------------------------------

    def pending(self) -> bool:
        """Whether events' copies wait to be put into the record."""
        return bool(self._pending)

    def drop_detail(self, index: int) -> None:
        """Pass `index` left the detail window: its events keep their rows, not their parameters.
        (Passes leave it in order: the events of an earlier pass still here belong to one kept
        for good, a pinned one, and are let go of.)"""
        held = self._held_events
        events = self._history
        while held and held[0][0] <= index:
            passed, position = held.popleft()
            if passed == index:
                events.compact(position, drop_params=True)
        self._pending.pop(index, None)
        self._dropped = max(self._dropped, index)

    def work(self, before: int) -> tuple[list[WorkItem], list[DeviceArray], list[StateWork]]:
        """The pending events of passes before `before` as ParamChanges in the record, and the
        work of summarising them, to do in one batch with a pass's own: [(target, key, array)],
        the part of it that reuses copies of the pass before (values and grads), and the states
        to finish after it."""
        work: list[WorkItem] = []
        states: list[StateWork] = []
        shared: list[DeviceArray] = []
        history, keep_first, held = self._history, self._keep_first, self._held_events
        pending = self._pending
        for index in [i for i in pending if i < before]:
            for entry in pending.pop(index):
                if type(entry) is Saw:
                    event = history.detail(entry.row)
                    if index >= keep_first:  # those of the first passes stay in detail
                        held.append((index, entry.row))
                    for leaf, label, was, read in entry.params:
                        change = ParamChange(leaf, label)
                        event.params.append(change)
                        work.append((change, "before", was))
                        shared.append(was)
                        if read is not None:
                            work.append((change, "grad", read))
                            shared.append(read)
                        if entry.zeros and type(was) is not Summarized:
                            work.append((change, "after", namespace(was).zeros_like(was)))
                    continue
                stepped: Stepped = entry  # type: ignore[assignment]  # not a Saw: a Stepped
                stepped_event = history.held(stepped.row)
                if stepped_event is None:
                    continue  # its pass left the detail window while it stepped (closures' passes)
                for change, (after, was, state) in zip(stepped_event.params[-len(stepped.params) :], stepped.params):
                    work.append((change, "after", after))
                    if type(after) is not Summarized and type(was) is not Summarized:  # else too large
                        work.append((change, "update", namespace(after).subtract(after, was)))
                    if state:
                        slots: list[TensorSummary | None] = [None] * len(state)
                        work += [(slots, i, value) for i, (_, value) in enumerate(state) if type(value) is not str]
                        states.append((change, state, slots))
        return work, shared, states

    def pending_copies(self) -> Iterator[DeviceArray]:
        """The copies of values and grads that pending changes share with a pass's own."""
        for pending in self._pending.values():
            for entry in pending:
                if type(entry) is Saw:
                    for _, _, was, read in entry.params:
                        yield was
                        if read is not None:
                            yield read

    # --- helpers --------------------------------------------------------------------------

    def _add_event(self, kind: str, passes: int, optimizer: str, settings: tuple[tuple[str, str], ...]) -> int:
        """A new event's row in record.optimizer, at the user's line that called it."""
        return self._history.add(kind, passes, optimizer, settings, self._names.site(hooks.user_site()))

    def _type_name(self, obj: object) -> str:
        """The name of an optimizer's (or a module's) class, made once per class."""
        kind = type(obj)
        cached = self._type_names.get(kind)
        if cached is None or cached[0] is not kind.__name__:
            cached = self._type_names[kind] = (kind.__name__, name(kind.__name__))
        return cached[1]

    def _pend(self, index: int, entry: Saw | Stepped) -> None:
        """Keep an event's copies (a Saw or Stepped) to turn into ParamChanges with the next pass
        put into the record, or at a flush; none for a pass that left the detail window (its row is all)."""
        if index <= self._dropped and not self._pins.for_good(index):
            return
        pending = self._pending.get(index)
        if pending is None:
            self._pending[index] = [entry]
        else:
            pending.append(entry)

    def _settings_of(self, group: dict[str, Any]) -> tuple[tuple[str, str], ...]:  # (Any: what the script set)
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

    def _reset_by_user(self, tensor: Tensor, leaf: LeafEntry | None, zeros: bool) -> None:
        """`tensor.grad = None` or `tensor.grad.zero_()`: one event, or a row added to the last
        when it is the same line's (a loop over the parameters)."""
        if leaf is None or tensor._grad is None:
            return
        site = self._names.site(hooks.user_site())
        passes = len(self._record.passes)
        last = self._last_reset  # (its row, site, passes, the leaves it reset)
        if (
            last is None
            or last[0] != len(self._history) - 1
            or last[1] != site
            or last[2] != passes
            or leaf.first in last[3]
        ):
            last = self._last_reset = (
                self._history.add(GRAD_RESET, passes, "", (), site),
                site,
                passes,
                set(),
            )
        last[3].add(leaf.first)
        before = self._leaves.grad_copy(leaf, tensor._grad)
        self._pend(
            passes - 1,
            _new(Saw, (last[0], [(leaf.first, leaf.label or self._leaves.label(tensor), before, None)], zeros)),
        )

    def _state_copies(self, slot: dict[object, Any]) -> StateCopies:  # (Any: what the optimizer keeps)
        """The optimizer's state for a parameter: tensors copied, numbers as literals."""
        out: StateCopies = []
        names = self._state_names
        for key, value in slot.items():
            if isinstance(value, Tensor):
                label = names.get(key) if type(key) is str else None
                out.append((label or self._state_name(key), self._keep(value.array)))
            elif isinstance(value, (int, float)):
                label = names.get(key) if type(key) is str else None
                # A plain number's repr is its literal (short_repr's own, without its work: a step count)
                text = repr(value) if type(value) in _NUMBERS else None
                literal = text if text is not None and len(text) <= 100 else short_repr(value)
                out.append((label or self._state_name(key), literal))
        return out

    def _state_name(self, key: object) -> str:
        """A state entry's key as a name, made once per key (a string key: every step asks again)."""
        label = name(str(key))
        if type(key) is str:
            if len(self._state_names) > 1024:
                self._state_names.clear()
            self._state_names[key] = label
        return label


def finish_states(states: Sequence[StateWork]) -> None:
    """Put each summarised state into its change: tensors as summaries, the rest as literals."""
    for change, entries, slots in states:
        # (a tensor's slot holds its summary by now)
        change.state = tuple((key, value if type(value) is str else s) for (key, value), s in zip(entries, slots))  # type: ignore[misc]


_MISSING = object()
_NUMBERS = (int, float, bool)  # (exactly these types: a subclass may have a repr of its own)


def _plain(value: Any) -> bool:  # (Any: an option the script set)
    kind = type(value)
    return kind in _PLAIN or (kind is tuple and all(type(v) in _PLAIN for v in value))


_PLAIN = (int, float, bool, str, type(None))


_NAN = float("nan")


def _number(value: object) -> float:
    """A learning rate as a float (a tensor's single value too); NaN when it is not a number."""
    try:
        return float(value)  # type: ignore[arg-type]  # (what the script set: tried, not trusted)
    except (TypeError, ValueError, OverflowError):
        return _NAN
