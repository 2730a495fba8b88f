"""HeldRows: a record's list that keeps recent items as objects and old ones as rows of columns (the reading half)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class HeldRows(Sequence[T]):
    """Read like a list: equality with lists, indexes (negative too), slices, iteration both ways.
    Items held as objects are in `_held` (by index); a subclass stores the others as rows and
    gives `__len__` and `_row(i)`, the item made again from row i."""

    _what = "item"  # what an item is, for the IndexError

    def __init__(self) -> None:
        self._held: dict[int, T] = {}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (list, tuple, HeldRows)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # unhashable, as the list it stands for

    def __len__(self) -> int:
        raise NotImplementedError

    def _row(self, i: int) -> T:
        raise NotImplementedError

    def _item(self, i: int) -> T:
        held = self._held.get(i)
        return held if held is not None else self._row(i)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"{self._what} index out of range")
        return self._item(index)

    def __iter__(self) -> Iterator[T]:
        return (self._item(i) for i in range(len(self)))

    def __reversed__(self) -> Iterator[T]:
        return (self._item(i) for i in range(len(self) - 1, -1, -1))
