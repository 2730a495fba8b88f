"""Checks of single values and whole columns of parsed snapshot JSON, each failure naming its place."""

from __future__ import annotations

import math
from collections.abc import Container
from itertools import chain
from typing import Any, Literal, NoReturn, Protocol, TypeVar, cast, overload

from ..record.limits import ID_LIMIT, NAME_LIMIT, TEXT_LIMIT
from ..record.literal import has_control, visible
from ..record.model import (
    SourceSite,
)
from ..record.summary_table import SummaryTable
from ..stats.summarize import TensorSummary
from .format import (
    FLOAT_MAX,
    SnapshotError,
)

T = TypeVar("T")
# A value of the parsed JSON, as the file gave it: each reader method checks what it reads.
Json = Any
T_co = TypeVar("T_co", covariant=True)


class Rows(Protocol[T_co]):
    """A table read by row: the sites' list, the tensors' list or SummaryTable."""

    def __len__(self) -> int: ...
    def __getitem__(self, i: int, /) -> T_co: ...


def kind_of(v: object) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    return "an object"


class FieldReader:
    """Checks parsed JSON values and columns for the record reader (`read.RecordReader`): type, size, references.

    Columns are checked whole (a pass over the list) and searched element by element only
    to name the place of a problem once one is known to be there.
    """

    def __init__(self, source: str, blobs: dict[str, memoryview] | None = None) -> None:
        self.source = source
        self.blobs = blobs or {}  # placeholder -> base64 bytes lifted out of the text (snapshot_blobs)
        self.sites: list[SourceSite] = []
        self.tensors: list[TensorSummary] | SummaryTable = []
        self._tensor_views: dict[int, TensorSummary] = {}

    def fail(self, where: str, problem: str) -> NoReturn:
        raise SnapshotError(self.source, where, problem)

    # --- single values ---

    def obj(self, v: object, where: str, keys: tuple[str, ...]) -> dict[str, Any]:
        if type(v) is not dict:
            self.fail(where, f"expected an object, found {kind_of(v)}")
        for k in keys:
            if k not in v:
                self.fail(where, f'missing "{k}"')
        return v

    def seq(self, v: object, where: str, length: int | None = None) -> list[Any]:
        if type(v) is not list:
            self.fail(where, f"expected a list, found {kind_of(v)}")
        if length is not None and len(v) != length:
            self.fail(where, f"expected {length:,} entries (one per row), found {len(v):,}")
        return v

    def integer(self, v: object, where: str, low: int = 0, high: int = ID_LIMIT) -> int:
        if type(v) is not int:
            self.fail(where, f"expected an integer, found {kind_of(v)}")
        if not low <= v <= high:
            self.fail(where, f"{v} is out of range ({low} to {high})")
        return v

    def opt_integer(self, v: object, where: str, low: int = 0, high: int = ID_LIMIT) -> int | None:
        return None if v is None else self.integer(v, where, low, high)

    def boolean(self, v: object, where: str) -> bool:
        if type(v) is not bool:
            self.fail(where, f"expected true or false, found {kind_of(v)}")
        return v

    def name(self, v: object, where: str, limit: int = NAME_LIMIT) -> str:
        """A short identifier-like string: bounded, with no control characters."""
        if type(v) is not str:
            self.fail(where, f"expected a string, found {kind_of(v)}")
        if len(v) > limit:
            self.fail(where, f"a string of {len(v):,} characters is longer than the {limit:,} allowed")
        if has_control(v):
            self.fail(where, f"the string {visible(v[:80])!r} contains control characters")
        return v

    def opt_name(self, v: object, where: str, limit: int = NAME_LIMIT) -> str | None:
        return None if v is None else self.name(v, where, limit)

    def text(self, v: object, where: str, limit: int = TEXT_LIMIT) -> str:
        """Free text (any character; shown literally): bounded in length."""
        if type(v) is not str:
            self.fail(where, f"expected a string, found {kind_of(v)}")
        if len(v) > limit:
            self.fail(where, f"a string of {len(v):,} characters is longer than the {limit:,} allowed")
        return v

    def number(self, v: object, where: str) -> float | None:
        """A number, null, or one of "nan", "inf", "-inf" (read back as floats)."""
        t = type(v)
        if t is float or t is int or v is None:
            return cast("float | None", v)  # as the test above found
        if t is str:
            if v == "nan":
                return math.nan
            if v == "inf":
                return math.inf
            if v == "-inf":
                return -math.inf
        self.fail(where, f'expected a number (or "nan", "inf", "-inf"), found {kind_of(v)}')

    def real(self, v: object, where: str) -> float | None:
        v = self.number(v, where)
        if type(v) is int and not -FLOAT_MAX <= v <= FLOAT_MAX:
            self.fail(where, f"an integer of {len(str(abs(v)))} digits is too large for a number")
        return None if v is None else float(v)

    def site(self, v: object, where: str) -> SourceSite | None:
        return self._entry(v, where, self.sites, "sites")

    def tensor(self, v: object, where: str) -> TensorSummary | None:
        """The summary at row v; a row read twice is the same object (as when it was written)."""
        s = self._tensor_views.get(v) if type(v) is int else None
        if s is None:
            s = self._entry(v, where, self.tensors, "tensors")
            if s is not None:
                self._tensor_views[cast(int, v)] = s  # an index: _entry found a row at it
        return s

    def _entry(self, v: object, where: str, table: Rows[T], what: str) -> T | None:
        """`table[v]` for an index `v` into it (None for null)."""
        if v is None:
            return None
        if type(v) is not int or not 0 <= v < len(table):
            self.fail(where, f"{v!r} is not an index into the {len(table)} {what}")
        return table[v]

    @overload
    def node_id(self, v: object, where: str, nodes: Container[int], optional: Literal[False]) -> int: ...

    @overload
    def node_id(self, v: object, where: str, nodes: Container[int], optional: bool = True) -> int | None: ...

    def node_id(self, v: object, where: str, nodes: Container[int], optional: bool = True) -> int | None:
        if v is None and optional:
            return None
        if type(v) is not int:
            self.fail(where, f"expected a node id (an integer), found {kind_of(v)}")
        if v not in nodes:
            self.fail(where, f"node id {v} does not exist in the snapshot")
        return v

    # --- whole columns ---

    @overload
    def ints(
        self,
        col: object,
        where: str,
        count: int | None,
        low: int = 0,
        high: int = ID_LIMIT,
        nullable: Literal[False] = False,
    ) -> list[int]: ...

    @overload
    def ints(
        self, col: object, where: str, count: int | None, low: int = 0, high: int = ID_LIMIT, *, nullable: bool
    ) -> list[int | None]: ...

    def ints(
        self, col: object, where: str, count: int | None, low: int = 0, high: int = ID_LIMIT, nullable: bool = False
    ) -> list[int] | list[int | None]:
        col = self.seq(col, where, count)
        types = set(map(type, col))
        present = [v for v in col if v is not None] if nullable and type(None) in types else col
        if not types <= ({int, type(None)} if nullable else {int}) or (
            present and (min(present) < low or max(present) > high)
        ):
            for i, v in enumerate(col):
                if not (nullable and v is None):
                    self.integer(v, f"{where}[{i}]", low, high)
        return col

    def bools(self, col: object, where: str, count: int) -> list[bool]:
        col = self.seq(col, where, count)
        if not set(map(type, col)) <= {bool}:
            for i, v in enumerate(col):
                self.boolean(v, f"{where}[{i}]")
        return col

    @overload
    def names(
        self, col: object, where: str, count: int | None, nullable: Literal[False] = False, limit: int = NAME_LIMIT
    ) -> list[str]: ...

    @overload
    def names(
        self, col: object, where: str, count: int | None, nullable: bool, limit: int = NAME_LIMIT
    ) -> list[str | None]: ...

    def names(
        self, col: object, where: str, count: int | None, nullable: bool = False, limit: int = NAME_LIMIT
    ) -> list[str] | list[str | None]:
        col = self.seq(col, where, count)
        types = set(map(type, col))
        present = [v for v in col if v is not None] if nullable and type(None) in types else col
        if (
            not types <= ({str, type(None)} if nullable else {str})
            or (present and max(map(len, present)) > limit)
            or has_control("".join(present))
        ):
            for i, v in enumerate(col):
                if not (nullable and v is None):
                    self.name(v, f"{where}[{i}]", limit)
        return col

    def numbers(self, col: object, where: str, count: int, real: bool = False) -> list[float | None]:
        col = self.seq(col, where, count)
        types = set(map(type, col))
        if types <= {float, type(None)} or (not real and types <= {float, int, type(None)}):
            return col
        out: list[float | None] = []
        for i, v in enumerate(col):
            v = self.number(v, f"{where}[{i}]")
            out.append(float(v) if real and v is not None else v)
        return out

    def nested_ints(
        self, col: object, where: str, count: int | None, low: int = 0, high: int = ID_LIMIT
    ) -> list[list[int]]:
        """A column whose rows are lists of integers."""
        col = self.seq(col, where, count)
        if not set(map(type, col)) <= {list}:
            for i, row in enumerate(col):
                self.seq(row, f"{where}[{i}]")
        flat = list(chain.from_iterable(col))
        if not set(map(type, flat)) <= {int} or (flat and (min(flat) < low or max(flat) > high)):
            for i, row in enumerate(col):
                for j, v in enumerate(row):
                    self.integer(v, f"{where}[{i}][{j}]", low, high)
        return col
