"""The columns a node has, declared once: the column store, its Nodes and the snapshot's columns walk this table."""

from __future__ import annotations

from dataclasses import dataclass

NONE = -1  # an index column's entry for None
REQUIRES_GRAD, IS_LEAF = 1, 2  # bits of the flags column

# How a column's row becomes a Node field (the store's `node` and `from_nodes`, the snapshot's reader):
INT = "int"  # a number from 0 up
OPT_INT = "opt_int"  # a number from 0 up; NONE: None
TEXT = "text"  # an index into `strings`
OPT_TEXT = "opt_text"  # an index into `strings`; NONE: None
SITE = "site"  # an index into `sites` (SourceSite objects); NONE: None
FLAGS = "flags"  # bits, one bool field each: fields[k] is bit 1 << k
SUMMARY = "summary"  # a row of the outputs' summaries; NONE: None (filled in after the row is added)
IDS = "ids"  # ragged: node ids, each one in the table
TEXTS = "texts"  # ragged: `strings` indices
TEXT_PAIRS = "text_pairs"  # ragged, two flat parts: (text, text) pairs
ROW_PAIRS = "row_pairs"  # {row: (int, int)}, absent: None (filled in after the row is added)

RAGGED = (IDS, TEXTS, TEXT_PAIRS)


@dataclass(frozen=True, slots=True)
class Column:
    """One column: the store's attribute, how its rows read, their NumPy dtype, the Node fields it
    holds, its key in a snapshot's `nodes` (with its parts' keys: a ragged column's flat parts,
    or a ROW_PAIRS column's two numbers), and whether a file may lack it (one written before the
    column was added: read as NONE, 0, or empty rows, by kind)."""

    name: str
    kind: str
    dtype: str
    fields: tuple[str, ...]
    key: str
    parts: tuple[tuple[str, str], ...] = ()  # ragged: (store attribute, snapshot key) of each flat part
    optional: bool = False
    start: str = ""  # a ragged column's row starts (n + 1 of them), the store's attribute


def _column(
    name: str,
    kind: str,
    dtype: str,
    field: str | tuple[str, ...] | None = None,
    key: str | None = None,
    parts: tuple[tuple[str, str], ...] = (),
    optional: bool = False,
) -> Column:
    """A Column (its Node field: its name unless given; its snapshot key: its name unless given)."""
    if optional and kind == TEXT:
        raise ValueError(f"column {name}: an optional text is OPT_TEXT (a file without it reads None)")
    fields = (field or name,) if not isinstance(field, tuple) else field
    return Column(name, kind, dtype, fields, key or name, parts, optional, name + "_start" if kind in RAGGED else "")


# Every column, in the order a snapshot writes them; a new one goes last (with optional=True).
COLUMNS = (
    _column("id", INT, "int64"),
    _column("op", TEXT, "int32"),
    _column("name", TEXT, "int32"),
    _column("pass_index", INT, "int64", key="pass"),
    _column("output", SUMMARY, "int64"),
    _column("flags", FLAGS, "uint8", ("requires_grad", "is_leaf")),
    _column("parameter", OPT_TEXT, "int32"),
    _column("module", OPT_TEXT, "int32"),
    _column("site", SITE, "int32"),
    _column("leaf", OPT_INT, "int64"),
    _column("inputs", IDS, "int64", parts=(("inputs", "ids"),)),
    _column("saved", TEXTS, "int32", parts=(("saved", "roles"),)),
    _column("args", TEXT_PAIRS, "int32", parts=(("arg_name", "names"), ("arg_text", "texts"))),
    _column("dead", ROW_PAIRS, "int64", "dead_units", key="dead_units", parts=(("dead", "dead"), ("units", "units"))),
)

# A row the recorder adds (`LiveNodes.extend`) is a tuple of these columns' values, in this order: a
# text or site as itself, flags as their bits, an OPT_INT's None as NONE. The columns not named are
# filled in after the row is added (its output's summary, a relu's dead units).
ROW = ("id", "op", "name", "inputs", "pass_index", "flags", "parameter", "module", "site", "saved", "args", "leaf")

# The store's attributes that hold one array each (a ragged column's starts and parts).
ARRAYS = tuple(
    a
    for c in COLUMNS
    if c.kind != ROW_PAIRS
    for a in ((c.start, *(p for p, _ in c.parts)) if c.kind in RAGGED else (c.name,))
)
# Every attribute of a store's columns: the arrays, the ROW_PAIRS dicts, the tables indices point into.
ATTRIBUTES = (*ARRAYS, *(c.name for c in COLUMNS if c.kind == ROW_PAIRS), "strings", "sites")


def dtype_of(attribute: str) -> str:
    """The NumPy dtype of a store's array attribute (a ragged column's starts are int64)."""
    for c in COLUMNS:
        if attribute == c.name or any(attribute == p for p, _ in c.parts):
            return c.dtype
    return "int64"
