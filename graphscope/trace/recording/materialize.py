"""Turning a journal into the record: nodes and steps, with their arrays summarised in batches."""

from __future__ import annotations

import gc
import math
from collections import deque
from contextlib import contextmanager

import numpy as np

from graphscope.engine import backend
from graphscope.engine.backend import namespace

from ..record.model import CONSTANT, PARAMETER, TENSOR, LeafGrad, Record, Step
from ..record.naming import Names, short_repr
from ..record.node_table import IS_LEAF, NONE, REQUIRES_GRAD
from ..stats.finite import NUMBER
from ..stats.summarize import summarize_many, summarize_value
from . import summary_worker
from .journal import ConstantEvent, Journal, Journals, LeafEvent, OpEvent, saved_roles
from .keeping import CapturedValues, Pins, Policy
from .leaves import Leaves
from .optimizer_events import OptimizerRecording, finish_states


class Materializer:
    """Puts journals into the record (for passes kept in detail) and summarises the arrays they
    hold, in batches. It owns the batches waiting to be stored and the summaries a later batch
    may share (an unchanged leaf's, a copy an optimizer event shares with its pass)."""

    def __init__(
        self,
        record: Record,
        policy: Policy,
        journals: Journals,
        leaves: Leaves,
        names: Names,
        optimizer: OptimizerRecording,
        pins: Pins,
        captured: CapturedValues,
    ):
        self._record = record
        self._policy = policy
        self._journals = journals
        self._leaves = leaves
        self._names = names
        self._optimizer = optimizer
        self._pins = pins
        self._captured = captured
        self._leaf_summaries: dict[int, tuple] = {}  # id(leaf copy) -> (copy, its summary)
        self._summary_rows: dict[int, tuple] = {}  # id(leaf copy's summary) -> (summary, row in the nodes' summaries)
        self._pending: deque = deque()  # batches of summaries not yet stored, oldest first
        self._deferred: list = []  # of those, the small ones not yet summarised
        self._deferred_elements = 0
        self._awaited: set[int] = set()  # ids of copies a later batch takes a summary of

    def materialize_through(self, index: int) -> None:
        """Materialise journal `index` and any earlier recent one still pending, in order, so
        the record's nodes stay in creation order."""
        for j in self._journals.recent():
            if j.index <= index:
                self.materialize(j)

    def materialize(self, j: Journal) -> None:
        """Turn the journal's new events and steps into record nodes and steps, with summaries."""
        j.untape()  # first: its steps say which of its ops' saved state to put into the record
        if self._pins.for_good(j.index):
            self._journals.keep_for_good(j)
        if j.done == len(j.events) and j.steps_done == len(j.steps):
            return
        j.materialized = True
        with collector_paused():
            self._materialize_new(j)

    def flush(self) -> None:
        """Put every journal still held (but a trimmed pass's) into the record, and store every
        summary: a consistent cut, whatever the moment (a node of a pass in the window may use a
        node of an older held pass)."""
        passes = self._record.passes
        for j in self._journals.recent():
            if j.index >= len(passes) or passes[j.index].detailed:
                self.materialize(j)
        optimizer = self._optimizer
        if optimizer.pending():  # the pending changes of passes still in the detail window
            work, shared, states = optimizer.work(len(passes) + 1)
            self.summarize_into(max(len(passes) - 1, 0), work, at_once=True, shared=shared, states=states)
        self._store_all()

    def waiting(self) -> tuple[int, int]:
        """(batches of summaries not yet stored, of those the ones not yet summarised)."""
        return len(self._pending), len(self._deferred)

    def _materialize_new(self, j: Journal) -> None:
        live = self._record.nodes.live()
        site_of = self._names.site
        rows, work, guards = [], [], []
        add = rows.append
        saved = j.saved
        reprs: dict[int, str] = {}  # id(value) -> its short repr: a chain repeats its constants
        events = j.events
        index = j.index
        for position in range(j.done, len(events)):
            e = events[position]
            events[position] = None  # its arrays now belong to the work (then to the summaries)
            kind = type(e)
            nid = e.id
            if kind is OpEvent:
                op, name = e.names
                add(
                    (
                        nid,
                        op,
                        name,
                        e.inputs,
                        index,
                        REQUIRES_GRAD if e.requires_grad else 0,
                        None,
                        e.module,
                        site_of(e.site),
                        _saved(e, saved.pop(nid, None)),
                        () if e.args is None else tuple((k, _repr_of(v, reprs)) for k, v in e.args),
                        NONE,
                    )
                )
                if e.vc[0] == e.version:  # else it was overwritten in place: its value is lost
                    work.append((RELU if op == "relu" else NODE, nid, e.array))
                    guards.append((nid, e.vc, e.version))
            elif kind is LeafEvent:
                add(
                    (
                        nid,
                        PARAMETER if e.requires_grad else TENSOR,
                        "",
                        (),
                        index,
                        IS_LEAF | (REQUIRES_GRAD if e.requires_grad else 0),
                        e.label,
                        e.module,
                        site_of(e.site),
                        (),
                        (),
                        NONE if e.leaf is None else e.leaf,
                    )
                )
                work.append((NODE, nid, e.copy))
            elif kind is ConstantEvent:
                value = e.value
                add(
                    (
                        nid,
                        CONSTANT,
                        short_repr(value),
                        (),
                        index,
                        IS_LEAF,
                        None,
                        e.module,
                        site_of(e.site),
                        (),
                        (),
                        NONE,
                    )
                )
                if type(value) in NUMBER:
                    live.extend(rows)
                    rows = []
                    add = rows.append
                    row = live.set_output(len(live) - 1, summarize_value(value))
                    self._captured.hold(index, [row], 0)
                elif hasattr(value, "dtype") and hasattr(value, "shape"):
                    work.append((NODE, nid, value))
            else:
                add(
                    (
                        nid,
                        e.op,
                        e.name,
                        (),
                        index,
                        REQUIRES_GRAD if e.requires_grad else 0,
                        None,
                        e.module,
                        site_of(e.site),
                        (),
                        (),
                        NONE,
                    )
                )
                if e.copy is not None:
                    work.append((NODE, nid, e.copy))
            j.ids.append(nid)
            if len(work) >= CHUNK:
                live.extend(rows)
                rows = []
                add = rows.append
                self.summarize_into(index, work, guards)
                work, guards = [], []
        live.extend(rows)
        j.done = len(events)
        p = self._record.passes[j.index] if j.index < len(self._record.passes) else None
        steps, leaves = j.steps, j.step_leaves
        for k in range(j.steps_done, len(steps)):
            nid, grad_output, grad_inputs = steps[k]
            steps[k] = None  # its arrays now belong to the work
            st = Step(nid)
            work.append((st, "grad_output", grad_output))
            if grad_inputs is not None:
                st.grad_inputs = grad_slots(st, grad_inputs)
                work += [(st.grad_inputs, i, g) for i, g in enumerate(grad_inputs) if g is not None]
            for leaf, grad, before, now in leaves.pop(k, ()):
                lg = LeafGrad(leaf)
                st.leaf_grads.append(lg)
                work += leaf_grad_work(lg, grad, before, now)
            if p is not None:
                p.steps.append(st)
            if len(work) >= CHUNK:
                self.summarize_into(j.index, work, guards)
                work, guards = [], []
        if j.steps_done < len(steps):  # the last may still get its grads (the session paused in it)
            j.made_step = (len(steps) - 1, st)
        j.steps_done = len(steps)
        if p is not None and p.finished:  # no step of it can run again: its pending steps can go
            j.steps, j.steps_done, j.made_step = [], 0, None
        # The optimizer events between the passes before it: summarised in the same batch.
        changes, shared, states = self._optimizer.work(j.index) if self._optimizer.pending() else ((), (), ())
        self.summarize_into(j.index, work + changes if changes else work, guards, shared=shared, states=states)

    def summarize_into(
        self,
        index: int,
        work: list,
        guards: list = (),
        at_once: bool = False,
        shared: list | tuple = (),
        states: list | tuple = (),
    ) -> None:
        """Summarise [(target, key, array)] and store each summary at target[key] / target.key.

        An array met twice (a leaf's grad is also its step's grad input; a grad passed down a
        chain is one step's grad input and the next step's grad output; an unchanged leaf is
        shared with the last pass; an optimizer event's copies of values and grads, the arrays
        `shared`, are those of the pass before) is summarised once and its summary shared.

        With every pass kept, a large batch is summarised on the background worker, and small
        ones wait to be summarised together, a few passes' at once (a batch's fixed cost is most
        of a small pass's); both are stored later, in order, on this thread (`_store_ready`;
        `_store_all` does every batch, waiting for the worker). `guards` are (node, version
        counter, version) of op outputs kept by reference: one written in place before its
        summary is stored loses it, as when written before. `states` (optimizer states) are
        finished once their summaries are stored."""
        if not work:
            if states:
                finish_states(states)
            return
        known = self._leaf_summaries
        slot_of: dict[int, int] = {}
        arrays, slots, ready = [], [], {}
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
            waiting = {id(a): a for e in self._pending for a in e[7]}
            for k in map(id, shared):
                i = slot_of.get(k)
                if i is not None and i not in ready and waiting.get(k) is arrays[i]:
                    ready[i] = LATER
                    self._awaited.add(k)
        todo = [i for i in range(len(arrays)) if i not in ready]
        batch = [arrays[i] for i in todo]
        limit = self._policy.full_values_limit
        elements = _host_elements(batch) if self._policy.keep_last is None and not at_once else 0
        entry = [index, work, guards, arrays, slots, ready, todo, batch, shared, states, None]
        if elements >= BACKGROUND_ELEMENTS:
            entry[-1] = summary_worker.submit(batch, limit)
        elif elements:
            self._deferred.append(entry)
            self._deferred_elements += elements
        else:
            entry[2] = ()  # summarised now: the outputs' versions were checked a moment ago
            entry[-1] = summarize_many(batch, limit)
        self._pending.append(entry)
        if len(self._deferred) >= DEFERRED_PASSES or self._deferred_elements >= BACKGROUND_ELEMENTS:
            self._summarize_deferred()
        self._store_ready()

    def _summarize_deferred(self) -> None:
        """Summarise the small batches waiting, all in one call."""
        entries, self._deferred, self._deferred_elements = self._deferred, [], 0
        if not entries:
            return
        summaries = summarize_many([a for e in entries for a in e[7]], self._policy.full_values_limit)
        start = 0
        for e in entries:
            e[-1] = summaries[start : start + len(e[7])]
            start += len(e[7])

    def _store_ready(self) -> None:
        """Store the summaries of the batches done, oldest first, up to the first not done."""
        queue = self._pending
        while queue:
            pending = queue[0][-1]
            if not (type(pending) is list or (pending is not None and pending.done.is_set())):
                return
            self._store(*queue.popleft())

    def _store_all(self) -> None:
        """Store every batch's summaries, waiting for those still running (a consistent cut)."""
        self._summarize_deferred()
        queue = self._pending
        while queue:
            self._store(*queue.popleft())

    def _store(self, index, work, guards, arrays, slots, ready, todo, _batch, shared, states, pending) -> None:
        fresh_summaries = pending if type(pending) is list else pending.result()
        summaries = [None] * len(arrays)
        known = self._leaf_summaries
        for i, s in ready.items():
            if s is LATER:  # stored by the batch before that summarised it
                k = id(arrays[i])
                s = known[k][1]
                self._awaited.discard(k)
            summaries[i] = s
        current = self._leaves.copies()
        current.update(self._awaited)
        current.update(map(id, shared))
        if self._optimizer.pending():  # copies later batches will share: keep their summaries
            current.update(map(id, self._optimizer.pending_copies()))
        if len(known) > 2 * len(current) + 16:  # forget the summaries of copies gone
            known = self._leaf_summaries = {k: v for k, v in known.items() if k in current}
        captured = []  # entries holding values this batch's summaries captured
        fresh = [False] * len(arrays)  # per slot: a summary made for this batch, not yet counted
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
        given, outputs = [], []  # node rows given a new output summary, and those summaries
        next_row = len(live.summaries)
        relus = []
        added = 0
        node, relu = NODE, RELU  # looked up once, not per item
        for (target, key, raw), i in zip(work, slots):
            s = summaries[i]
            if target is node or target is relu:  # a node's output: key is its id
                r = row_of(key)
                if r is None or (stale and key in stale):  # gone from the record, or overwritten in place
                    continue
                shared = None if fresh[i] else rows.get(id(s))  # a summary made now has no row yet
                if shared is not None and shared[0] is s:
                    live.share_output(r, shared[1])
                    entry = shared[1]
                else:
                    given.append(r)
                    outputs.append(s)
                    entry = next_row
                    next_row += 1
                    if id(arrays[i]) in current:  # a later pass may show this same value
                        rows[id(s)] = (s, entry)
                if target is relu and raw.ndim >= 2:
                    relus.append((r, raw))
            else:
                entry = s
                if type(key) is int:
                    target[key] = s
                else:
                    if stale and id(target) in stale:
                        continue
                    setattr(target, key, s)
            if fresh[i]:  # counted once, by its first holder
                fresh[i] = False
                captured.append(entry)
                added += s.captured_bytes
            if s.nan_count or s.inf_count:
                self._pins.nonfinite(index, target is node or target is relu)
        self._captured.hold(index, captured, added)
        live.set_outputs(given, outputs)
        if len(rows) > 2 * len(known) + 16:  # forget the rows of summaries no longer shared
            self._summary_rows = {id(v[1]): rows[id(v[1])] for v in known.values() if id(v[1]) in rows}
        remap = live.compact_summaries()
        if remap is not None:  # summary rows were renumbered: so are those held here
            renumber = remap.tolist()
            self._captured.renumber(renumber)
            self._summary_rows = {
                k: (s, renumber[row]) for k, (s, row) in self._summary_rows.items() if renumber[row] >= 0
            }
        if relus:
            _note_dead_units(live, relus)
        if states:
            finish_states(states)
        self._captured.enforce_budget()


def grad_slots(step: Step, grad_inputs) -> list:
    """The step's grads to its inputs, a slot each (made empty on first use)."""
    if not step.grad_inputs:
        step.grad_inputs = [None] * len(grad_inputs)
    return step.grad_inputs


def leaf_grad_work(lg: LeafGrad, grad, before, now) -> list:
    """What to summarise into a leaf grad: the added grad, `.grad` before (when there was one)
    and after (the added grad's own copy when nothing was there)."""
    work = [(lg, "grad", grad), (lg, "now", now)]
    if before is not None:
        work.append((lg, "before", before))
    return work


# A batch of kept arrays with at least this many host elements is summarised on the background
# worker (NumPy lets go of the GIL over large arrays); a smaller one costs more to hand over.
BACKGROUND_ELEMENTS = 1 << 16
# A long pass is summarised this many arrays at a time: its raw arrays and the batch's working
# lists are let go as it goes, not all held at once beside the record being made.
CHUNK = 8192
# Small batches of this many passes (with every pass kept) are summarised together.
DEFERRED_PASSES = 16
# In a batch's `ready`: an array a batch before it summarises, its summary taken when stored.
LATER = object()
# A work item's target for a node's output (a relu's, whose dead units are counted too); its key
# is the node's id.
NODE, RELU = object(), object()


def _host_elements(arrays: list) -> int:
    total = 0
    for a in arrays:
        if type(a) is not np.ndarray:
            return 0  # another device's batch is already asynchronous there
        total += a.size
    return total


@contextmanager
def collector_paused():
    """Pause Python's cyclic garbage collector: materialising makes many long-lived objects and no
    cycles, and a collector run again and again while they are made would scan them all each
    time (on a 100,000-node pass, most of the work)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _saved(e: OpEvent, state) -> tuple:
    """What an op saved: from its state kept before its backward, or read now if its backward
    has not run (nothing once a backward freed it)."""
    if state is None:
        if e.node.released:
            return ()
        state = e.node.__dict__.items()
    return saved_roles(e, state)


def _repr_of(value, reprs: dict) -> str:
    """`short_repr(value)`, once per value object in one materialisation (the event holds it)."""
    text = reprs.get(id(value))
    if text is None:
        text = reprs[id(value)] = short_repr(value)
    return text


def _note_dead_units(live, relus: list) -> None:
    """Set each ReLU row's dead units: units (everything after the batch dimension) that are
    zero for every example; the counts of device arrays come back in one transfer per device."""
    on_device = []
    for row, output in relus:
        units = math.prod(output.shape[1:])
        if type(output) is np.ndarray:
            alive = int(np.count_nonzero(output.reshape(output.shape[0], -1).any(axis=0)))
            live.set_dead(row, (units - alive, units))
        else:
            xp = namespace(output)
            flat = backend.reshape(output, (output.shape[0], -1))
            on_device.append((row, units, xp.sum(backend.astype(xp.any(flat != 0, axis=0), xp.int64))))
    if on_device:
        for (row, units, _), alive in zip(on_device, backend.scalars([c for _, _, c in on_device])):
            live.set_dead(row, (units - int(alive), units))
