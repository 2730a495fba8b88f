"""HeldRows: a record's list that keeps recent items as objects and old ones as rows of columns (the reading half)."""

from __future__ import annotations

from collections.abc import Sequence


class HeldRows(Sequence):
    """Read like a list: equality with lists, indexes (negative too), slices, iteration both ways.
    Items held as objects are in `_held` (by index); a subclass stores the others as rows and
    gives `__len__` and `_row(i)`, the item made again from row i."""

    _what = "item"  # what an item is, for the IndexError

    def __init__(self):
        self._held: dict = {}

    def __eq__(self, other):
        if not isinstance(other, (list, tuple, HeldRows)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None

    def __len__(self) -> int:
        raise NotImplementedError

    def _row(self, i: int):
        raise NotImplementedError

    def _item(self, i: int):
        held = self._held.get(i)
        return held if held is not None else self._row(i)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"{self._what} index out of range")
        return self._item(index)

    def __iter__(self):
        return (self._item(i) for i in range(len(self)))

    def __reversed__(self):
        return (self._item(i) for i in range(len(self) - 1, -1, -1))
