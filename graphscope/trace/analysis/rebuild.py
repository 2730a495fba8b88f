"""A recorded node's Function and forward arguments rebuilt from the record: its op's engine class,
its non-tensor arguments from their literals, and where its tensor inputs go in forward's call."""

from __future__ import annotations

import ast
import math
from typing import Any

import numpy as np

from ..record.model import Node
from ..record.naming import argument_names
from ..record.tensor_summary import ARRAY_DTYPES


class NotRebuilt(ValueError):
    """What of a node cannot be rebuilt from the record, in words for the user."""


def forward_layout(cls: type, node: Node) -> tuple[dict[int, object], list[int]]:
    """(the non-tensor arguments' values by forward position, each tensor input's forward position)
    for `node` called as an instance of `cls`; NotRebuilt for an argument that cannot be given back."""
    names = argument_names(cls)
    values: dict[int, object] = {}
    for name, text in node.args:
        if name in names:
            position = names.index(name)
        elif name.startswith("arg") and name[3:].isdigit():  # the recorder's name for an unnamed one
            position = int(name[3:])
        else:
            raise NotRebuilt(f"argument {name!r} is not one of {node.op}'s forward arguments")
        values[position] = argument_value(name, text)
    total = len(node.inputs) + len(values)
    return values, [p for p in range(total) if p not in values]


def argument_value(name: str, text: str) -> Any:  # Any: a value the script passed, as it wrote it
    """An argument's value from its recorded repr: a Python literal, or a slice, Ellipsis, Size or
    dtype (a device's own dtype, `array_api_strict.float64`, as NumPy's)."""
    try:
        return _value(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError, TypeError):
        raise NotRebuilt(f"argument {name}={text} is not a literal the record can give back") from None


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Tuple | ast.List):
        items = [_value(e) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        v = _value(node.operand)
        if isinstance(v, int | float) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.Attribute) and node.attr in ARRAY_DTYPES:  # a device's dtype: the check runs on NumPy
        return np.dtype(node.attr)
    if isinstance(node, ast.Call) and not node.keywords:
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        args = [_value(a) for a in node.args]
        if callee == "slice" and len(args) <= 3:
            return slice(*args)
        if callee == "Size" and len(args) == 1:
            return tuple(args[0])
        if callee == "dtype" and len(args) == 1 and isinstance(args[0], str):
            return np.dtype(args[0])
    raise ValueError(ast.dump(node))


_NAMES = {"Ellipsis": Ellipsis, "inf": math.inf, "nan": math.nan}
