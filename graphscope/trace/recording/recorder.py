"""The recorder: an engine observer that fills the record, keeping each event cheap and the memory bounded.

It journals the engine's events and answers the session's calls; its collaborators own the rest: the
journals held (`journal.py`), the leaves' copies (`leaves.py`), optimizer events (`optimizer_events.py`),
putting journals into the record (`materialize.py`) and their arrays' summaries (`summary_batches.py`),
what detail survives (`retention.py`), the training series (`training_series.py`), the logged scalars
(`scalar_log.py`), and the run's facts around the graph (`run_facts.py`). It runs past 450 lines: it is the
one engine observer, each event's handler is here however little it does, and the hot path binds what it
calls once.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from graphscope.engine import backend, hooks
from graphscope.engine.backend import is_array
from graphscope.engine.tensor import Tensor, data_writes

from ..analysis import findings
from ..record.model import BackwardPass, Record, ScriptError
from ..record.naming import Names, name
from ..stats.device import DeviceArray
from ..stats.finite import NUMBER, squared_norm, to_host_floats
from ..stats.summarize import Summarized, summarize_many
from .collector import Collector
from .journal import ConstantEvent, ExternalEvent, Journals, LeafEvent, OpEvent, Seen
from .keeping import CapturedValues, Pins, Policy
from .leaves import Leaves
from .materialize import Materializer
from .optimizer_events import OptimizerRecording
from .retention import Retention
from .run_facts import add_console_line, finished, new_record, other_thread_note, script_error
from .scalar_log import ScalarLog
from .step_rows import StepRows
from .summary_batches import SummaryBatches
from .summary_work import WorkItem
from .training_series import TrainingRecording

if TYPE_CHECKING:
    import threading

    from graphscope.engine.function import Function
    from graphscope.engine.hooks import Site
    from graphscope.engine.optim.optimizer import Optimizer

__all__ = ["SUMMARIZE_AT_ONCE", "Policy", "Recorder"]

_ndarray = np.ndarray
_new = tuple.__new__
# A value kept from an event (a leaf, a leaf's grad) with more elements than this is summarised
# there and then, reading the live array, instead of copied to be summarised later: a recorded
# script with one huge tensor must not hold a second copy of it.
SUMMARIZE_AT_ONCE = 1 << 20
# Every this many nodes (plus one), the objects the collector tracks go to its oldest generation
# (`promote_young`): a long forward's events and the graph they hold live until its pass ends.
_PROMOTE_EVERY = (1 << 13) - 1
# A taped backward of at least this many nodes runs with the collector paused: its tape (a list and a
# dict a step) lives until the pass is put into the record or dropped, and holds no cycle.
_LONG_BACKWARD = 1 << 12


class Recorder(hooks.Observer):
    """Fills a Record from engine events; install it with `graphscope.engine.hooks.observe`.

    Arrays are copied at each event (the engine may change them in place later) and summarised
    only for the passes kept in detail, so a pass that falls out of the detail window costs
    little more than its copies. `flush()` brings the record up to date (the session calls it
    when the script pauses); `finish()` ends the recording and works out the findings. Read
    the record from another thread only while the script is paused or after it ended.

    It owns the forward's bookkeeping (node ids, the current journal, the pass under way); the rest
    is its collaborators', each built here and handed the others it calls.
    """

    # Only the thread that installs it is recorded (the script's main thread): another thread's
    # ops would interleave with its pass and leave nodes that point nowhere. `other_thread` says so.
    one_thread = True

    def __init__(self, policy: Policy | None = None, script: str = "", argv: list[str] | None = None) -> None:
        self.policy = policy = policy or Policy()
        self.record = new_record(policy, script, argv)
        self._next_id = 0
        self._names = names = Names(self.record.rules)
        self._module = names.module  # the module whose forward is running (named)
        self._journals = journals = Journals()
        self._journal = journals.current  # the current pass's (cached here: read at every event)
        self._refer = journals.refer
        self._leaves = leaves = Leaves(self._keep, names)
        self._leaf_of = leaves.entry_of
        self._note_grad = leaves.note_grad
        self._pins = pins = Pins(policy.keep_first)
        captured = CapturedValues(self.record, policy.memory_budget)
        self._training = training = TrainingRecording(self.record)
        self._optimizer = optimizer = OptimizerRecording(
            self.record, policy, leaves, names, journals, self._keep, training, pins
        )
        batches = SummaryBatches(self.record, policy, leaves, optimizer, pins, captured)
        self._collector = collector = Collector()
        self._materializer = materializer = Materializer(
            self.record, journals, names, optimizer, pins, captured, batches, collector
        )
        self._summarize_into = batches.summarize_into
        self._retention = Retention(self.record, policy, journals, pins, captured, materializer, optimizer)
        self._scalars = ScalarLog(self.record)
        self._pass: BackwardPass | None = None
        self._norms: list[tuple[str, float | DeviceArray]] = []
        self._root_array: DeviceArray | None = None
        self._stepping: int | None = None  # the node whose backward is running
        self._raised_in: int | None = None  # the node stepped when the last backward raised
        self._sealed = False  # finished for good by `seal`: takes nothing more
        self.notes: list[str] = []  # what the user should hear about the recording

    # --- engine events: forward ------------------------------------------------------------

    def leaf_created(self, tensor: Tensor, site: Site | None) -> None:
        self._names.leaf_created(tensor, site)

    def node_created(self, node: Function, inputs: Sequence[object], output: Tensor, site: Site | None) -> None:
        j = self._journal
        made = j.made
        module = self._module()
        ids: list[int] = []
        args: list[tuple[int, object]] | None = None  # (position, value) of the non-tensor arguments
        for position, x in enumerate(inputs):
            if isinstance(x, Tensor):
                fn = x.grad_fn  # an op's output is found by its Function's seq: the usual case
                nid = None if fn is None else made.get(fn.seq)
                ids.append(self._input_node(x, site, module) if nid is None else nid)
            elif is_array(x):  # a raw array (an index, a mask): data, so a node of its own
                ids.append(self._constant(x, site, module))
            else:
                if args is None:
                    args = []
                args.append((position, x))
        names, arg_names = self._names.op_spec(node)
        if args is not None:
            # (now the event's (name, value) pairs)
            args = tuple((arg_names[p] if p < len(arg_names) else f"arg{p}", v) for p, v in args)  # type: ignore[assignment]
        nid = self._next_id
        self._next_id = nid + 1
        # The output array is kept, not copied: the engine never writes into an op's output
        # (a tracked in-place op gives the tensor a new array); an untracked write under
        # no_grad bumps the version counter, which is checked before the array is read.
        vc = output._vc
        # The slots' classes are built with tuple.__new__: half the cost of calling them, once per op.
        j.events.append(
            _new(
                OpEvent,
                (nid, names, tuple(ids), output.array, site, module, output.requires_grad, vc, vc[0], args, node),
            )
        )
        made[node.seq] = nid
        if not nid & _PROMOTE_EVERY:
            self._collector.promote_young()

    def _tensor_node(self, t: Tensor) -> int:
        """The node of a tensor met outside a forward op (a root, a leaf given a grad)."""
        fn = t.grad_fn
        if fn is not None:
            nid = self._journal.made.get(fn.seq)
            if nid is not None:
                return nid
        return self._input_node(t, None, self._module())

    def _input_node(self, t: Tensor, site: Site | None, module: str | None = None) -> int:
        """A tensor input not made by a node of this pass: a leaf (fresh each pass, as its value
        may have changed), a tensor from a recent pass, or one made where the record cannot see."""
        j = self._journal
        fn = t.grad_fn
        if fn is not None:
            nid = self._refer(fn, fn.seq)
            if nid is not None:
                return nid
        key = id(t)
        entry = j.tensors.get(key)
        if entry is not None and entry.ref() is t:  # a leaf (or unrecorded tensor) met before in this pass
            return entry.node
        nid = self._next_id
        self._next_id = nid + 1
        if fn is None:
            # The leaf's copy is shared with the last pass's while the tensor has not changed
            # since (same array, same version): a data batch or a frozen weight is copied once.
            leaf = self._leaf_of(key)
            if (
                leaf is None
                or leaf.ref() is not t
                or leaf.array is not t.array
                or leaf.version != (t._vc[0], data_writes[0])
            ):  # (a write through `.data` leaves _vc as it was)
                leaf = self._leaves.copy_value(t, leaf, j.fresh)
            elif leaf.finite:
                j.finite.add(id(leaf.copy))
            if leaf.first is None:
                leaf.first = nid
            requires = t.requires_grad
            label = (leaf.label or self._leaves.label(t)) if requires else None
            j.events.append(
                _new(LeafEvent, (nid, leaf.copy, self._names.leaf_site(t), module, requires, label, leaf.first))
            )
            j.tensors[key] = _new(Seen, (leaf.ref, nid))
        else:
            copy = self._keep(t.array)
            j.events.append(
                ExternalEvent(nid, name(f"{fn.own_name()} (not recorded)"), copy, site, module, t.requires_grad)
            )
            j.tensors[key] = Seen(weakref.ref(t), nid)
        return nid

    def _keep(self, array: DeviceArray) -> DeviceArray:
        """A copy of `array` to summarise later; for a large one, its summary now (no copy). The
        collaborators that copy (leaves, optimizer events) are handed it."""
        if array.size > SUMMARIZE_AT_ONCE:
            return Summarized(summarize_many([array], self.policy.full_values_limit)[0])
        return array.copy() if type(array) is _ndarray else backend.copy(array)

    def _constant(self, value: Any, site: Site | None, module: str | None) -> int:  # (Any: the script's)
        """A node for a non-tensor input: a Python value, or a raw array (an index, a mask)."""
        nid = self._next_id
        self._next_id = nid + 1
        if type(value) not in NUMBER and hasattr(value, "dtype") and hasattr(value, "shape"):
            value = backend.copy(value)
        self._journal.events.append(ConstantEvent(nid, value, site, module))
        return nid

    # --- engine events: backward -----------------------------------------------------------

    def backward_begun(self, root: Tensor, order: Sequence[Function]) -> None:
        j = self._journal
        p = BackwardPass(len(self.record.passes), node_count=len(j.events))
        self.record.passes.append(p)
        self._pass = p
        self._norms = []
        self._root_array = root.array
        p.loss = _scalar(root.array)  # known before the first step: a paused pass shows it
        self._training.loss(p.index, p.loss)
        p.root = self._tensor_node(root)
        made = j.made
        # (a Function without a seq, None, finds nothing)
        ids = [made.get(getattr(fn, "seq", None)) for fn in order]  # type: ignore[arg-type]  # made in this pass: nearly all
        if None in ids:
            ids = [self._function_node(fn) if nid is None else nid for fn, nid in zip(order, ids)]
        p.order = tuple(ids)  # type: ignore[arg-type]  # (no None left)
        j.plans.append((order, p.order))

    def backward_tape(self) -> list[list[Any]] | None:
        # Unless another observer steps through backward (the debugger), the engine writes the
        # steps on the journal's tape: no call per node, and nothing resolved for a pass trimmed
        # unread (see Journal.untape).
        if self._pass is None:
            return None
        j = self._journal
        j.taping = True
        if len(self._pass.order) >= _LONG_BACKWARD:
            self._collector.pause()
        return j.tape

    def _function_node(self, fn: Function) -> int:
        seq = getattr(fn, "seq", None)
        nid = self._journal.made.get(seq)  # type: ignore[arg-type]  # None (no seq) finds nothing
        if nid is not None:  # made in this pass: the usual case
            return nid
        nid = self._refer(fn, seq)
        if nid is not None:
            return nid
        nid = self._next_id
        self._next_id = nid + 1
        j = self._journal
        label, op = name(f"{fn.own_name()} (not recorded)"), name(getattr(fn, "op", "function"))
        j.events.append(ExternalEvent(nid, label, None, None, self._module(), True, op))
        if seq is None:
            j.functions[id(fn)] = Seen(weakref.ref(fn), nid)
        else:
            j.made[seq] = nid
        return nid

    def before_node(self, node: Function, grad_output: DeviceArray) -> None:
        if self._pass is None:
            return
        nid = self._function_node(node)
        j = self._journal
        k = nid - j.first
        if 0 <= k < len(j.events):  # its own pass's op, not yet in the record: keep its state
            e = j.events[k]
            if type(e) is OpEvent and e.id == nid:
                j.saved[nid] = node.__dict__.copy()
        # Grads are kept, not copied: the engine makes each one new and never writes into it,
        # except a leaf's, which becomes `.grad` (copied in leaf_grad_accumulated).
        j.steps.append((nid, grad_output, None))
        self._stepping = nid

    def after_node(self, node: Function, grad_inputs: Sequence[DeviceArray | None]) -> None:
        j = self._journal
        if self._pass is None or not j.steps:
            return
        # Aligned with the node's recorded inputs: no slots for its non-tensor arguments.
        grads = tuple([g for x, g in zip(node.inputs, grad_inputs) if isinstance(x, Tensor) or is_array(x)])
        self._stepping = None
        made = j.step_ended(grads)
        if made is not None:  # already in the record (the session flushed while paused here)
            work: list[WorkItem] = []
            StepRows(made, work).inputs(grads)
            # At once: a grad here may become a leaf's `.grad`, which user code may change.
            self._summarize_into(j.index, work, at_once=True)

    def leaf_grad_accumulating(self, tensor: Tensor) -> None:
        if self._pass is None:
            return
        leaves = self._leaves
        leaf = leaves.entry(tensor)
        # (announced only while `.grad` holds a grad; the engine's slot is typed by its default, None)
        leaf.before = leaves.grad_copy(leaf, tensor._grad)  # type: ignore[arg-type]

    def leaf_grad_accumulated(self, tensor: Tensor, grad: DeviceArray) -> None:
        if self._pass is None:
            return
        j = self._journal
        key = id(tensor)
        entry = j.tensors.get(key)
        nid = entry.node if entry is not None and entry.ref() is tensor else self._tensor_node(tensor)
        # It is the leaf's `.grad` now: user code may change it in place.
        copy = self._keep(grad)
        leaf = self._leaf_of(key)
        if leaf is None or leaf.ref() is not tensor:
            leaf = self._leaves.add(tensor)
        before = leaf.before
        now: Tensor = tensor._grad  # type: ignore[assignment]  # (just accumulated: a grad, not the slot's None)
        array = now.array
        if before is None:  # `.grad` after: the added grad itself when nothing was there
            now_copy = copy
        else:  # else a copy of the sum
            leaf.before = None
            now_copy = self._keep(array)
        leaf.grad_array, leaf.grad_version, leaf.grad_copy = array, (now._vc[0], data_writes[0]), now_copy
        self._note_grad(leaf, array)
        made = j.leaf_grad(nid, copy, before, now_copy, grad)
        if made is not None:  # its step is in the record already: summarised at once
            work: list[WorkItem] = []
            StepRows(made, work).leaf_grad(nid, copy, before, now_copy)
            self._summarize_into(j.index, work)
        squares = squared_norm(grad)
        if type(squares) is float and squares - squares == 0.0:  # its sum of squares is finite: so is it
            j.finite.add(id(copy))
        if tensor.requires_grad:
            self._norms.append((leaf.label or self._leaves.label(tensor), squares))

    def backward_ended(self, root: Tensor) -> None:
        p = self._pass
        if p is None:
            return
        index = p.index
        for label, squares in to_host_floats(self._norms):
            p.grad_norms[label] = math.sqrt(squares)
        p.finished = True
        j = self._journal
        self._training.grad_norms(index, p.grad_norms)
        self._training.activations(index, j)
        self._pass = self._root_array = None
        self._norms = []
        if j.taping:
            self._stepping = j.running()
            j.taping = False
        self._raised_in, self._stepping = self._stepping, None
        if index % 64 == 63:  # now and then, forget leaves that have died
            self._leaves.forget_dead()
        self._retention.pass_ended(p, j)
        # The next forward belongs to the next pass.
        self._journal = self._journals.begin(index + 1, self._next_id)
        self._retention.slide(index)
        self._collector.resume()  # (paused by a long taped backward)

    # --- engine events: optimizer (recorded by `self._optimizer` while not sealed) -------------

    def grads_zeroing(self, owner: object, params: list[Tensor], set_to_none: object) -> None:
        if not self._sealed:
            self._optimizer.grads_zeroing(owner, params, set_to_none)

    def grad_clearing(self, tensor: Tensor) -> None:
        if not self._sealed:
            self._optimizer.grad_clearing(tensor)

    def tensor_zeroing(self, tensor: Tensor) -> None:
        if not self._sealed:
            self._optimizer.tensor_zeroing(tensor)

    def optimizer_step_begun(self, optimizer: Optimizer) -> None:
        if not self._sealed:
            self._optimizer.optimizer_step_begun(optimizer)

    def optimizer_step_ended(self, optimizer: Optimizer) -> None:
        if not self._sealed:
            self._optimizer.optimizer_step_ended(optimizer)

    def leaf_updating(self, tensor: Tensor) -> None:
        if not self._sealed:
            self._optimizer.leaf_updating(tensor)

    def leaf_updated(self, tensor: Tensor) -> None:
        if not self._sealed:
            self._optimizer.leaf_updated(tensor)

    def scalar_logged(self, tag: str, value: float, step: int | None) -> None:
        if not self._sealed:
            self._scalars.add(tag, value, step, len(self.record.passes))

    # --- what the session tells it ---------------------------------------------------------

    @property
    def functions(self) -> dict[str, type[Function]]:
        """op -> the Function class of every op recorded (a user's custom ones included), for
        gradcheck to rebuild a node; read from the names kept once per class, never in the record."""
        return {spec[0][0]: cls for cls, spec in self._names.op_specs().items()}

    def node_id(self, obj: object) -> int | None:
        """The record id of a live Function or Tensor seen in a recent or kept pass, else None
        (the session maps engine objects to record nodes with it, once per event)."""
        return self._journals.node_of(obj)

    def other_thread(self, thread: threading.Thread) -> None:
        """A thread other than the recorded one used the engine: say so once, in the console."""
        note = other_thread_note(thread)
        self.notes.append(note)
        self.console("stderr", note)

    def console(self, stream: str, text: str) -> None:
        """The script wrote `text` to "stdout" or "stderr"."""
        if self._sealed:
            return
        step = self._journal.steps_begun() if self._pass is not None else None
        add_console_line(self.record, self.policy.console_limit, stream, text, step)

    def script_failed(self, error: BaseException, traceback_text: str | None = None) -> ScriptError:
        """The script raised `error`: record it, with the node being stepped if backward was running."""
        failure = script_error(error, traceback_text, self._stepping if self._stepping is not None else self._raised_in)
        if not self._sealed:
            self.record.error = failure
        return failure

    def flush(self) -> Record:
        """Bring every pass kept in detail into the record and update the findings."""
        return self.record if self._sealed else self._flush()

    def _flush(self) -> Record:
        self._materializer.flush()
        self._training.publish()
        error = self.record.error
        if error is not None and error.node is not None and error.node not in self.record.nodes:
            error.node = None
        self.record.findings = findings.find(self.record, self.policy.vanishing, self.policy.exploding)
        return self.record

    def finish(self, exit_code: int | None = None) -> Record:
        """End the recording: every pass still held checked and summarised, the findings."""
        return self.record if self._sealed else self._finish(exit_code)

    def seal(self, exit_code: int | None = None) -> Record:
        """Finish for good, from any thread, once the recorded thread is out of the recorder and
        uninstalled (a run cut short): later calls from it (flush, finish, console) change nothing,
        so the record is a consistent cut that a snapshot can be written from."""
        self._sealed = True
        return self._finish(exit_code)

    def _finish(self, exit_code: int | None) -> Record:
        self._collector.resume()  # (a backward cut short while paused)
        self._retention.check_held()
        finished(self.record, exit_code)
        return self._flush()

    def keep(self, index: int) -> None:
        """Keep pass `index` in full detail whatever the policy (the debugger paused in it: the
        user can step back into it, and its snapshot shows it)."""
        self._pins.add(index)


def _scalar(array: DeviceArray | None) -> float | None:
    if array is None or array.size != 1:
        return None
    return float(backend.scalar(array))
