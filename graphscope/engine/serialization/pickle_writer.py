"""Plain Python values as pickle protocol 2, opcode for opcode as Python's pickler writes them.

torch.save's data.pkl names torch's own functions (`torch._utils._rebuild_tensor_v2`); Python's
pickler only names objects it can import, so the objects graphscope writes under torch's names
(tensors) are handed to a `reduce` callback that spells them as `Call`s of `Global`s.
"""

from __future__ import annotations

import pickle
import struct
from collections import OrderedDict
from collections.abc import Callable
from typing import NamedTuple, final


@final  # (so that `type(x) is Global` tells a Call from a Global)
class Global(NamedTuple):
    """A module-level name in the pickle (GLOBAL): what the reader looks up."""

    module: str
    name: str


class Call(NamedTuple):
    """`function(*args)` in the pickle (REDUCE): how a reader rebuilds an object, then its `state` (BUILD)."""

    function: Global
    args: tuple
    state: object = None


class NewObject(NamedTuple):
    """`cls.__new__(cls)` then its `state` (NEWOBJ, BUILD): how Python's pickler writes a plain object."""

    cls: Global
    state: dict


class PersistentId(NamedTuple):
    """A reference to data kept outside the pickle (BINPERSID): torch's storages."""

    id: tuple


class PickleWriter:
    """Writes one object tree; `reduce(obj)` spells any other object as a Call or a Global (a
    name the reader looks up), or raises TypeError."""

    def __init__(self, reduce: Callable[[object], Call | Global | NewObject]):
        self.reduce = reduce
        self.out = bytearray()
        self.memo: dict = {}  # id(obj), or a Global itself -> memo index
        self.alive: list = []  # keeps memoized objects alive, so their ids stay theirs
        self.building: set = set()  # ids of tuples being written (a tuple can't contain itself)

    def dumps(self, obj) -> bytes:
        self.out += pickle.PROTO + b"\x02"
        self.save(obj)
        self.out += pickle.STOP
        return bytes(self.out)

    def save(self, obj) -> None:
        kind = type(obj)
        if kind in _ATOMS:
            _ATOMS[kind](self, obj)
            return
        key = obj if kind is Global else id(obj)
        index = self.memo.get(key)
        if index is not None:
            self.out += pickle.BINGET + bytes([index]) if index < 256 else pickle.LONG_BINGET + struct.pack("<I", index)
            return
        writer = _CONTAINERS.get(kind)
        if writer is None:
            spelling = self.reduce(obj)
            if type(spelling) is Global:
                self.save(spelling)
            elif isinstance(spelling, NewObject):
                self.save_new_object(spelling, obj)
            else:
                self.save_call(spelling, obj, state=spelling.state)
        else:
            writer(self, obj)

    def memoize(self, key, obj) -> None:
        index = len(self.memo)
        self.memo[key] = index
        self.alive.append(obj)
        self.out += pickle.BINPUT + bytes([index]) if index < 256 else pickle.LONG_BINPUT + struct.pack("<I", index)

    def save_call(self, call: Call, obj, items=None, state=None) -> None:
        """function(*args) memoized as `obj`, then dict items and BUILD state as Python's save_reduce."""
        self.save(call.function)
        self.save(call.args)
        self.out += pickle.REDUCE
        self.memoize(id(obj), obj)
        if items:
            self.save_items(items)
        if state is not None:
            self.save(state)
            self.out += pickle.BUILD

    def save_new_object(self, new: NewObject, obj) -> None:
        """cls() made without arguments and memoized as `obj`, then its state, as Python's pickler (protocol 2)."""
        self.save(new.cls)
        self.out += pickle.EMPTY_TUPLE + pickle.NEWOBJ
        self.memoize(id(obj), obj)
        self.save(new.state)
        self.out += pickle.BUILD

    def save_items(self, items) -> None:
        """Dict items in batches of 1000 (SETITEM for a batch of one), as Python's pickler."""
        items = list(items)
        for start in range(0, len(items), 1000):
            batch = items[start : start + 1000]
            if len(batch) > 1:
                self.out += pickle.MARK
            for key, value in batch:
                self.save(key)
                self.save(value)
            self.out += pickle.SETITEMS if len(batch) > 1 else pickle.SETITEM


def _none(w, obj):
    w.out += pickle.NONE


def _bool(w, obj):
    w.out += pickle.NEWTRUE if obj else pickle.NEWFALSE


def _int(w, obj):
    if 0 <= obj < 256:
        w.out += pickle.BININT1 + bytes([obj])
    elif 0 <= obj < 65536:
        w.out += pickle.BININT2 + struct.pack("<H", obj)
    elif -(2**31) <= obj < 2**31:
        w.out += pickle.BININT + struct.pack("<i", obj)
    else:
        data = pickle.encode_long(obj)
        if len(data) < 256:
            w.out += pickle.LONG1 + bytes([len(data)]) + data
        else:
            w.out += pickle.LONG4 + struct.pack("<i", len(data)) + data


def _float(w, obj):
    w.out += pickle.BINFLOAT + struct.pack(">d", obj)


_ATOMS = {type(None): _none, bool: _bool, int: _int, float: _float}


def _str(w, obj):
    data = obj.encode("utf-8", "surrogatepass")
    w.out += pickle.BINUNICODE + struct.pack("<I", len(data)) + data
    w.memoize(id(obj), obj)


def _global(w, obj):
    w.out += pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode()
    w.memoize(obj, obj)


def _tuple(w, obj):
    if not obj:
        w.out += pickle.EMPTY_TUPLE
        return
    if id(obj) in w.building:
        raise ValueError("cannot save a tuple that contains itself (through a list or dict in it)")
    w.building.add(id(obj))
    if len(obj) > 3:
        w.out += pickle.MARK
    for item in obj:
        w.save(item)
    w.building.discard(id(obj))
    w.out += pickle.TUPLE if len(obj) > 3 else (pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3)[len(obj) - 1]
    w.memoize(id(obj), obj)


def _list(w, obj):
    w.out += pickle.EMPTY_LIST
    w.memoize(id(obj), obj)
    for start in range(0, len(obj), 1000):
        batch = obj[start : start + 1000]
        if len(batch) > 1:
            w.out += pickle.MARK
        for item in batch:
            w.save(item)
        w.out += pickle.APPENDS if len(batch) > 1 else pickle.APPEND


def _dict(w, obj):
    w.out += pickle.EMPTY_DICT
    w.memoize(id(obj), obj)
    w.save_items(obj.items())


def _ordered_dict(w, obj):
    w.save_call(Call(Global("collections", "OrderedDict"), ()), obj, obj.items(), vars(obj) or None)


def _set(w, obj):
    w.save_call(Call(Global("__builtin__", "set"), (list(obj),)), obj)


def _complex(w, obj):
    w.save_call(Call(Global("__builtin__", "complex"), (obj.real, obj.imag)), obj)


def _bytes(w, obj):
    if not obj:  # as Python's pickler: bytes() for no bytes
        w.save_call(Call(Global("__builtin__", "bytes"), ()), obj)
    else:
        w.save_call(Call(Global("_codecs", "encode"), (obj.decode("latin1"), "latin1")), obj)


def _call(w, obj):
    w.save_call(obj, obj, state=obj.state)


def _persistent_id(w, obj):
    w.save(obj.id)
    w.out += pickle.BINPERSID


_CONTAINERS = {
    str: _str,
    Global: _global,
    tuple: _tuple,
    list: _list,
    dict: _dict,
    OrderedDict: _ordered_dict,
    set: _set,
    complex: _complex,
    bytes: _bytes,
    Call: _call,
    PersistentId: _persistent_id,
}
