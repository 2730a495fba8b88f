"""A node's non-tensor arguments (an exponent, a reduction's dims, a scalar) as its tree row and header show them."""

from __future__ import annotations

import ast
import re

from graphscope.trace.explain.step import number_text
from graphscope.trace.record.model import CONSTANT, Node

# Binary ops written as an expression when one operand is a number: `mul ×3`, `sub 3−`.
SYMBOLS = {"add": "+", "sub": "−", "mul": "×", "div": "÷"}
_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_INTEGER = re.compile(r"-?\d+")
# The engine calls the dims of a reduction `axes` (`axis` for one); PyTorch calls them `dim`.
_DIMS = ("axes", "axis", "dim")
# Values that say "the default": not worth a word in a row.
_DEFAULTS = ("None", "False")
# How long a number's literal may be to be shown as it was written.
_ROW_NUMBER = 7


def node_args(node: Node, nodes=None) -> tuple[tuple[str, str], ...]:
    """(name, Python literal) of each non-tensor argument. An old snapshot kept them as `constant`
    input nodes: read from those (named where the op says which operand it is) when `nodes` is given."""
    if node.args or nodes is None:
        return node.args
    found = []
    for k, i in enumerate(node.inputs):
        value = nodes.get(i)
        if value is not None and value.op == CONSTANT:
            found.append((_operand_name(node.op, k, len(node.inputs)), value.name))
    return tuple(found)


def _operand_name(op: str, k: int, count: int) -> str:
    if count == 2 and (op in SYMBOLS or op == "pow"):
        return ("a", "b")[k]
    return ""


def args_words(node: Node, nodes=None) -> list[str]:
    """The arguments as the header says them: `exponent 3`, `dim=1`, `keepdim`, `input × 3`."""
    return [_word(node.op, name, value, row=False) for name, value in node_args(node, nodes) if value not in _DEFAULTS]


def args_row(node: Node, nodes=None) -> str:
    """The arguments as a tree row shows them, shortest: `³`, `×3`, `dim=1 keepdim`."""
    return " ".join(
        _word(node.op, name, value, row=True) for name, value in node_args(node, nodes) if value not in _DEFAULTS
    )


def _word(op: str, name: str, value: str, row: bool) -> str:
    if op == "pow" and name in ("exponent", "b"):
        if row:
            return value.translate(_SUPERSCRIPTS) if _INTEGER.fullmatch(value) else "^" + _number(value)
        return f"exponent {value}"
    if op in SYMBOLS and name in ("a", "b"):
        symbol = SYMBOLS[op]
        number = _number(value) if row else value
        if name == "b":
            return symbol + number if row else f"input {symbol} {number}"
        return number + symbol if row else f"{number} {symbol} input"
    if name in _DIMS:
        return "dim=" + _dims(value)
    if value == "True" and name:
        return name
    return f"{name}={value}" if name else value


def _dims(value: str) -> str:
    """`(1,)` as `1`, `(0, 1)` as `(0, 1)`: PyTorch's `dim=1`."""
    try:
        dims = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value
    if isinstance(dims, (tuple, list)) and len(dims) == 1:
        return str(dims[0])
    return value


def _number(value: str) -> str:
    """A long float literal as every formula shows it (`0.3333333333333333` as `0.333333`, `1234.5678` as
    `1234.57`): never rounded to a number that reads as another one."""
    try:
        number = float(value)
    except ValueError:
        return value
    return value if len(value) <= _ROW_NUMBER else number_text(number)
