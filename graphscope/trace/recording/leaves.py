"""What the recorder knows of each leaf tensor across passes, and the copies of its value and `.grad` that
the passes and the optimizer's events share while the tensor does not change."""

from __future__ import annotations

import weakref
from collections.abc import Callable

from graphscope.engine.tensor import Tensor, data_writes

from ..record.naming import Names
from ..stats.device import DeviceArray

# (leaf entry, copy) of the leaves copied (not shared) in a pass: its journal's `fresh`.
Fresh = list[tuple["LeafEntry", DeviceArray]]


class LeafEntry:
    """What the recorder knows of a leaf tensor across passes: its identity, its last array and
    version, and the copy of it (shared by the passes while the leaf does not change); likewise
    for its `.grad` (shared by the next accumulation's "before" and an optimizer's events)."""

    __slots__ = (
        "ref",
        "array",
        "version",
        "copy",
        "finite",
        "label",
        "first",
        "grad_array",
        "grad_version",
        "grad_copy",
        "grad_key",
        "before",
    )

    def __init__(self, ref: weakref.ref[Tensor]) -> None:
        self.ref = ref  # a weak reference to the tensor
        self.array: DeviceArray | None = None  # the array the copy was made of
        self.version: tuple[int, int] | None = None  # (its version counter, the engine's `.data` writes) then
        self.copy: DeviceArray | None = None
        self.finite = False  # the copy is known to hold no NaN/Inf
        self.label: str | None = None
        self.first: int | None = None  # the first record node it became: its identity (Node.leaf)
        self.grad_array: DeviceArray | None = None  # the `.grad` array `grad_copy` was made of, and its version then
        self.grad_version: tuple[int, int] | None = None
        self.grad_copy: DeviceArray | None = None
        self.grad_key: int | None = None  # the id of the `.grad` array it is known to own (GradOwners)
        self.before: DeviceArray | None = None  # a copy of `.grad` before the accumulation under way


class Leaves:
    """The leaves' entries (`LeafEntry`, by id(tensor)) and which leaf each `.grad` array belongs to,
    so `w.grad.zero_()` is known as a reset of w's grad. `keep(array)` makes a copy to summarise later
    (or a summary at once, for a large array)."""

    def __init__(self, keep: Callable[[DeviceArray], DeviceArray], names: Names) -> None:
        self._keep = keep
        self._names = names
        self._entries: dict[int, LeafEntry] = {}  # id(leaf) -> what is known of it
        self._grad_owners: dict[int, LeafEntry] = {}  # id(.grad array) -> the leaf whose grad it is
        # The entry of id(tensor), or None: the dict's own `get`, bound once (a call per leaf used).
        # The entry may be another tensor's that had the same id: check `entry.ref() is tensor`.
        self.entry_of = self._entries.get

    def add(self, tensor: Tensor) -> LeafEntry:
        """A new entry for `tensor` (new to the recorder, or in place of a dead tensor's with its id)."""
        leaf = self._entries[id(tensor)] = LeafEntry(weakref.ref(tensor))
        return leaf

    def entry(self, tensor: Tensor) -> LeafEntry:
        """The tensor's entry, made if it has none."""
        leaf = self._entries.get(id(tensor))
        return self.add(tensor) if leaf is None or leaf.ref() is not tensor else leaf

    def known(self, tensor: Tensor) -> LeafEntry | None:
        """The leaf's entry when it has an identity (it was in a recorded pass)."""
        leaf = self._entries.get(id(tensor))
        if leaf is None or leaf.ref() is not tensor or leaf.first is None:
            return None
        return leaf

    def copy_value(self, tensor: Tensor, leaf: LeafEntry | None, fresh: Fresh) -> LeafEntry:
        """The entry of a leaf new to the recorder (`leaf` None or another tensor's) or changed
        since its last copy, holding a new copy of its value (noted in `fresh`, its pass's)."""
        if leaf is None or leaf.ref() is not tensor:
            leaf = self.add(tensor)
        array = tensor.array
        copy = self._keep(array)
        leaf.array, leaf.version, leaf.copy, leaf.finite = array, (tensor._vc[0], data_writes[0]), copy, False
        fresh.append((leaf, copy))
        return leaf

    def grad_copy(self, leaf: LeafEntry, grad: Tensor) -> DeviceArray:
        """A copy of the leaf's `.grad` as it is: the last one made, while it has not changed since."""
        array = grad.array
        version = (grad._vc[0], data_writes[0])
        if leaf.grad_array is array and leaf.grad_version == version:
            return leaf.grad_copy
        leaf.grad_array, leaf.grad_version, leaf.grad_copy = array, version, self._keep(array)
        return leaf.grad_copy

    def value_and_grad(
        self, p: Tensor, leaf: LeafEntry, grad: Tensor | None, writes: int
    ) -> tuple[DeviceArray, DeviceArray | None]:
        """Copies of a parameter's value and `.grad` (None without one) before a step: its value,
        the copy its pass holds while it has not changed since; its `.grad`, the copy the last
        accumulation made, likewise."""
        array = p.array
        if leaf.array is array and leaf.copy is not None and leaf.version == (p._vc[0], writes):
            before = leaf.copy
        else:
            before = self._keep(array)
        if grad is None:
            return before, None
        if leaf.grad_array is grad.array and leaf.grad_version == (grad._vc[0], writes):
            return before, leaf.grad_copy
        return before, self.grad_copy(leaf, grad)

    def value_after(self, p: Tensor, leaf: LeafEntry, fresh: Fresh) -> DeviceArray:
        """A copy of a parameter's value after a step, which the next forward (whose journal's
        `fresh` it is noted in) shares while the parameter stays as the step left it."""
        array = p.array
        after = self._keep(array)
        leaf.array, leaf.version, leaf.copy, leaf.finite = array, (p._vc[0], data_writes[0]), after, False
        fresh.append((leaf, after))
        return after

    def label(self, t: Tensor) -> str:
        """The leaf's label (see `Names.label`), kept in its entry for the next passes."""
        label = self._names.label(t)
        leaf = self._entries.get(id(t))
        if leaf is not None and leaf.ref() is t:
            leaf.label = label
        return label

    def note_grad(self, leaf: LeafEntry, array: DeviceArray) -> None:
        """`array` is the leaf's `.grad` now."""
        key = id(array)
        old = leaf.grad_key
        if old == key:
            return
        owners = self._grad_owners
        if old is not None and owners.get(old) is leaf:
            del owners[old]
        owners[key] = leaf
        leaf.grad_key = key

    def grad_owner(self, tensor: Tensor) -> tuple[Tensor, LeafEntry] | None:
        """(the leaf Tensor, its entry) whose `.grad` is `tensor` (or shares its array), else None."""
        leaf = self._grad_owners.get(id(tensor.array))
        t = leaf.ref() if leaf is not None else None
        if t is None or t._grad is None or t._grad.array is not tensor.array:
            return None
        return t, leaf

    def grads_owned(self) -> int:
        """How many `.grad` arrays are known by their leaf."""
        return len(self._grad_owners)

    def forget_dead(self) -> None:
        """Forget the leaves that have died, and the grads they owned."""
        entries = self._entries
        for key in [k for k, e in entries.items() if e.ref() is None]:
            del entries[key]
        self._grad_owners = {k: e for k, e in self._grad_owners.items() if e.ref() is not None}

    def copies(self) -> set[int]:
        """The ids of the copies the leaves hold now (of values and grads): a later pass may share them."""
        entries = self._entries.values()
        held = {id(e.copy) for e in entries if e.copy is not None}
        held.update(id(e.grad_copy) for e in entries if e.grad_copy is not None)
        return held
