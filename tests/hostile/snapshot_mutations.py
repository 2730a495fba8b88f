"""Mutations of a valid snapshot's JSON that keep each column valid on its own but let columns disagree:
an integer (a node id, an input, a tensor's row, a dimension, a count) set to another of its column's
values or one near it, two entries swapped, two strings of the string table swapped (ops renamed)."""

from __future__ import annotations

import base64
import copy
import random
from collections.abc import Callable
from typing import Any

import numpy as np

Json = Any  # parsed JSON: objects, lists, strings, numbers
# A place in the document: (the container, its key or index).
Place = tuple[Any, Any]


def _int_columns(doc: Json, out: list[Place]) -> None:
    """Every {"dtype", "data"} integer column under `doc` (the node and tensor columns)."""
    if isinstance(doc, dict):
        if set(doc) == {"dtype", "data"} and isinstance(doc["data"], str):
            out.append((doc, "data"))
            return
        for v in doc.values():
            _int_columns(v, out)
    elif isinstance(doc, list):
        for v in doc:
            _int_columns(v, out)


def _int_places(doc: Json, out: list[Place], parent: Any = None, key: Any = None) -> None:
    """Every plain JSON integer under `doc` (ids, rows, indexes, counts in the passes and optimizer)."""
    if isinstance(doc, dict):
        if set(doc) == {"dtype", "data"}:
            return
        for k, v in doc.items():
            _int_places(v, out, doc, k)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            _int_places(v, out, doc, i)
    elif type(doc) is int and parent is not None:
        out.append((parent, key))


def _lists(doc: Json, out: list[list[Any]]) -> None:
    """Every list of two or more entries under `doc`."""
    if isinstance(doc, dict):
        for v in doc.values():
            _lists(v, out)
    elif isinstance(doc, list):
        if len(doc) >= 2:
            out.append(doc)
        for v in doc:
            _lists(v, out)


def _near(value: int, others: list[int], rng: random.Random) -> int:
    """Another of `others`, or one step from `value` (never `value` itself when it can help it)."""
    choices = [v for v in set(others) if v != value] + [value + 1, max(value - 1, 0)]
    return rng.choice(choices)


def _mutate_column(doc: Json, rng: random.Random) -> bool:
    columns: list[Place] = []
    _int_columns(doc, columns)
    if not columns:
        return False
    holder, key = rng.choice(columns)
    dtype = np.dtype(holder["dtype"]).newbyteorder("<")
    a = np.frombuffer(base64.b64decode(holder[key]), dtype=dtype).copy()
    if not a.size:
        return False
    i = rng.randrange(a.size)
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    value = _near(int(a[i]), a.tolist()[:256], rng)
    if info is not None:
        value = min(max(value, int(info.min)), int(info.max))
    a[i] = value
    holder[key] = base64.b64encode(a.tobytes()).decode()
    return True


def _mutate_int(doc: Json, rng: random.Random) -> bool:
    places: list[Place] = []
    _int_places(doc, places)
    places = [(c, k) for c, k in places if k not in ("version", "count")]
    if not places:
        return False
    holder, key = rng.choice(places)
    siblings = [v for v in (holder.values() if isinstance(holder, dict) else holder) if type(v) is int]
    holder[key] = _near(holder[key], siblings, rng)
    return True


def _swap(doc: Json, rng: random.Random) -> bool:
    lists: list[list[Any]] = []
    _lists(doc, lists)
    if not lists:
        return False
    chosen = rng.choice(lists)
    i, j = rng.sample(range(len(chosen)), 2)
    chosen[i], chosen[j] = chosen[j], chosen[i]
    return True


def _swap_strings(doc: Json, rng: random.Random) -> bool:
    strings = doc.get("strings")
    if not isinstance(strings, list) or len(strings) < 2:
        return False
    i, j = rng.sample(range(len(strings)), 2)
    strings[i], strings[j] = strings[j], strings[i]
    return True


MUTATIONS: tuple[Callable[[Json, random.Random], bool], ...] = (
    _mutate_column,
    _mutate_column,
    _mutate_int,
    _mutate_int,
    _swap,
    _swap_strings,
)


def mutated(doc: Json, rng: random.Random, count: int = 1) -> Json:
    """A copy of `doc` with `count` mutations, each drawn by `rng`."""
    doc = copy.deepcopy(doc)
    done = 0
    while done < count:
        if rng.choice(MUTATIONS)(doc, rng):
            done += 1
    return doc
