"""The builtins a pickle of plain data calls (protocol 2 spells sets, bytes, bytearrays and complex
numbers as calls), each taking only the arguments Python's pickler writes: bytearray(2**40) would
allocate a terabyte, and set() of a crafted list would hash for ever."""

from __future__ import annotations

import codecs
from collections import OrderedDict
from collections.abc import Callable
from functools import partial

from .short_repr import short_repr


def plain_globals(u) -> dict:
    """(module, name) -> the callable a GLOBAL of that name gives, for the SafeUnpickler `u`."""
    return {name: partial(build, u) for name, build in _BUILDERS.items()}


def _new_set(u, items=()):
    _expect(u, type(items) in (list, tuple), "builtins.set", "a list of its items", items)
    u.bounds.check_keys(None, items, "builtins.set")
    return set(items)


def _new_frozenset(u, items=()):
    _expect(u, type(items) in (list, tuple), "builtins.frozenset", "a list of its items", items)
    u.bounds.check_keys(None, items, "builtins.frozenset")
    return u.bounds.made(frozenset(items))


def _new_ordered_dict(u):
    return OrderedDict()  # its items follow as SETITEMS


def _new_bytearray(u, data=b"", encoding=None):
    if encoding is None:
        _expect(u, type(data) is bytes, "builtins.bytearray", "bytes", data)
        return bytearray(data)
    return bytearray(_latin1_encode(u, data, encoding))


def _new_bytes(u):
    return b""  # Python's pickler writes bytes() for no bytes, in protocol 2


def _new_complex(u, real=0.0, imag=0.0):
    _expect(u, type(real) is float and type(imag) is float, "builtins.complex", "two floats", (real, imag))
    return complex(real, imag)


def _latin1_encode(u, text, encoding):
    """`_codecs.encode` as protocol 2 pickles use it for bytes (latin1 only: nothing else is data)."""
    if type(encoding) is not str or type(text) is not str or not _is_latin1(encoding):
        raise u.refusal(f"refusing _codecs.encode with {short_repr(encoding)}: pickles of bytes use 'latin1'")
    return text.encode("latin1")


def _is_latin1(encoding: str) -> bool:
    try:
        return codecs.lookup(encoding).name == "iso8859-1"
    except LookupError:
        return False


def _expect(u, ok: bool, name: str, wanted: str, got) -> None:
    if not ok:
        raise u.refusal(f"damaged pickle: {name} takes {wanted} (as Python pickles it), got {short_repr(got)}")


_BUILDERS: dict[tuple[str, str], Callable[..., object]] = {
    ("builtins", "set"): _new_set,
    ("builtins", "frozenset"): _new_frozenset,
    ("collections", "OrderedDict"): _new_ordered_dict,
    ("builtins", "bytearray"): _new_bytearray,
    ("builtins", "bytes"): _new_bytes,
    ("builtins", "complex"): _new_complex,
    ("_codecs", "encode"): _latin1_encode,
}
