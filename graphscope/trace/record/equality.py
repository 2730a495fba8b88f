"""Equality for record data: NaN equals NaN and arrays compare by dtype and content, so a round trip compares equal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass

import numpy as np

_SEQUENCES = (list, tuple, Sequence)


def same(a: object, b: object) -> bool:
    """Whether two pieces of record data are equal, NaN matching NaN."""
    if a is b:
        return True
    if isinstance(a, str) or isinstance(b, str):
        return type(a) is type(b) and a == b
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if is_dataclass(a) and not isinstance(a, type):
        if type(a) is not type(b):
            return False
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a) if f.compare)
    if isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES):  # a PassHistory equals the list it stands for
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):  # a NodeTable equals the dict it stands for
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


class Same:
    """Mixin for dataclasses declared with eq=False: equality through `same`."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return same(self, other)

    __hash__ = None  # type: ignore[assignment]  # unhashable: the dataclasses' fields are mutable
