"""Reprs of values read from a file, cut short, for error messages: a hostile file's values can be
nested a million deep or share one tuple 2**100 ways, so a whole repr could run for hours."""

from __future__ import annotations

from itertools import islice

_ITEMS = 6  # per container
_LEVELS = 3  # of containers within containers
_CHARACTERS = 80  # of a str or bytes
_NAME = 200  # characters of a name or message shown as it is
_BITS = 256  # of an int (Python refuses str() of an int past 4,300 digits)


def short_repr(value, levels: int = _LEVELS) -> str:
    """repr(value) for values of any size: at most a few hundred characters, on one line."""
    kind = type(value)
    if kind in (str, bytes, bytearray):
        text = repr(value[:_CHARACTERS])
        return text + "..." if len(value) > _CHARACTERS else text
    if kind is int:
        return repr(value) if value.bit_length() <= _BITS else f"<int of {value.bit_length():,} bits>"
    if isinstance(value, (tuple, list, set, frozenset, dict)):
        return _container(value, levels)
    return " ".join(repr(value).split())[: _CHARACTERS * 2]


def short_name(text: str) -> str:
    """A name (or an error's message) from the file: itself when short and printable, else its repr, cut."""
    return text if len(text) <= _NAME and text.isprintable() else short_repr(text)


def _container(value, levels: int) -> str:
    name = type(value).__name__
    if levels == 0:
        return f"<{name} of {len(value):,}>"
    plain_dict = type(value) is dict
    items = value.items() if isinstance(value, dict) else value
    parts = [
        ": ".join(short_repr(part, levels - 1) for part in item) if plain_dict else short_repr(item, levels - 1)
        for item in islice(items, _ITEMS)
    ]
    if len(value) > _ITEMS:
        parts.append(f"... ({len(value):,} in all)")
    inner = ", ".join(parts)
    if plain_dict:
        return "{" + inner + "}"
    if isinstance(value, list):
        return f"[{inner}]"
    if type(value) is tuple:
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if not value:
        return f"{name}()"
    if type(value) is set:
        return "{" + inner + "}"
    return f"{name}([{inner}])" if isinstance(value, (dict, tuple)) else f"{name}({{{inner}}})"
