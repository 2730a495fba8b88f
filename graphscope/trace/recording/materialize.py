"""Turning a journal into the record: nodes and steps, their arrays handed to `SummaryBatches` to summarise."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from ..record.model import CONSTANT, PARAMETER, TENSOR, BackwardPass, Record, SourceSite
from ..record.naming import Names, short_repr
from ..record.node_table import IS_LEAF, NONE, REQUIRES_GRAD
from ..record.step_table import LiveSteps, StepTable
from ..record.tensor_summary import TensorSummary
from ..stats.device import DeviceArray
from ..stats.finite import NUMBER
from ..stats.summarize import summarize_value
from .collector import Collector
from .journal import ConstantEvent, Journal, Journals, LeafEvent, OpEvent, saved_roles
from .keeping import CapturedValues, Pins
from .optimizer_events import OptimizerRecording
from .step_rows import StepRows
from .summary_batches import SummaryBatches
from .summary_work import NODE, RELU, Guard, StateWork, WorkItem

if TYPE_CHECKING:
    from graphscope.engine.hooks import Site


class Materializer:
    """Puts journals into the record (for passes kept in detail), handing the arrays they hold to
    the summary batches (`SummaryBatches`), with the optimizer events' of the passes before."""

    def __init__(
        self,
        record: Record,
        journals: Journals,
        names: Names,
        optimizer: OptimizerRecording,
        pins: Pins,
        captured: CapturedValues,
        batches: SummaryBatches,
        collector: Collector,
    ):
        self._record = record
        self._journals = journals
        self._names = names
        self._optimizer = optimizer
        self._pins = pins
        self._captured = captured
        self._batches = batches
        self._collector = collector

    def materialize_through(self, index: int) -> None:
        """Materialise journal `index` and any earlier recent one still pending, in order, so
        the record's nodes stay in creation order."""
        for j in self._journals.recent():
            if j.index <= index:
                self.materialize(j)

    def materialize(self, j: Journal) -> None:
        """Turn the journal's new events and steps into record nodes and steps, with summaries."""
        if j.tape:  # (most calls find none: every pass's journal is asked, or the steps came one by one)
            with self._collector.paused():  # (resolving a long tape makes a tuple per step)
                j.untape()  # first: its steps say which of its ops' saved state to put into the record
        if self._pins.for_good(j.index):
            self._journals.keep_for_good(j)
        if j.done == len(j.events) and j.steps_done == len(j.steps):
            return
        j.materialized = True
        with self._collector.paused():
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
            self._batches.summarize_into(max(len(passes) - 1, 0), work, at_once=True, shared=shared, states=states)
        self._batches.store_all()

    def waiting(self) -> tuple[int, int]:
        """(batches of summaries not yet stored, of those the ones not yet summarised)."""
        return self._batches.waiting()

    def _materialize_new(self, j: Journal) -> None:
        live = self._record.nodes.live()
        site_of = self._names.site
        sites: dict[Site | None, SourceSite | None] = {}  # an op's Site -> the record's (a call less per op)
        ids = j.ids
        rows: list[tuple[object, ...]] = []
        work: list[WorkItem] = []
        guards: list[Guard] = []
        add = rows.append
        saved = j.saved
        reprs: dict[int, str] = {}  # id(value) -> its short repr: a chain repeats its constants
        events = j.events
        # (the training series reads the current pass's module outputs when it ends)
        outputs: dict[str, OpEvent] = j.outputs if j is self._journals.current else {}
        index = j.index
        e: Any  # one of the journal's events: `kind` says which (mypy does not follow it to `e`)
        for position in range(j.done, len(events)):
            e = events[position]
            events[position] = None  # its arrays now belong to the work (then to the summaries)
            kind = type(e)
            nid = e.id
            if kind is OpEvent:
                op, name = e.names
                source = sites.get(e.site, sites)
                if source is sites:
                    source = sites[e.site] = site_of(e.site)
                state = saved.pop(nid, None)
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
                        source,
                        _saved(e) if state is None else saved_roles(e, state.items()),
                        () if e.args is None else tuple((k, _repr_of(v, reprs)) for k, v in e.args),
                        NONE,
                    )
                )
                if e.module is not None:
                    outputs[e.module] = e
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
                    summary = cast(TensorSummary, summarize_value(value))  # a Python number always has one
                    row = live.set_output(len(live) - 1, summary)
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
            ids.append(nid)
            if len(work) >= CHUNK:
                live.extend(rows)
                rows = []
                add = rows.append
                self._batches.summarize_into(index, work, guards)
                work, guards = [], []
        live.extend(rows)
        j.done = len(events)
        if not saved and len(events) > 1024:  # (a dict emptied by pops keeps its table: a long pass's, megabytes)
            j.saved = {}
        p = self._record.passes[j.index] if j.index < len(self._record.passes) else None
        steps, leaves = j.steps, j.step_leaves
        if j.steps_done < len(steps):
            table = _live_steps(p)
            written = StepRows(table, work)
            add_step = written.add
            for k in range(j.steps_done, len(steps)):
                nid, grad_output, grad_inputs = steps[k]
                steps[k] = None  # type: ignore[call-overload]  # its arrays now belong to the work (never read again)
                add_step(nid, grad_output, grad_inputs, leaves.pop(k, ()) if leaves else ())
                if len(work) >= CHUNK:
                    self._batches.summarize_into(j.index, work, guards)
                    work, guards = [], []
                    written.restart(work)
            j.made_step = (len(steps) - 1, table)  # the last may still get its grads (the session paused in it)
            j.steps_done = len(steps)
        if p is not None and p.finished:  # no step of it can run again: its pending steps can go
            j.steps, j.steps_done, j.made_step = [], 0, None
            j.plans = []  # and its planned Functions (a journal kept for good kept the whole graph alive)
        # The optimizer events between the passes before it: summarised in the same batch.
        changes: Sequence[WorkItem]
        shared: Sequence[DeviceArray]
        states: Sequence[StateWork]
        changes, shared, states = self._optimizer.work(j.index) if self._optimizer.pending() else ((), (), ())
        if changes:
            work += changes
        self._batches.summarize_into(j.index, work, guards, shared=shared, states=states)


def _live_steps(p: BackwardPass | None) -> LiveSteps:
    """The rows pass `p`'s steps are appended to (rows going nowhere for a journal without its pass)."""
    if p is None:
        return LiveSteps()
    if not isinstance(p.steps, StepTable):  # (a list: empty, the pass trimmed)
        p.steps = StepTable(steps=p.steps)
    return p.steps.live()


# A long pass is summarised this many arrays at a time: its raw arrays and the batch's working
# lists are let go as it goes, not all held at once beside the record being made.
CHUNK = 8192


def _saved(e: OpEvent) -> tuple[str, ...]:
    """What an op saved, when no state was kept before its backward: read now if its backward
    has not run (nothing once a backward freed it)."""
    return () if e.node.released else saved_roles(e, e.node.__dict__.items())


def _repr_of(value: object, reprs: dict[int, str]) -> str:
    """`short_repr(value)`, once per value object in one materialisation (the event holds it)."""
    text = reprs.get(id(value))
    if text is None:
        text = reprs[id(value)] = short_repr(value)
    return text
