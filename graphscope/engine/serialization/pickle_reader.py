"""Reads a pickle without running code from it: an interpreter of pickle's opcodes in which every
global comes from an allow-list and only those globals are ever called (torch.load's weights_only).

Python's own Unpickler calls whatever a pickle names; this one knows the opcodes that pickles of
plain data use, builds the builtins they name itself (plain_globals.py), asks `find_global` for
each other name (which returns an allowed object or raises), calls nothing else, refuses every
other opcode with an error that names it, and bounds the work a pickle asks for (pickle_bounds.py).
"""

from __future__ import annotations

import inspect
import pickle
import struct
from collections import OrderedDict
from collections.abc import Callable

from .pickle_bounds import PickleBounds
from .plain_globals import plain_globals
from .short_repr import short_repr

UnpicklingError = pickle.UnpicklingError


class SafeUnpickler:
    """One pickle, read from the bytes `data` of the file `what`, its globals from `find_global(module, name)`,
    the work it asks for bounded by `bounds` (PickleBounds)."""

    def __init__(
        self,
        data,
        find_global: Callable,
        persistent_load: Callable,
        encoding="utf-8",
        *,
        what: str,
        build: Callable[[object, object], bool] | None = None,
    ):
        self.raw = data
        self.build = build  # (object, state) -> whether it set the state of that object, for BUILD
        self.data = memoryview(data)
        self.position = 0
        self.find_global = find_global
        self.persistent_load = persistent_load
        self.encoding = encoding
        self.what = what
        self.plain = plain_globals(self)
        self.callables: dict = {}  # id -> (an object a GLOBAL named, its name): all REDUCE may call
        self.memo: dict = {}
        self.stack: list = []
        self.marks: list = []
        self.bounds = PickleBounds(len(data), self.refusal)

    def load(self):
        while True:
            at = self.position
            code = self.read(1)[0]
            handler = _OPCODES.get(code)
            if handler is None:
                raise self.refusal(
                    f"unsupported pickle opcode {_opcode_name(code)} at byte {at}: graphscope.load "
                    "reads only pickles of plain data (as torch.load with weights_only=True)"
                )
            if handler is _stop:
                if len(self.stack) != 1 or self.marks:
                    raise self.refusal("damaged pickle: STOP with an unfinished stack")
                return self.stack[0]
            try:
                handler(self)
            except IndexError:
                raise self.refusal(
                    f"damaged pickle: opcode {_opcode_name(code)} at byte {at} found too few values"
                ) from None
            except UnicodeDecodeError as error:
                raise self.refusal(
                    f"damaged pickle: the text of opcode {_opcode_name(code)} at byte {at} is not "
                    f"valid {error.encoding} ({error.reason})"
                ) from None
            except RecursionError:
                raise self.refusal(
                    f"damaged pickle: opcode {_opcode_name(code)} at byte {at} compares values "
                    "nested too deeply for Python"
                ) from None

    def refusal(self, text: str) -> UnpicklingError:
        return UnpicklingError(f"cannot load {self.what}: {text}")

    def read(self, n: int) -> memoryview:
        end = self.position + n
        if end > len(self.data):
            raise self.refusal("damaged pickle: it ends before its STOP opcode")
        chunk = self.data[self.position : end]
        self.position = end
        return chunk

    def read_line(self) -> str:
        end = self.raw.find(b"\n", self.position)
        if end < 0:
            raise self.refusal("damaged pickle: a GLOBAL name has no end")
        return bytes(self.read(end + 1 - self.position)[:-1]).decode("utf-8")

    def unpack(self, fmt: str):
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]

    def pop_mark(self) -> list:
        items = self.stack
        self.stack = self.marks.pop()
        return items

    # --- globals and calls ---------------------------------------------------------------------

    def push_global(self, module: str, name: str) -> None:
        module = "builtins" if module == "__builtin__" else module
        obj = self.plain.get((module, name))
        if obj is None:
            obj = self.find_global(module, name)
        self.callables[id(obj)] = (obj, f"{module}.{name}")
        self.stack.append(obj)

    def call(self, function, args):
        known = self.callables.get(id(function))
        if known is None or not callable(function):
            raise self.refusal(
                f"refusing to call {type(function).__name__} object {short_repr(function)}: "
                "graphscope.load calls only the allowed globals the file names"
            )
        if type(args) is not tuple:
            raise self.refusal(f"damaged pickle: call arguments must be a tuple, got {type(args).__name__}")
        name = known[1]
        self.bounds.spend(sum(map(_extent, args)), f"calling {name}")
        try:
            result = function(*args)
        except TypeError as error:
            if _fits(function, args):
                raise  # raised inside: not about the arguments
            raise self.refusal(
                f"damaged pickle: {name}{short_repr(args)} does not fit {name}'s parameters ({error})"
            ) from None
        return self.bounds.made(result) if isinstance(result, tuple) else result  # a torch.Size


def _extent(value) -> int:
    """The steps copying `value` (not what it holds) may take."""
    return 1 + len(value) if isinstance(value, (str, bytes, bytearray, tuple, list, dict, set, frozenset)) else 1


def _fits(function, args: tuple) -> bool:
    """Whether `args` bind to `function`'s parameters (if so, a TypeError of the call came from inside it)."""
    try:
        inspect.signature(function).bind(*args)
    except TypeError:
        return False
    return True


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
            raise u.refusal("damaged pickle: negative length")
        u.stack.append(u.bounds.made_int(int.from_bytes(u.read(n), "little", signed=True)))

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
        try:
            u.stack.append(data if u.encoding == "bytes" else data.decode(u.encoding))
        except UnicodeDecodeError as error:
            raise u.refusal(
                f"damaged pickle: a Python 2 str at byte {u.position - len(data):,} is not valid "
                f"{u.encoding} ({error.reason}): if Python 2 wrote the file, load it with "
                "encoding='latin1' (or encoding='bytes')"
            ) from None

    return handler


def _tuple(u):
    items = u.bounds.made(tuple(u.pop_mark()))
    u.stack.append(items)


def _tuple_n(n: int):
    def handler(u):
        if len(u.stack) < n:
            raise IndexError
        items = u.bounds.made(tuple(u.stack[len(u.stack) - n :]))
        del u.stack[len(u.stack) - n :]
        u.stack.append(items)

    return handler


def _target(u, kinds: tuple, opcode: str):
    target = u.stack[-1]
    if type(target) not in kinds:
        raise u.refusal(f"damaged pickle: {opcode} on a {type(target).__name__}")
    return target


def _append(u):
    item = u.stack.pop()
    _target(u, (list,), "APPEND").append(item)


def _appends(u):
    items = u.pop_mark()
    _target(u, (list,), "APPENDS").extend(items)


def _setitem(u):
    value, key = u.stack.pop(), u.stack.pop()
    target = _target(u, (dict, OrderedDict), "SETITEM")
    u.bounds.check_keys(target, (key,), "SETITEM")
    target[key] = value


def _setitems(u):
    items = u.pop_mark()
    target = _target(u, (dict, OrderedDict), "SETITEMS")
    if len(items) % 2:
        raise u.refusal("damaged pickle: SETITEMS with an odd number of values")
    keys = items[::2]
    u.bounds.check_keys(target, keys, "SETITEMS")
    target.update(zip(keys, items[1::2]))


def _additems(u):
    items = u.pop_mark()
    target = _target(u, (set,), "ADDITEMS")
    u.bounds.check_keys(target, items, "ADDITEMS")
    target.update(items)


def _frozenset(u):
    items = u.pop_mark()
    u.bounds.check_keys(None, items, "FROZENSET")
    u.stack.append(u.bounds.made(frozenset(items)))


def _global(u):
    module = u.read_line()
    u.push_global(module, u.read_line())


def _stack_global(u):
    name, module = u.stack.pop(), u.stack.pop()
    if type(name) is not str or type(module) is not str:
        raise u.refusal("damaged pickle: STACK_GLOBAL needs two strings")
    u.push_global(module, name)


def _reduce(u):
    args = u.stack.pop()
    u.stack[-1] = u.call(u.stack[-1], args)


def _newobj(u):
    args = u.stack.pop()
    u.stack[-1] = u.call(u.stack[-1], args)


def _build(u):
    """Only an OrderedDict's own attributes (a state dict's `_metadata`) may be set from a file,
    never one that would hide a method (`keys`), and the states `build` takes (NumPy arrays')."""
    state = u.stack.pop()
    target = u.stack[-1]
    if type(target) is not OrderedDict and u.build is not None and u.build(target, state):
        return
    if type(target) is not OrderedDict or type(state) is not dict:
        raise u.refusal(
            f"refusing to set the state of a {type(target).__name__} object from the "
            "file: graphscope.load sets only an OrderedDict's attributes"
        )
    u.bounds.spend(len(state), "BUILD")
    if state.keys() & _ORDERED_DICT_NAMES or not {str}.issuperset(map(type, state)):  # in C: BUILD can repeat
        name = next(name for name in state if type(name) is not str or name in _ORDERED_DICT_NAMES)
        raise u.refusal(
            f"refusing to set attribute {short_repr(name)} of an OrderedDict from the file: "
            "it would hide one of OrderedDict's own"
        )
    vars(target).update(state)


_ORDERED_DICT_NAMES = frozenset(dir(OrderedDict))


def _binpersid(u):
    u.stack.append(u.persistent_load(u.stack.pop()))


def _get(size_format: str):
    def handler(u):
        index = u.unpack(size_format)
        try:
            u.stack.append(u.memo[index])
        except KeyError:
            raise u.refusal(f"damaged pickle: memo entry {index} was never stored") from None

    return handler


def _put(size_format: str):
    def handler(u):
        u.memo[u.unpack(size_format)] = u.stack[-1]

    return handler


def _memoize(u):
    u.memo[len(u.memo)] = u.stack[-1]


_OPCODES = {
    pickle.PROTO[0]: _proto,
    pickle.FRAME[0]: _frame,
    pickle.STOP[0]: _stop,
    pickle.MARK[0]: _mark,
    pickle.POP[0]: _pop,
    pickle.POP_MARK[0]: _pop_mark,
    pickle.NONE[0]: _push(None),
    pickle.NEWTRUE[0]: _push(True),
    pickle.NEWFALSE[0]: _push(False),
    pickle.BININT[0]: _fixed("<i"),
    pickle.BININT1[0]: _binint1,
    pickle.BININT2[0]: _fixed("<H"),
    pickle.LONG1[0]: _long("<B"),
    pickle.LONG4[0]: _long("<i"),
    pickle.BINFLOAT[0]: _fixed(">d"),
    pickle.BINUNICODE[0]: _unicode("<I"),
    pickle.SHORT_BINUNICODE[0]: _unicode("<B"),
    pickle.BINUNICODE8[0]: _unicode("<Q"),
    pickle.BINBYTES[0]: _bytes("<I"),
    pickle.SHORT_BINBYTES[0]: _bytes("<B"),
    pickle.BINBYTES8[0]: _bytes("<Q"),
    pickle.BINSTRING[0]: _string("<i"),
    pickle.SHORT_BINSTRING[0]: _string("<B"),
    pickle.EMPTY_TUPLE[0]: _push(tuple),
    pickle.TUPLE[0]: _tuple,
    pickle.TUPLE1[0]: _tuple_n(1),
    pickle.TUPLE2[0]: _tuple_n(2),
    pickle.TUPLE3[0]: _tuple_n(3),
    pickle.EMPTY_LIST[0]: _push(list),
    pickle.APPEND[0]: _append,
    pickle.APPENDS[0]: _appends,
    pickle.EMPTY_DICT[0]: _push(dict),
    pickle.SETITEM[0]: _setitem,
    pickle.SETITEMS[0]: _setitems,
    pickle.EMPTY_SET[0]: _push(set),
    pickle.ADDITEMS[0]: _additems,
    pickle.FROZENSET[0]: _frozenset,
    pickle.GLOBAL[0]: _global,
    pickle.STACK_GLOBAL[0]: _stack_global,
    pickle.REDUCE[0]: _reduce,
    pickle.NEWOBJ[0]: _newobj,
    pickle.BUILD[0]: _build,
    pickle.BINPERSID[0]: _binpersid,
    pickle.BINGET[0]: _get("<B"),
    pickle.LONG_BINGET[0]: _get("<I"),
    pickle.BINPUT[0]: _put("<B"),
    pickle.LONG_BINPUT[0]: _put("<I"),
    pickle.MEMOIZE[0]: _memoize,
}


def _opcode_name(code: int) -> str:
    for name in dir(pickle):
        value = getattr(pickle, name)
        if name.isupper() and isinstance(value, bytes) and len(value) == 1 and value[0] == code:
            return name
    return f"0x{code:02x}"
