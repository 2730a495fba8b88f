"""What the recorder has promised to keep: the policy, the passes pinned for their NaN/Inf (`Pins`),
and the captured values held within the memory budget (`CapturedValues`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..record.live_columns import LiveNodes
from ..record.model import Record
from ..record.node_table import NONE
from ..record.tensor_summary import TensorSummary
from ..stats.summarize import FULL_VALUES_LIMIT

# What holds captured values: a row of the nodes' summaries, or a summary held elsewhere.
Held = int | TensorSummary


@dataclass(frozen=True)
class Policy:
    """How much the recorder keeps.

    Every pass keeps its loss and per-parameter grad norms. Full detail (nodes with value
    summaries, backward steps with grad summaries) is kept for the first `keep_first` passes,
    the last `keep_last` (None: every pass), and the passes where the first NaN/Inf value and
    the first NaN/Inf grad appeared. Captured values (previews and full values) are held within
    `memory_budget` bytes; past it the oldest are dropped and the record counts them.
    """

    keep_first: int = 1
    keep_last: int | None = 3
    full_values_limit: int = FULL_VALUES_LIMIT
    memory_budget: int = 512 * 2**20
    vanishing: float = 1e-7  # a parameter grad norm under this is vanishing
    exploding: float = 1e3  # over this, exploding
    console_limit: int = 100_000  # console lines kept (the oldest are dropped past it)
    # Look for NaN/Inf in every value and grad of every pass. Otherwise a pass is scanned when
    # its loss or a grad norm is NaN/Inf (then the passes still held before it too, oldest
    # first) and at the end: a NaN that reaches neither the loss nor any parameter's grad is
    # then found only in the passes held at that moment (the last four).
    scan_every_pass: bool = False

    @classmethod
    def every_pass(cls, **options: Any) -> Policy:  # (Any: the other fields' values, each its own type)
        """Full detail for every pass."""
        return cls(keep_last=None, **options)


class Pins:
    """The passes kept in full detail whatever the window: the first ones (`keep_first`), the first
    whose values and the first whose grads hold a NaN/Inf, and those the debugger paused in."""

    def __init__(self, keep_first: int) -> None:
        self._keep_first = keep_first
        self._pinned: set[int] = set()
        self._nan_value_pass: int | None = None
        self._nan_grad_pass: int | None = None

    def add(self, index: int) -> None:
        """Keep pass `index` in detail (the debugger paused in it)."""
        self._pinned.add(index)

    def __contains__(self, index: int) -> bool:
        return index in self._pinned

    def pinned(self) -> set[int]:
        """The passes pinned so far (a copy)."""
        return set(self._pinned)

    def for_good(self, index: int) -> bool:
        """Whether pass `index` keeps its detail for good (first or pinned)."""
        return index < self._keep_first or index in self._pinned

    def nonfinite(self, index: int, is_value: bool) -> None:
        """Pass `index` holds a NaN/Inf (in a value, else in a grad): pinned if it is the first."""
        if is_value and self._nan_value_pass is None:
            self._nan_value_pass = index
            self._pinned.add(index)
        elif not is_value and self._nan_grad_pass is None:
            self._nan_grad_pass = index
            self._pinned.add(index)

    def wanted(self) -> tuple[bool, bool]:
        """Whether the first NaN/Inf value, and the first NaN/Inf grad, are still to be found."""
        return self._nan_value_pass is None, self._nan_grad_pass is None


class CapturedValues:
    """The values the record's summaries capture (previews, full values), by pass, and their bytes:
    past the memory budget the oldest are dropped and the record counts them. An entry is a row of
    the nodes' summaries (an int) or a summary held elsewhere (a step's, a change's)."""

    def __init__(self, record: Record, budget: int) -> None:
        self._record = record
        self._budget = budget
        self._by_pass: dict[int, list[Held]] = {}  # pass -> entries holding captured values
        self._bytes = 0

    def hold(self, index: int, entries: list[Held], nbytes: int) -> None:
        """Pass `index`'s summaries in `entries` capture `nbytes` bytes more."""
        self._by_pass.setdefault(index, []).extend(entries)
        self._bytes += nbytes

    def release(self, index: int) -> None:
        """Pass `index`'s values are let go of with its detail."""
        self._bytes -= sum(map(self._size, self._by_pass.pop(index, [])))

    def hold_outputs(self, index: int, ids: Iterable[int]) -> None:
        """The output summaries of these nodes (of pass `index`, kept when it was trimmed) stay held."""
        live = self._record.nodes.live()
        rows = (live.row(nid) for nid in ids)
        survivors: list[Held] = [o for o in (live.output[r] for r in rows if r is not None) if o >= 0]
        if survivors:
            self._by_pass[index] = survivors
            self._bytes += sum(map(self._size, survivors))

    def delete_node(self, nid: int) -> None:
        """Delete a node from the record, and count the bytes of values this let go of."""
        live = self._record.nodes.live()
        r = live.row(nid)
        s = NONE if r is None else live.output[r]
        if s >= 0 and live.refs[s] == 1:
            self._bytes -= live.summaries.value_bytes(s)
        self._record.nodes.pop(nid, None)

    def renumber(self, renumber: list[int]) -> None:
        """The nodes' summary rows were renumbered (old row -> new, NONE: gone)."""
        for entries in self._by_pass.values():
            entries[:] = [
                e if type(e) is not int else renumber[e] for e in entries if type(e) is not int or renumber[e] >= 0
            ]

    def enforce_budget(self) -> None:
        """Past the memory budget, drop captured values, oldest pass first, and count them."""
        budget = self._budget
        if self._bytes <= budget:
            return
        by_pass = self._by_pass
        for index in sorted(by_pass):
            summaries = by_pass[index]
            i = 0
            while i < len(summaries) and self._bytes > budget:
                freed = self._drop(summaries[i])
                i += 1
                if freed:
                    self._bytes -= freed
                    self._record.dropped_values += 1
            del summaries[:i]
            if not summaries:
                del by_pass[index]
            if self._bytes <= budget:
                return

    def _size(self, entry: Held) -> int:
        """Bytes of values an entry holds."""
        live: LiveNodes = self._record.nodes.live()
        # (not an int on the right: a summary)
        return live.summaries.value_bytes(entry) if type(entry) is int else entry.captured_bytes  # type: ignore[union-attr]

    def _drop(self, entry: Held) -> int:
        """Let go of an entry's values; the bytes freed."""
        live: LiveNodes = self._record.nodes.live()
        return live.drop_values(entry) if type(entry) is int else entry.drop_values()  # type: ignore[union-attr]
