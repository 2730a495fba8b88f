"""What a pickle may ask of its reader: a few hundred bytes can nest a tuple a million deep or share
one 2**100 ways, and hashing either (as a dict key) would crash Python or never end.

So each tuple's depth and weight (the values hashing it walks) are noted when it is built, too deep
is refused, hashing and copying are charged to a budget that grows with the pickle's size, and keys
aimed at one hash (which make each insertion walk past all the others) are refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import repeat
from operator import itemgetter

MAX_DEPTH = 1000  # tuples in tuples: Python's pickler cannot write deeper ones (its recursion limit)
WORK_PER_BYTE = 4  # steps of hashing and copying allowed per byte of pickle: plain data needs about 1
WORK_FLOOR = 1_000_000  # steps allowed to any pickle, however small
SAME_HASH_LIMIT = 8  # keys of one dict or set with one hash: plain data has one or two
_WEIGHT, _DEPTH = itemgetter(1), itemgetter(2)  # of a noted shape: (value, weight, depth)
_SALTED = frozenset({str, bytes})  # types whose hashes are salted


class PickleBounds:
    """The bounds of one pickle of `size` bytes; `refusal(text)` makes the error that names its file."""

    def __init__(self, size: int, refusal: Callable[[str], Exception]):
        self.size, self.refusal = size, refusal
        self.budget = self.work_left = WORK_FLOOR + WORK_PER_BYTE * size
        self.shapes: dict = {}  # id -> (a tuple or frozenset noted here, its weight, its depth)
        # (id of a dict or set, hash) -> keys of that hash added to it
        self.same_hash: Counter[tuple[int, int]] = Counter()

    def spend(self, steps: int, doing: str) -> None:
        self.work_left -= steps
        if self.work_left < 0:
            raise self.refusal(
                f"{doing} would take more than the {self.budget:,} steps allowed to a pickle of "
                f"{self.size:,} bytes (a value in it is shared or repeated many times over): "
                "the file is damaged or crafted to stall loaders"
            )

    def weight(self, value) -> int:
        """The steps hashing or comparing `value` may take: a tuple counts a value it shares once per share."""
        noted = self.shapes.get(id(value))
        return 1 if noted is None else noted[1]

    def made(self, value):
        """`value`, a tuple or frozenset just built, with its weight and depth noted."""
        # In C, item by item: a checkpoint holds a few tuples per tensor.
        noted = list(filter(None, map(self.shapes.get, map(id, value))))
        weight = 1 + len(value) - len(noted) + sum(map(_WEIGHT, noted))
        depth = 1 + max(map(_DEPTH, noted), default=0)
        if depth > MAX_DEPTH:
            raise self.refusal(
                f"it nests tuples more than {MAX_DEPTH:,} deep, deeper than Python's pickler "
                "writes: the file is damaged or crafted to crash loaders"
            )
        self.shapes[id(value)] = (value, weight, depth)
        return value

    def made_int(self, value: int) -> int:
        """`value`, an int just read, noted when hashing it takes more than a step."""
        if value.bit_length() > 64:
            self.shapes[id(value)] = (value, 1 + value.bit_length() // 64, 0)
        return value

    def check_keys(self, target, keys, doing: str) -> None:
        """Charge hashing `keys` into the dict or set `target` (None: a new one), and refuse keys that
        cannot be keys or that share one hash with many others (each comparison costs at most a key's
        weight, so a key costs at most SAME_HASH_LIMIT times what it is charged)."""
        noted = list(filter(None, map(self.shapes.get, map(id, keys))))
        self.spend(len(keys) - len(noted) + sum(map(_WEIGHT, noted)), f"hashing the keys of {doing}")
        try:  # after charging: hashing a tuple shared 2**100 ways would take for ever
            slots = list(zip(repeat(id(target)), map(hash, keys)))
        except TypeError as error:
            raise self.refusal(f"damaged pickle: {doing} with a key that can't be one ({error})") from None
        if _SALTED.issuperset(map(type, keys)):
            return  # their hashes are salted per process: no file can aim them
        counts = self.same_hash if target is not None else Counter()
        counts.update(slots)
        if max(map(counts.__getitem__, slots), default=0) > SAME_HASH_LIMIT:
            raise self.refusal(
                f"{doing} adds more than {SAME_HASH_LIMIT} keys that share one hash to a dict or "
                "set, so adding each walks past all the others: the file is crafted to stall loaders"
            )
