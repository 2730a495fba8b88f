"""Kept arrays summarised in batches and their summaries stored in order, apart from `materialize.py`:
the batches waiting and the summaries they share are state of their own, which turning journals into
record nodes only feeds."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from graphscope.engine import backend
from graphscope.engine.backend import namespace

from ..record.live_columns import LiveNodes
from ..record.model import Record
from ..record.summary_table import SummaryTable
from ..record.tensor_summary import TensorSummary
from ..stats.batched import summary_rows
from ..stats.device import DeviceArray
from ..stats.summarize import BATCH_LIMIT, summarize_many
from . import summary_worker
from .keeping import CapturedValues, Pins, Policy
from .leaves import Leaves
from .optimizer_events import OptimizerRecording, finish_states
from .summary_work import NODE, RELU, Guard, StateWork, WorkItem


class _Later(Enum):
    LATER = 0


# In a batch's `ready`: an array a batch before it summarises, its summary taken when stored.
LATER = _Later.LATER

# A batch of kept arrays with at least this many host elements is summarised on the background
# worker (NumPy lets go of the GIL over large arrays); a smaller one costs more to hand over.
BACKGROUND_ELEMENTS = 1 << 16
# Small batches of this many passes (with every pass kept) are summarised together.
DEFERRED_PASSES = 16
# A batch summarised at once with at least this many small float node outputs of one dtype (a long
# pass: a chain) has them summarised as the rows of one table, with no TensorSummary made for each;
# a run of fewer than ROW_RUN of them between other outputs is made into summaries again.
TABLE_ROWS = 1024
ROW_RUN = 64
_FLOATS = frozenset(np.dtype(d) for d in ("float16", "float32", "float64"))


@dataclass(slots=True)
class PendingBatch:
    """A batch of summaries not yet stored: its work, and the summaries once made (a list, or the
    worker's Batch while it runs; None while deferred)."""

    index: int
    work: list[WorkItem]
    guards: Sequence[Guard]
    arrays: list[DeviceArray]
    slots: list[int]
    ready: dict[int, TensorSummary | _Later]
    todo: list[int]
    batch: list[DeviceArray]
    shared: Sequence[DeviceArray]
    states: Sequence[StateWork]
    summaries: list[TensorSummary] | summary_worker.Batch | None = None
    batch_ids: frozenset[int] | None = None
    rows: SummaryTable | None = None  # the summaries of the slots in `row_of`, as a table's rows
    row_of: dict[int, int] | None = None  # slot -> its row there

    def ids(self) -> frozenset[int]:
        """The ids of the arrays this batch summarises (made once, when a later batch asks)."""
        if self.batch_ids is None:
            self.batch_ids = frozenset(map(id, self.batch))
        return self.batch_ids


class SummaryBatches:
    """Summarises [(target, key, array)] work in batches and stores each summary at its target. It
    owns the batches waiting to be stored and the summaries a later batch may share (an unchanged
    leaf's, a copy an optimizer event shares with its pass)."""

    def __init__(
        self,
        record: Record,
        policy: Policy,
        leaves: Leaves,
        optimizer: OptimizerRecording,
        pins: Pins,
        captured: CapturedValues,
    ):
        self._record = record
        self._policy = policy
        self._leaves = leaves
        self._optimizer = optimizer
        self._pins = pins
        self._captured = captured
        # id(leaf copy) -> (copy, its summary)
        self._leaf_summaries: dict[int, tuple[DeviceArray, TensorSummary]] = {}
        # id(leaf copy's summary) -> (summary, row in the nodes' summaries)
        self._summary_rows: dict[int, tuple[TensorSummary, int]] = {}
        self._pending: deque[PendingBatch] = deque()  # batches of summaries not yet stored, oldest first
        self._deferred: list[PendingBatch] = []  # of those, the small ones not yet summarised
        self._deferred_elements = 0
        self._awaited: set[int] = set()  # ids of copies a later batch takes a summary of

    def waiting(self) -> tuple[int, int]:
        """(batches of summaries not yet stored, of those the ones not yet summarised)."""
        return len(self._pending), len(self._deferred)

    def summarize_into(
        self,
        index: int,
        work: list[WorkItem],
        guards: Sequence[Guard] = (),
        at_once: bool = False,
        shared: Sequence[DeviceArray] = (),
        states: Sequence[StateWork] = (),
    ) -> None:
        """Summarise [(target, key, array)] and store each summary at target[key] / target.key.

        An array met twice (a leaf's grad is also its step's grad input; a grad passed down a
        chain is one step's grad input and the next step's grad output; an unchanged leaf is
        shared with the last pass; an optimizer event's copies of values and grads, the arrays
        `shared`, are those of the pass before) is summarised once and its summary shared.

        With every pass kept, a large batch is summarised on the background worker, and small
        ones wait to be summarised together, a few passes' at once (a batch's fixed cost is most
        of a small pass's); both are stored later, in order, on this thread (`_store_ready`;
        `store_all` does every batch, waiting for the worker). `guards` are (node, version
        counter, version) of op outputs kept by reference: one written in place before its
        summary is stored loses it, as when written before. `states` (optimizer states) are
        finished once their summaries are stored."""
        if not work:
            if states:
                finish_states(states)
            return
        known = self._leaf_summaries
        slot_of: dict[int, int] = {}
        arrays: list[DeviceArray] = []
        slots: list[int] = []
        ready: dict[int, TensorSummary | _Later] = {}
        for _, _, raw in work:
            k = id(raw)
            i = slot_of.get(k)
            if i is None:
                i = slot_of[k] = len(arrays)
                arrays.append(raw)
                cached = known.get(k)
                if cached is not None and cached[0] is raw:
                    ready[i] = cached[1]
            slots.append(i)
        if shared and self._pending:  # the pass before's copies may be in a batch not yet stored
            waiting = [e.ids() for e in self._pending]  # (asked of each: no union of them all per pass)
            for k in map(id, shared):
                i = slot_of.get(k)
                # (an id a pending batch holds is that same array: the batch keeps it alive)
                if i is not None and i not in ready and any(k in ids for ids in waiting):
                    ready[i] = LATER
                    self._awaited.add(k)
        todo = [i for i in range(len(arrays)) if i not in ready]
        batch = [arrays[i] for i in todo]
        limit = self._policy.full_values_limit
        elements = _host_elements(batch) if self._policy.keep_last is None and not at_once else 0
        entry = PendingBatch(index, work, guards, arrays, slots, ready, todo, batch, shared, states)
        if elements >= BACKGROUND_ELEMENTS:
            entry.summaries = summary_worker.submit(batch, limit)
        elif elements:
            self._deferred.append(entry)
            self._deferred_elements += elements
        else:
            entry.guards = ()  # summarised now: the outputs' versions were checked a moment ago
            if len(todo) >= TABLE_ROWS:
                self._as_rows(entry, shared, limit)
            entry.summaries = summarize_many(entry.batch, limit)
        self._pending.append(entry)
        if len(self._deferred) >= DEFERRED_PASSES or self._deferred_elements >= BACKGROUND_ELEMENTS:
            self._summarize_deferred()
        self._store_ready()

    def _as_rows(self, entry: PendingBatch, shared: Sequence[DeviceArray], limit: int) -> None:
        """Summarise the batch's small float node outputs of its commonest dtype as the rows of one table
        (`summary_rows`), when there are TABLE_ROWS of them; the rest of the batch is left to summarise.
        Only an array no other item and no later pass reads qualifies: nothing shares its summary."""
        arrays, todo = entry.arrays, entry.todo
        outside = bytearray(len(arrays))  # per slot: an item other than a node's output reads it
        node, relu = NODE, RELU
        for (target, _, _), i in zip(entry.work, entry.slots):
            if target is not node and target is not relu:
                outside[i] = 1
        remembered = self._remembered(shared)
        remembered.update(self._leaf_summaries)  # (a summary kept from before: shared as it is)
        cap = min(BATCH_LIMIT, limit)
        by_dtype: dict[np.dtype, list[int]] = {}
        for i in todo:
            a = arrays[i]
            if not outside[i] and type(a) is np.ndarray and 0 < a.size <= cap and id(a) not in remembered:
                by_dtype.setdefault(a.dtype, []).append(i)
        chosen = max((slots for dtype, slots in by_dtype.items() if dtype in _FLOATS), key=len, default=[])
        if len(chosen) < TABLE_ROWS:
            return
        table = summary_rows([arrays[i] for i in chosen])
        if table is None:  # a NaN or an Inf among them
            return
        entry.rows, entry.row_of = table, dict(zip(chosen, range(len(chosen))))
        entry.todo = [i for i in todo if i not in entry.row_of]
        entry.batch = [arrays[i] for i in entry.todo]

    def _remembered(self, shared: Sequence[DeviceArray]) -> set[int]:
        """The ids of the copies whose summaries (and rows) a later batch may share: the leaves', those a
        later batch awaits, `shared` and the pending optimizer changes'."""
        current = self._leaves.copies()
        current.update(self._awaited)
        current.update(map(id, shared))
        if self._optimizer.pending():
            current.update(map(id, self._optimizer.pending_copies()))
        return current

    def _summarize_deferred(self) -> None:
        """Summarise the small batches waiting, all in one call."""
        entries, self._deferred, self._deferred_elements = self._deferred, [], 0
        if not entries:
            return
        summaries = summarize_many([a for e in entries for a in e.batch], self._policy.full_values_limit)
        start = 0
        for e in entries:
            e.summaries = summaries[start : start + len(e.batch)]
            start += len(e.batch)

    def _store_ready(self) -> None:
        """Store the summaries of the batches done, oldest first, up to the first not done."""
        queue = self._pending
        while queue:
            pending = queue[0].summaries
            # (not a list on the right: the worker's Batch)
            if not (type(pending) is list or (pending is not None and pending.done.is_set())):  # type: ignore[union-attr]
                return
            self._store(queue.popleft())

    def store_all(self) -> None:
        """Store every batch's summaries, waiting for those still running (a consistent cut)."""
        self._summarize_deferred()
        queue = self._pending
        while queue:
            self._store(queue.popleft())

    def _store(self, entry: PendingBatch) -> None:
        index, work, guards, arrays, slots, ready, todo = (
            entry.index,
            entry.work,
            entry.guards,
            entry.arrays,
            entry.slots,
            entry.ready,
            entry.todo,
        )
        shared, states, pending = entry.shared, entry.states, entry.summaries
        # (summarised by the time it is stored: a list, or the worker's batch; never None)
        fresh_summaries = pending if type(pending) is list else pending.result()  # type: ignore[union-attr]
        # Every slot is filled below: from `ready`, or by this batch's summaries.
        summaries: list[TensorSummary] = [None] * len(arrays)  # type: ignore[list-item]
        known = self._leaf_summaries
        for i, s in ready.items():
            if s is LATER:  # stored by the batch before that summarised it
                k = id(arrays[i])
                s = known[k][1]
                self._awaited.discard(k)
            summaries[i] = s
        current = self._remembered(shared)  # copies later batches will share: keep their summaries
        if len(known) > 2 * len(current) + 16:  # forget the summaries of copies gone
            known = self._leaf_summaries = {k: v for k, v in known.items() if k in current}
        captured: list[int | TensorSummary] = []  # entries holding values this batch's summaries captured
        fresh = [False] * len(arrays)  # per slot: a summary made for this batch, not yet counted
        table, table_row = entry.rows, entry.row_of  # (slots summarised as a table's rows: no summary each)
        if table_row is not None:
            for i in table_row:
                fresh[i] = True
        meta = self._record.metadata
        for i, s in zip(todo, fresh_summaries):
            cached = known.get(id(arrays[i]))
            if cached is not None and cached[0] is arrays[i]:  # stored by a batch before this one
                summaries[i] = cached[1]
                continue
            summaries[i] = s
            if id(arrays[i]) in current:
                known[id(arrays[i])] = (arrays[i], s)
            fresh[i] = True
            if s.device != "cpu" and meta.device == "cpu":
                meta.device = s.device
        stale = {nid for nid, vc, version in guards if vc[0] != version}
        live = self._record.nodes.live()
        row_of = live.row
        rows = self._summary_rows
        given: list[int] = []  # node rows given a new output summary
        outputs: list[TensorSummary | int] = []  # and those summaries (an int: a row of `table`)
        next_row = len(live.summaries)
        relus = []
        added = 0
        node, relu = NODE, RELU  # looked up once, not per item
        entry_held: int | TensorSummary
        for (target, key, raw), i in zip(work, slots):
            s = summaries[i]
            if target is node or target is relu:  # a node's output: key is its id
                r = row_of(key)
                if r is None or (stale and key in stale):  # gone from the record, or overwritten in place
                    continue
                if s is None:  # a row of `table` (`_as_rows`): finite, on the host, no other holder
                    given.append(r)
                    outputs.append(table_row[i])  # (only its slots have no summary)
                    if fresh[i]:
                        fresh[i] = False
                        captured.append(next_row)
                        added += raw.nbytes  # (its every value, in its own dtype)
                    next_row += 1
                    if target is relu and raw.ndim >= 2:
                        relus.append((r, raw))
                    continue
                row_shared = None if fresh[i] else rows.get(id(s))  # a summary made now has no row yet
                if row_shared is not None and row_shared[0] is s:
                    live.share_output(r, row_shared[1])
                    entry_held = row_shared[1]
                else:
                    given.append(r)
                    outputs.append(s)
                    entry_held = next_row
                    next_row += 1
                    if id(arrays[i]) in current:  # a later pass may show this same value
                        rows[id(s)] = (s, entry_held)
                if target is relu and raw.ndim >= 2:
                    relus.append((r, raw))
            else:
                entry_held = s
                if type(key) is str:
                    if stale and id(target) in stale:
                        continue
                    setattr(target, key, s)
                else:
                    target[key] = s  # type: ignore[index]  # a list of slots: its key is an int
            if fresh[i]:  # counted once, by its first holder
                fresh[i] = False
                captured.append(entry_held)
                added += s.captured_bytes
            if s.nan_count or s.inf_count:
                self._pins.nonfinite(index, target is node or target is relu)
        self._captured.hold(index, captured, added)
        _give_outputs(live, given, outputs, table)
        if len(rows) > 2 * len(known) + 16:  # forget the rows of summaries no longer shared
            self._summary_rows = {id(v[1]): rows[id(v[1])] for v in known.values() if id(v[1]) in rows}
        remap = live.compact_summaries()
        if remap is not None:  # summary rows were renumbered: so are those held here
            renumber: list[int] = remap.tolist()
            self._captured.renumber(renumber)
            self._summary_rows = {
                k: (s, renumber[row]) for k, (s, row) in self._summary_rows.items() if renumber[row] >= 0
            }
        if relus:
            _note_dead_units(live, relus)
        if states:
            finish_states(states)
        self._captured.enforce_budget()


def _give_outputs(
    live: LiveNodes, given: list[int], outputs: list[TensorSummary | int], table: SummaryTable | None
) -> None:
    """Give the rows their output summaries in this order: objects, and rows of `table` (ints), a run of
    ROW_RUN of those appended as a table, a shorter one as summaries again."""
    if table is None:
        live.set_outputs(given, outputs)  # type: ignore[arg-type]  # (no table: every one an object)
        return
    start, n = 0, len(outputs)
    while start < n:
        in_table = type(outputs[start]) is int
        end = start + 1
        while end < n and (type(outputs[end]) is int) is in_table:
            end += 1
        part = outputs[start:end]
        if not in_table:
            live.set_outputs(given[start:end], part)  # type: ignore[arg-type]  # (objects, as just found)
        elif len(part) < ROW_RUN:
            live.set_outputs(given[start:end], [table[k] for k in part])  # type: ignore[index]  # (ints)
        else:
            whole = len(part) == len(table) and part == list(range(len(table)))
            live.set_outputs(given[start:end], table if whole else table.take(np.array(part, dtype=np.int64)))
        start = end


def _host_elements(arrays: list[DeviceArray]) -> int:
    total = 0
    for a in arrays:
        if type(a) is not np.ndarray:
            return 0  # another device's batch is already asynchronous there
        total += a.size
    return total


def _note_dead_units(live: LiveNodes, relus: list[tuple[int, DeviceArray]]) -> None:
    """Set each ReLU row's dead units: units (everything after the batch dimension) that are
    zero for every example; the counts of device arrays come back in one transfer per device."""
    on_device = []
    for row, output in relus:
        units = math.prod(output.shape[1:])
        if type(output) is np.ndarray:
            alive = int(np.count_nonzero(np.logical_or.reduce(output.reshape(output.shape[0], -1), axis=0)))
            live.set_dead(row, (units - alive, units))
        else:
            xp = namespace(output)
            flat = backend.reshape(output, (output.shape[0], -1))
            on_device.append((row, units, xp.sum(backend.astype(xp.any(flat != 0, axis=0), xp.int64))))
    if on_device:
        for (row, units, _), count in zip(on_device, backend.scalars([c for _, _, c in on_device])):
            live.set_dead(row, (units - int(count), units))
