"""One pass as raw events (the recorder's journal), with a named slot for every field an event holds, and the
journals the recorder still holds (`Journals`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from graphscope.engine.backend import is_array
from graphscope.engine.tensor import Tensor

from ..record.model import EXTERNAL
from ..record.naming import INPUT_ROLES, name
from ..record.step_table import LiveSteps
from ..stats.device import DeviceArray

if TYPE_CHECKING:
    from graphscope.engine.function import Function
    from graphscope.engine.hooks import Site

    from .leaves import Fresh


class OpEvent(NamedTuple):
    """A Function's output was made. Its array is kept, not copied (the engine never writes into
    an op's output); `version` is its version counter `vc[0]` then: a later value means it was
    overwritten in place and the value is lost."""

    id: int
    names: tuple[str, str]  # (op, name), fit for the record
    inputs: tuple[int, ...]  # node ids of its tensor (and raw array) inputs
    array: DeviceArray
    site: Site | None
    module: str | None
    requires_grad: bool
    vc: list[int]  # the output's live version counter
    version: int
    args: tuple[tuple[str, Any], ...] | None  # (name, value) of its non-tensor arguments (Any: the script's)
    node: Function  # what it saved is named from its state (`saved_roles`)


def saved_roles(e: OpEvent, state: Iterable[tuple[str, object]]) -> tuple[str, ...]:
    """The roles of the arrays an op's Function saved for backward: "output", "input:K", or the
    attribute's name, from its state's (name, value) pairs. The state is read just before its
    backward frees it (reading it makes the instance's dict, so not at creation: a forward of
    many ops would hold them all) and named only for a pass put into the record."""
    out = e.array
    arrays = None
    saved = []
    for key, value in state:
        if value is out:
            saved.append("output")
        elif type(value) in _NOT_ARRAYS:  # a setting: a number, the versions of its inputs
            continue
        elif type(value) is _ndarray or is_array(value):  # (a NumPy array, the usual case, at no call's cost)
            if arrays is None:
                arrays = [
                    x.array if isinstance(x, Tensor) else x
                    for x in e.node.inputs
                    if isinstance(x, Tensor) or (type(x) not in _NOT_ARRAYS and is_array(x))
                ]
            for k, a in enumerate(arrays):
                if value is a:
                    saved.append(INPUT_ROLES[k] if k < len(INPUT_ROLES) else f"input:{k}")
                    break
            else:
                role = _attribute_roles.get(key)
                if role is None:
                    if len(_attribute_roles) > 4096:
                        _attribute_roles.clear()
                    role = _attribute_roles[key] = name(key)
                saved.append(role)
    return tuple(saved)


_ndarray = np.ndarray
_NOT_ARRAYS = frozenset((tuple, int, float, bool, type(None), str))  # what a Function's state holds besides arrays
_attribute_roles: dict[str, str] = {}  # a saved attribute's name -> its role, fit for the record (made once)


class LeafEvent(NamedTuple):
    """A leaf tensor was used: `copy` is its value then (shared while it does not change)."""

    id: int
    copy: DeviceArray
    site: Site | None
    module: str | None
    requires_grad: bool
    label: str | None
    leaf: int | None = None  # the leaf's identity across passes (Node.leaf)


class ConstantEvent(NamedTuple):
    """A non-tensor input: a Python value, or a raw array (an index, a mask), copied."""

    id: int
    value: Any  # what the script passed
    site: Site | None
    module: str | None


class ExternalEvent(NamedTuple):
    """A tensor or Function made where the record cannot see (copy None for a Function)."""

    id: int
    name: str
    copy: DeviceArray | None
    site: Site | None
    module: str | None
    requires_grad: bool
    op: str = EXTERNAL


class Seen(NamedTuple):
    """A tensor or Function a journal has seen, and the record node it became."""

    ref: Callable[[], object]  # a weak reference to it
    node: int


Event = OpEvent | LeafEvent | ConstantEvent | ExternalEvent
# A backward step: (node id, grad output, grads to its inputs or None until known).
StepRow = tuple[int, DeviceArray, tuple[DeviceArray | None, ...] | None]
# A leaf's grad accumulated at a step: (leaf node id, copy of the grad, of .grad before (or None), of .grad after).
LeafGradRow = tuple[int, DeviceArray, DeviceArray | None, DeviceArray]


class Journal:
    """One pass (its forward, then its backward) as raw events: copies of the arrays and the
    ids that link them. Cheap to write and to throw away; turned into record nodes and steps
    only for a pass kept in detail."""

    __slots__ = (
        "index",
        "first",
        "events",
        "made",
        "saved",
        "tensors",
        "functions",
        "resolved",
        "step_leaves",
        "made_step",
        "done",
        "steps_done",
        "materialized",
        "referenced",
        "ids",
        "finite",
        "fresh",
        "tape",
        "taping",
        "plans",
        "outputs",
    )

    def __init__(self, index: int, first: int = 0) -> None:
        self.index = index
        self.first = first  # the id of its first event (each event takes the next id)
        self.events: list[Event | None] = []  # the events above in creation order; None once materialised
        # Function `seq` (unique for the whole run) -> its node: plain ints, no weak references, so
        # a tensor made by an op is found through its `grad_fn` at the cost of one lookup.
        self.made: dict[int, int] = {}
        # op node id -> its Function's state just before its backward (a copy of its `__dict__`)
        self.saved: dict[int, dict[str, object]] = {}
        self.tensors: dict[int, Seen] = {}  # leaves and unrecorded tensors, by id(tensor)
        self.functions: dict[int, Seen] = {}  # unrecorded Functions without a seq, by id(Function)
        # One backward step as it ran (by calls, or resolved from the tape), until put into the record:
        # (node id, grad output, grads to its inputs or None until known). Plain tuples of ints and arrays,
        # which the cyclic collector stops tracking: a long pass's steps add nothing to its scans.
        self.resolved: list[StepRow] = []
        # Steps the engine wrote while no other observer stepped through backward (hooks'
        # `backward_tape`): [node, grad output, grad inputs, its saved state], resolved into
        # `steps` only when read, which a pass that is trimmed unread never is.
        self.tape: list[list[Any]] = []  # (Any: the engine's mixed lists, as hooks.backward_tape says)
        self.taping = False  # the engine is writing the tape (its last step may be running)
        self.plans: list[tuple[Sequence[Function], tuple[int, ...]]] = []  # (planned Functions, their ids) per backward
        self.step_leaves: dict[int, list[LeafGradRow]] = {}  # step position -> its leaves' grads
        self.made_step: tuple[int, LiveSteps] | None = None  # (position, the record's rows) of the last step put there
        self.done = 0  # events already turned into nodes
        self.steps_done = 0
        self.materialized = False  # some of it is in the record
        self.referenced: set[int] = set()  # its node ids that later passes refer to
        self.ids: list[int] = []  # node ids put into the record
        self.finite: set[int] = set()  # ids of arrays here already known to hold no NaN/Inf
        self.fresh: Fresh = []  # (leaf entry, copy) of the leaves copied (not shared) in this pass
        # module -> its last op put into the record so far (the training series reads the rest of
        # the module outputs from `events` when the pass ends)
        self.outputs: dict[str, OpEvent] = {}

    def steps_begun(self) -> int:
        """How many backward steps have begun (the last may be running), without resolving the tape."""
        return len(self.resolved) + len(self.tape)

    @property
    def steps(self) -> list[StepRow]:
        """The backward steps as (node id, grad output, grad inputs), the tape's resolved first."""
        if self.tape:
            self.untape()
        return self.resolved

    @steps.setter
    def steps(self, steps: list[StepRow]) -> None:
        self.resolved, self.tape = steps, []

    def untape(self) -> None:
        """Resolve the tape's steps into `steps` (and their ops' saved state into `saved`): each
        step's node id is the one its backward's planned order gave it, its grads aligned with
        the node's recorded inputs. A step whose backward is still running stays on the tape."""
        tape = self.tape
        done = len(tape) if not self.taping or tape[-1][2] is not None else len(tape) - 1
        if not done:
            return
        plan: dict[Function, int] = {}
        for order, ids in self.plans:
            plan.update(zip(order, ids))
        steps, saved, events, first = self.resolved, self.saved, self.events, self.first
        known = len(events)
        for position in range(done):
            step = tape[position]
            if len(step) == 4:  # (the usual step: no leaf grads after its four)
                node, grad_output, grad_inputs, state = step
                leaves = None
            else:
                node, grad_output, grad_inputs, state = step[:4]
                leaves = step[4:]  # the leaf grads it accumulated: (leaf node, copy, before, now)
            nid = plan[node]
            k = nid - first
            e = events[k] if 0 <= k < known else None
            if type(e) is OpEvent and e.id == nid:  # its own pass's op, not yet in the record: keep what it saved
                saved[nid] = state  # (the engine's copy, the journal's own)
            if grad_inputs is not None:  # aligned with the recorded inputs: none for non-tensor arguments
                if type(e) is OpEvent and len(e.inputs) == len(node.inputs) == len(grad_inputs):
                    grad_inputs = tuple(grad_inputs)  # (every input a tensor or an array: the usual case)
                else:
                    grad_inputs = tuple(
                        [g for x, g in zip(node.inputs, grad_inputs) if isinstance(x, Tensor) or is_array(x)]
                    )
            if leaves is not None:
                self.step_leaves[len(steps)] = leaves
            steps.append((nid, grad_output, grad_inputs))
        del tape[:done]

    def step_ended(self, grads: tuple[DeviceArray | None, ...]) -> LiveSteps | None:
        """The last step's grads to its inputs (its backward returned): filed with it, or, where the
        step is in the record already (the session flushed while paused in it), the rows it is the
        last of returned for them to be written into."""
        steps = self.steps
        made = self.made_step
        if made is not None and made[0] == len(steps) - 1:
            return made[1]
        nid, grad_output, _ = steps[-1]
        steps[-1] = (nid, grad_output, grads)
        return None

    def leaf_grad(
        self, nid: int, copy: DeviceArray, before: DeviceArray | None, now: DeviceArray, grad: DeviceArray
    ) -> LiveSteps | None:
        """A leaf's grad accumulated at the last step: node `nid`, copies of the grad added, of `.grad`
        before (or None) and after; `grad` is the added grad itself, which the step's grads may hold
        (and which user code may change: the copy takes its place). Filed with the step, or, where
        the step is in the record already, the rows it is the last of returned for it to be written into."""
        tape = self.tape
        if tape:  # its step is the tape's last: it goes there, filed with the step when resolved
            step = tape[-1]
            step[2] = _shared_copy(step[2], grad, copy)  # (now: the live `.grad` is not held)
            step.append((nid, copy, before, now))
            return None
        steps = self.resolved
        if not steps:
            return None
        k = len(steps) - 1
        made = self.made_step
        if made is not None and made[0] == k:
            return made[1]
        node, grad_output, grads = steps[k]
        steps[k] = (node, grad_output, _shared_copy(grads, grad, copy))
        leaves = self.step_leaves.get(k)
        if leaves is None:
            self.step_leaves[k] = [(nid, copy, before, now)]
        else:
            leaves.append((nid, copy, before, now))
        return None

    def running(self) -> int | None:
        """The node id of the tape's step whose backward has not returned (it raised), if any."""
        tape = self.tape
        if not (self.taping and tape and tape[-1][2] is None):
            return None
        node: Function = tape[-1][0]
        for order, ids in reversed(self.plans):
            if node in order:
                return ids[order.index(node)]
        return None


def _shared_copy(
    grads: tuple[DeviceArray | None, ...] | None, grad: DeviceArray, copy: DeviceArray
) -> tuple[DeviceArray | None, ...] | None:
    """A step's grads with the leaf's `copy` in place of `grad` itself where it is one of them (the
    step's grad for a leaf may be the array that became `.grad`, which user code may change)."""
    if grads is not None:
        for g in grads:
            if g is grad:
                return tuple([copy if g is grad else g for g in grads])
    return grads


class Journals:
    """The journals the recorder holds: the recent passes' (oldest first; the last is the current
    pass's), whose nodes a new node may still refer to, and those of passes kept for good (the
    first, the pinned), found the same way however long ago they ran."""

    def __init__(self) -> None:
        self.current = Journal(0, 0)
        self._recent: deque[Journal] = deque([self.current])
        self._kept: list[Journal] = []

    def begin(self, index: int, first: int) -> Journal:
        """The next pass's journal, now the current one; its first event takes id `first`."""
        self.current = Journal(index, first)
        self._recent.append(self.current)
        return self.current

    def recent(self) -> list[Journal]:
        """The recent journals, oldest first (a list: the caller may let some go meanwhile)."""
        return list(self._recent)

    def holding(self, index: int) -> Journal | None:
        """The recent journal of pass `index`, if still held."""
        return next((j for j in self._recent if j.index == index), None)

    def keep_for_good(self, j: Journal) -> None:
        """Keep `j` findable however many passes follow (its pass is kept in detail for good)."""
        if j not in self._kept:
            self._kept.append(j)

    def let_go(self, window: int) -> list[Journal]:
        """The oldest recent journals past the newest `window`, no longer held."""
        recent = self._recent
        return [recent.popleft() for _ in range(len(recent) - window)]

    def lookup_order(self) -> Iterator[Journal]:
        """Journals whose nodes a new node may refer to: the recent ones, newest first, then
        those of passes kept for good."""
        yield from reversed(self._recent)
        yield from self._kept

    def refer(self, fn: Function, seq: int | None) -> int | None:
        """The node a Function became in a held journal, else None; where that is an older pass's,
        noted as referenced there (trimming that pass keeps it)."""
        found = self.find(fn, seq)
        if found is None:
            return None
        older, nid = found
        if older is not self.current:
            older.referenced.add(nid)
        return nid

    def node_of(self, obj: object) -> int | None:
        """The node a live Function or Tensor became in a held journal, else None."""
        if isinstance(obj, Tensor):
            fn = obj.grad_fn
            for j in self.lookup_order():
                nid = None if fn is None else j.made.get(fn.seq)
                if nid is not None:
                    return nid
                entry = j.tensors.get(id(obj))
                if entry is not None and entry.ref() is obj:
                    return entry.node
            return None
        seq = getattr(obj, "seq", None)
        nid = self.current.made.get(seq)  # type: ignore[arg-type]  # (None, no seq: none) the current pass: nearly always
        if nid is not None:
            return nid
        found = self.find(obj, seq)
        return None if found is None else found[1]

    def find(self, fn: object, seq: int | None) -> tuple[Journal, int] | None:
        """(journal, node id) of a Function seen in a recent or kept pass, else None."""
        for j in self.lookup_order():
            nid = j.made.get(seq)  # type: ignore[arg-type]  # None (a Function without a seq) finds nothing
            if nid is not None:
                return j, nid
            entry = j.functions.get(id(fn))
            if entry is not None and entry.ref() is fn:
                return j, entry.node
        return None
