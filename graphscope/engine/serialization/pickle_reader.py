"""Reads a pickle without running code from it: an interpreter of pickle's opcodes in which every
global comes from an allow-list and only those globals are ever called (torch.load's weights_only).

Python's own Unpickler calls whatever a pickle names; this one knows the opcodes that pickles of
plain data use, asks `find_global` for each name (which returns an allowed object or raises),
calls nothing else, and refuses every other opcode with an error that names it.
"""

from __future__ import annotations

import codecs
import pickle
import struct
from collections import OrderedDict
from typing import Callable

UnpicklingError = pickle.UnpicklingError


class SafeUnpickler:
    """One pickle, read from the bytes `data`, its globals from `find_global(module, name)`."""

    def __init__(self, data: bytes, find_global: Callable, persistent_load: Callable, encoding="utf-8"):
        self.raw = bytes(data)
        self.data = memoryview(self.raw)
        self.position = 0
        self.find_global = find_global
        self.persistent_load = persistent_load
        self.encoding = encoding
        self.callables: set = set()  # ids of the objects find_global returned: all REDUCE may call
        self.keep: list = []  # those objects, alive while their ids are in `callables`
        self.memo: dict = {}
        self.stack: list = []
        self.marks: list = []

    def load(self):
        while True:
            at = self.position
            code = self.read(1)[0]
            handler = _OPCODES.get(code)
            if handler is None:
                raise UnpicklingError(f"unsupported pickle opcode {_opcode_name(code)} at byte "
                                      f"{at}: graphscope.load reads only pickles of plain data")
            if handler is _stop:
                if len(self.stack) != 1 or self.marks:
                    raise UnpicklingError("damaged pickle: STOP with an unfinished stack")
                return self.stack[0]
            try:
                handler(self)
            except IndexError:
                raise UnpicklingError(f"damaged pickle: opcode {_opcode_name(code)} at byte "
                                      f"{at} found too few values") from None

    def read(self, n: int) -> memoryview:
        end = self.position + n
        if end > len(self.data):
            raise UnpicklingError("damaged pickle: it ends before its STOP opcode")
        chunk = self.data[self.position:end]
        self.position = end
        return chunk

    def read_line(self) -> str:
        end = self.raw.find(b"\n", self.position)
        if end < 0:
            raise UnpicklingError("damaged pickle: a GLOBAL name has no end")
        return bytes(self.read(end + 1 - self.position)[:-1]).decode("utf-8")

    def unpack(self, fmt: str):
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]

    def pop_mark(self) -> list:
        items = self.stack
        self.stack = self.marks.pop()
        return items

    def push_global(self, module: str, name: str) -> None:
        obj = self.find_global(module, name)
        self.callables.add(id(obj))
        self.keep.append(obj)
        self.stack.append(obj)

    def call(self, function, args):
        if id(function) not in self.callables or not callable(function):
            raise UnpicklingError(f"refusing to call {type(function).__name__} object {function!r}: "
                                  "graphscope.load calls only the allowed globals the file names")
        if type(args) is not tuple:
            raise UnpicklingError(f"damaged pickle: call arguments must be a tuple, got {type(args).__name__}")
        return function(*args)


def _stop(u):  # handled in load()
    pass


def _proto(u):
    u.read(1)


def _frame(u):
    u.read(8)  # protocol 4 frames only announce their length


def _push(value):
    def handler(u):
        u.stack.append(value() if callable(value) else value)
    return handler


def _mark(u):
    u.marks.append(u.stack)
    u.stack = []


def _pop(u):
    u.stack.pop()


def _pop_mark(u):
    u.pop_mark()


def _dup(u):
    u.stack.append(u.stack[-1])


def _fixed(fmt: str):
    def handler(u):
        u.stack.append(u.unpack(fmt))
    return handler


def _binint1(u):
    u.stack.append(u.read(1)[0])


def _long(size_format: str):
    def handler(u):
        n = u.unpack(size_format)
        if n < 0:
            raise UnpicklingError("damaged pickle: negative length")
        u.stack.append(int.from_bytes(u.read(n), "little", signed=True))
    return handler


def _unicode(size_format: str):
    def handler(u):
        n = u.unpack(size_format)
        u.stack.append(str(u.read(n), "utf-8", "surrogatepass"))
    return handler


def _bytes(size_format: str):
    def handler(u):
        u.stack.append(bytes(u.read(u.unpack(size_format))))
    return handler


def _string(size_format: str):
    """Python 2 str: bytes, decoded with the `encoding` load was given (as pickle.Unpickler)."""
    def handler(u):
        data = bytes(u.read(u.unpack(size_format)))
        u.stack.append(data if u.encoding == "bytes" else data.decode(u.encoding))
    return handler


def _tuple(u):
    items = tuple(u.pop_mark())
    u.stack.append(items)


def _tuple_n(n: int):
    def handler(u):
        if len(u.stack) < n:
            raise IndexError
        items = tuple(u.stack[len(u.stack) - n:])
        del u.stack[len(u.stack) - n:]
        u.stack.append(items)
    return handler


def _target(u, kinds: tuple, opcode: str):
    target = u.stack[-1]
    if type(target) not in kinds:
        raise UnpicklingError(f"damaged pickle: {opcode} on a {type(target).__name__}")
    return target


def _append(u):
    item = u.stack.pop()
    _target(u, (list,), "APPEND").append(item)


def _appends(u):
    items = u.pop_mark()
    _target(u, (list,), "APPENDS").extend(items)


def _setitem(u):
    value, key = u.stack.pop(), u.stack.pop()
    _update(_target(u, (dict, OrderedDict), "SETITEM"), [(key, value)], "SETITEM")


def _setitems(u):
    items = u.pop_mark()
    target = _target(u, (dict, OrderedDict), "SETITEMS")
    if len(items) % 2:
        raise UnpicklingError("damaged pickle: SETITEMS with an odd number of values")
    _update(target, zip(items[::2], items[1::2]), "SETITEMS")


def _additems(u):
    items = u.pop_mark()
    _update(_target(u, (set,), "ADDITEMS"), items, "ADDITEMS")


def _update(target, items, opcode: str) -> None:
    try:
        target.update(items)
    except TypeError as error:  # an unhashable key
        raise UnpicklingError(f"damaged pickle: {opcode} with a key that can't be one ({error})") from None


def _frozenset(u):
    items = frozenset(u.pop_mark())
    u.stack.append(items)


def _global(u):
    module = u.read_line()
    u.push_global(module, u.read_line())


def _stack_global(u):
    name, module = u.stack.pop(), u.stack.pop()
    if type(name) is not str or type(module) is not str:
        raise UnpicklingError("damaged pickle: STACK_GLOBAL needs two strings")
    u.push_global(module, name)


def _reduce(u):
    args = u.stack.pop()
    u.stack[-1] = u.call(u.stack[-1], args)


def _newobj(u):
    args = u.stack.pop()
    u.stack[-1] = u.call(u.stack[-1], args)


def _build(u):
    """Only an OrderedDict's own attributes (a state dict's `_metadata`) may be set from a file,
    never one that would hide a method (`keys`)."""
    state = u.stack.pop()
    target = u.stack[-1]
    if type(target) is not OrderedDict or type(state) is not dict:
        raise UnpicklingError(f"refusing to set the state of a {type(target).__name__} object from the "
                              "file: graphscope.load sets only an OrderedDict's attributes")
    for name in state:
        if type(name) is not str or hasattr(OrderedDict, name):
            raise UnpicklingError(f"refusing to set attribute {name!r} of an OrderedDict from the file: "
                                  "it would hide one of OrderedDict's own")
    vars(target).update(state)


def _binpersid(u):
    u.stack.append(u.persistent_load(u.stack.pop()))


def _get(size_format: str):
    def handler(u):
        index = u.unpack(size_format)
        try:
            u.stack.append(u.memo[index])
        except KeyError:
            raise UnpicklingError(f"damaged pickle: memo entry {index} was never stored") from None
    return handler


def _put(size_format: str):
    def handler(u):
        u.memo[u.unpack(size_format)] = u.stack[-1]
    return handler


def _memoize(u):
    u.memo[len(u.memo)] = u.stack[-1]


_OPCODES = {
    pickle.PROTO[0]: _proto, pickle.FRAME[0]: _frame, pickle.STOP[0]: _stop,
    pickle.MARK[0]: _mark, pickle.POP[0]: _pop, pickle.POP_MARK[0]: _pop_mark, pickle.DUP[0]: _dup,
    pickle.NONE[0]: _push(None), pickle.NEWTRUE[0]: _push(True), pickle.NEWFALSE[0]: _push(False),
    pickle.BININT[0]: _fixed("<i"), pickle.BININT1[0]: _binint1, pickle.BININT2[0]: _fixed("<H"),
    pickle.LONG1[0]: _long("<B"), pickle.LONG4[0]: _long("<i"), pickle.BINFLOAT[0]: _fixed(">d"),
    pickle.BINUNICODE[0]: _unicode("<I"), pickle.SHORT_BINUNICODE[0]: _unicode("<B"),
    pickle.BINUNICODE8[0]: _unicode("<Q"),
    pickle.BINBYTES[0]: _bytes("<I"), pickle.SHORT_BINBYTES[0]: _bytes("<B"), pickle.BINBYTES8[0]: _bytes("<Q"),
    pickle.BINSTRING[0]: _string("<i"), pickle.SHORT_BINSTRING[0]: _string("<B"),
    pickle.EMPTY_TUPLE[0]: _push(tuple), pickle.TUPLE[0]: _tuple, pickle.TUPLE1[0]: _tuple_n(1),
    pickle.TUPLE2[0]: _tuple_n(2), pickle.TUPLE3[0]: _tuple_n(3),
    pickle.EMPTY_LIST[0]: _push(list), pickle.APPEND[0]: _append, pickle.APPENDS[0]: _appends,
    pickle.EMPTY_DICT[0]: _push(dict), pickle.SETITEM[0]: _setitem, pickle.SETITEMS[0]: _setitems,
    pickle.EMPTY_SET[0]: _push(set), pickle.ADDITEMS[0]: _additems, pickle.FROZENSET[0]: _frozenset,
    pickle.GLOBAL[0]: _global, pickle.STACK_GLOBAL[0]: _stack_global,
    pickle.REDUCE[0]: _reduce, pickle.NEWOBJ[0]: _newobj, pickle.BUILD[0]: _build,
    pickle.BINPERSID[0]: _binpersid,
    pickle.BINGET[0]: _get("<B"), pickle.LONG_BINGET[0]: _get("<I"),
    pickle.BINPUT[0]: _put("<B"), pickle.LONG_BINPUT[0]: _put("<I"), pickle.MEMOIZE[0]: _memoize,
}


def _opcode_name(code: int) -> str:
    for name in dir(pickle):
        value = getattr(pickle, name)
        if name.isupper() and isinstance(value, bytes) and len(value) == 1 and value[0] == code:
            return name
    return f"0x{code:02x}"


def latin1_encode(text: str, encoding: str) -> bytes:
    """`_codecs.encode` as protocol 2 pickles use it for bytes (latin1 only: nothing else is data)."""
    if type(text) is not str or codecs.lookup(encoding).name != "iso8859-1":
        raise UnpicklingError(f"refusing _codecs.encode with {encoding!r}: pickles of bytes use 'latin1'")
    return text.encode("latin1")

