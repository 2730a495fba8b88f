"""The recorder: an engine observer that fills the record, keeping each event cheap and the memory bounded."""

from __future__ import annotations

import datetime
import inspect
import linecache
import math
import os
import platform
import sys
import sysconfig
import traceback
import weakref
from collections import deque
from dataclasses import dataclass

import numpy as np

from graphscope.engine import backend, hooks
from graphscope.engine.backend import is_array, namespace
from graphscope.engine.tensor import Tensor, data_writes

from . import findings
from .literal import escaped, has_control
from .pass_history import PassHistory
from .record import (
    CONSTANT,
    EXTERNAL,
    PARAMETER,
    TENSOR,
    BackwardPass,
    ConsoleLine,
    LeafGrad,
    Metadata,
    Node,
    Record,
    ScriptError,
    SourceSite,
    Step,
)
from .snapshot import LONG_TEXT_LIMIT, NAME_LIMIT
from .summary import FULL_VALUES_LIMIT, Summarized, summarize_many, summarize_value

_ndarray = np.ndarray
_scopes = hooks.scopes  # the engine's module scopes, per thread


def _nobody():
    """A dead weak reference's answer."""
    return None

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_NUMBER = (int, float, bool)
# A value kept from an event (a leaf, a leaf's grad) with more elements than this is summarised
# there and then, reading the live array, instead of copied to be summarised later: a recorded
# script with one huge tensor must not hold a second copy of it.
SUMMARIZE_AT_ONCE = 1 << 20
_OP, _LEAF, _CONST, _EXTERNAL = range(4)  # kinds of journal events


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
    vanishing: float = 1e-7           # a parameter grad norm under this is vanishing
    exploding: float = 1e3            # over this, exploding
    console_limit: int = 100_000      # console lines kept (the oldest are dropped past it)
    # Look for NaN/Inf in every value and grad of every pass. Otherwise a pass is scanned when
    # its loss or a grad norm is NaN/Inf (then the passes still held before it too, oldest
    # first) and at the end: a NaN that reaches neither the loss nor any parameter's grad is
    # then found only in the passes held at that moment (the last four).
    scan_every_pass: bool = False

    @classmethod
    def every_pass(cls, **options) -> "Policy":
        """Full detail for every pass."""
        return cls(keep_last=None, **options)


class _Journal:
    """One pass (its forward, then its backward) as raw events: copies of the arrays and the
    ids that link them. Cheap to write and to throw away; turned into record nodes and steps
    (`_materialize`) only for a pass kept in detail."""

    __slots__ = ("index", "events", "tensors", "functions", "steps", "done", "steps_done",
                 "materialized", "referenced", "ids", "finite", "fresh")

    def __init__(self, index: int):
        self.index = index
        self.events: list[tuple] = []   # (node id, kind, ...) in creation order
        self.tensors: dict = {}         # id(tensor) -> (weakref, node id, is a leaf)
        self.functions: dict = {}       # id(Function) -> (weakref, node id)
        self.steps: list[list] = []     # [node id, grad output, grad inputs, [(leaf id, grad)], Step]
        self.done = 0                   # events already turned into nodes
        self.steps_done = 0
        self.materialized = False       # some of it is in the record
        self.referenced: set[int] = set()  # its node ids that later passes refer to
        self.ids: list[int] = []        # node ids put into the record
        self.finite: set[int] = set()   # ids of arrays here already known to hold no NaN/Inf
        self.fresh: list = []           # (leaf entry, copy) of the leaves copied (not shared) in this pass


class Recorder(hooks.Observer):
    """Fills a Record from engine events; install it with `graphscope.engine.hooks.observe`.

    Arrays are copied at each event (the engine may change them in place later) and summarised
    only for the passes kept in detail, so a pass that falls out of the detail window costs
    little more than its copies. `flush()` brings the record up to date (the session calls it
    when the script pauses); `finish()` ends the recording and works out the findings. Read
    the record from another thread only while the script is paused or after it ended.
    """

    # Only the thread that installs it is recorded (the script's main thread): another thread's
    # ops would interleave with its pass and leave nodes that point nowhere. `other_thread` says so.
    one_thread = True

    def __init__(self, policy: Policy | None = None, script: str = "", argv: list[str] | None = None):
        self.policy = policy = policy or Policy()
        self.record = Record(metadata=Metadata(
            script=script, argv=list(argv or []),
            started=datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            graphscope_version=_graphscope_version(), python_version=platform.python_version(),
            numpy_version=np.__version__, keep_first=policy.keep_first, keep_last=policy.keep_last,
            full_values_limit=policy.full_values_limit, memory_budget=policy.memory_budget,
        ))
        self.record.passes = PassHistory()  # a pass out of the detail window shrinks to a row
        self._next_id = 0
        self._journal = _Journal(0)
        self._recent: deque[_Journal] = deque([self._journal])  # newest last; still resolvable
        self._labels: dict[int, tuple] = {}       # id(leaf requiring grad) -> (weakref, name)
        self._label_owner: dict[str, int] = {}
        # id(leaf) -> [weakref, array, version, copy of it, copy known finite, label or None]
        self._leaf_copies: dict[int, list] = {}
        self._leaf_summaries: dict[int, tuple] = {}  # id(leaf copy) -> (copy, its summary)
        self._roots: dict[int, tuple] = {}        # id(root module) -> (weakref, name)
        self._param_names: dict[int, tuple] = {}  # id(parameter) -> (weakref, "layers.0.weight")
        self._named_a_model = False
        self._module_names: dict[str, str] = {}  # module name -> the same, fit for the record
        self._root_seen = _nobody                  # the model last seen at the top (weakly)
        self._op_specs: dict[type, tuple] = {}     # Function class -> ((op, name), its arguments' names)
        self._leaf_sites: dict[int, tuple] = {}   # id(leaf) -> (weakref, the Site that made it)
        self._sites: dict = {}
        self._captured: dict[int, list] = {}      # pass -> summaries holding captured values
        self._captured_bytes = 0
        self._pinned: set[int] = set()
        self._orphans: set[int] = set()           # nodes of trimmed passes that others refer to
        self._nan_value_pass: int | None = None
        self._nan_grad_pass: int | None = None
        self._pass: BackwardPass | None = None
        self._norms: list = []
        self._root_array = None
        self._stepping: int | None = None         # the node whose backward is running
        self._raised_in: int | None = None        # the node stepped when the last backward raised
        self._kept: list[_Journal] = []           # journals of passes kept for good (first, pinned)
        self._sealed = False                      # finished for good by `seal`: takes nothing more
        self.notes: list[str] = []                # what the user should hear about the recording

    # --- engine events: forward ------------------------------------------------------------

    # Module scopes are read from the engine's scope stack when a node is made (`_module`),
    # not followed through module_entered / module_left: two events fewer per module call.

    def _module(self) -> str | None:
        """The qualified name of the module whose forward is running, if any; the first time a
        model is seen from the top, its parameters are named."""
        stack = _scopes.stack
        if not stack:
            return None
        outer = stack[0][0]
        if outer is not self._root_seen():
            self._note_root(outer, stack[0][2])
            self._root_seen = weakref.ref(outer)
        name = stack[-1][2]
        clean = self._module_names.get(name)
        if clean is None:
            if len(self._module_names) > 4096:
                self._module_names.clear()
            clean = self._module_names[name] = name if name.isascii() and name.isprintable() else _name(name)
        return clean

    def leaf_created(self, tensor, site):
        self._leaf_sites[id(tensor)] = (weakref.ref(tensor), site)
        if len(self._leaf_sites) % 4096 == 0:  # now and then, forget tensors that have died
            self._leaf_sites = {k: e for k, e in self._leaf_sites.items() if e[0]() is not None}

    def node_created(self, node, inputs, output, site):
        j = self._journal
        known = j.tensors
        module = self._module()
        ids = []
        arrays = []  # the recorded inputs' arrays, to name what the node saved
        args = None  # (position, value) of the non-tensor arguments
        for position, x in enumerate(inputs):
            entry = known.get(id(x))
            if entry is not None and entry[0]() is x:
                ids.append(entry[1])
                arrays.append(x.array)
            elif isinstance(x, Tensor):
                ids.append(self._input_node(x, site, module))
                arrays.append(x.array)
            elif is_array(x):  # a raw array (an index, a mask): data, so a node of its own
                ids.append(self._constant(x, site, module))
                arrays.append(x)
            else:
                if args is None:
                    args = []
                args.append((position, x))
        cls = type(node)
        spec = self._op_specs.get(cls)
        if spec is None:
            spec = self._op_specs[cls] = (_name(node.op), _name(node.name())), _argument_names(cls)
        names, arg_names = spec
        out = output.array
        saved = []
        for key, value in node.__dict__.items():
            if value is out:
                saved.append("output")
                continue
            for k, a in enumerate(arrays):
                if value is a:
                    saved.append(_INPUT_ROLES[k] if k < len(_INPUT_ROLES) else f"input:{k}")
                    break
            else:
                if is_array(value):
                    saved.append(_name(key))
        if args is not None:
            args = tuple((arg_names[p] if p < len(arg_names) else f"arg{p}", v) for p, v in args)
        nid = self._next_id
        self._next_id = nid + 1
        # The output array is kept, not copied: the engine never writes into an op's output
        # (a tracked in-place op gives the tensor a new array); an untracked write under
        # no_grad bumps the version counter, which is checked before the array is read.
        vc = output._vc
        j.events.append((nid, _OP, names, tuple(ids), out, site, module, output.requires_grad, tuple(saved),
                         vc, vc[0], args))
        known[id(output)] = (weakref.ref(output), nid, False)
        j.functions[id(node)] = (weakref.ref(node), nid)

    def _input_node(self, t: Tensor, site, module=None) -> int:
        """A tensor input not made by a node of this pass: a leaf (fresh each pass, as its value
        may have changed), a tensor from a recent pass, or one made where the record cannot see."""
        j = self._journal
        if t.grad_fn is not None:
            for older in self._lookup_order():
                entry = older.tensors.get(id(t))
                if entry is not None and entry[0]() is t and older is not j:
                    older.referenced.add(entry[1])
                    return entry[1]
        nid = self._next_id
        self._next_id = nid + 1
        if t.grad_fn is None:
            leaf = self._leaf_copy(t)
            requires = t.requires_grad
            label = (leaf[5] or self._label(t)) if requires else None
            made = self._leaf_sites.get(id(t))
            # Its site is the line that made it; None when made where no event told (by an op
            # outside the graph): never the first line that used it.
            made = made[1] if made is not None and made[0]() is t else None
            j.events.append((nid, _LEAF, leaf[3], made, module, requires, label))
            j.tensors[id(t)] = (leaf[0], nid, True)
        else:
            copy = self._keep(t.array)
            j.events.append((nid, _EXTERNAL, _name(f"{t.grad_fn.name()} (not recorded)"), copy, site,
                             module, t.requires_grad))
            j.tensors[id(t)] = (weakref.ref(t), nid, True)
        return nid

    def _leaf_copy(self, t: Tensor) -> list:
        """The leaf's entry, holding a copy of its value (entry[3]), shared with the last pass's
        when the tensor has not changed since (same array, same version): a data batch or a
        frozen weight is copied once."""
        array = t.array
        version = (t._vc[0], data_writes[0])  # a write through `.data` leaves _vc as it was
        leaf = self._leaf_copies.get(id(t))
        if leaf is None or leaf[0]() is not t:
            leaf = self._leaf_copies[id(t)] = [weakref.ref(t), None, None, None, False, None]
        elif leaf[1] is array and leaf[2] == version:
            if leaf[4]:
                self._journal.finite.add(id(leaf[3]))
            return leaf
        copy = self._keep(array)
        leaf[1], leaf[2], leaf[3], leaf[4] = array, version, copy, False
        self._journal.fresh.append((leaf, copy))
        return leaf

    def _keep(self, array):
        """A copy of `array` to summarise later; for a large one, its summary now (no copy)."""
        if array.size > SUMMARIZE_AT_ONCE:
            return Summarized(summarize_many([array], self.policy.full_values_limit)[0])
        return array.copy() if type(array) is _ndarray else backend.copy(array)

    def _constant(self, value, site, module) -> int:
        """A node for a non-tensor input: a Python value, or a raw array (an index, a mask)."""
        nid = self._next_id
        self._next_id = nid + 1
        if type(value) not in _NUMBER and hasattr(value, "dtype") and hasattr(value, "shape"):
            value = backend.copy(value)
        self._journal.events.append((nid, _CONST, value, site, module))
        return nid

    # --- engine events: backward -----------------------------------------------------------

    def backward_begun(self, root, order):
        j = self._journal
        p = BackwardPass(len(self.record.passes), node_count=len(j.events))
        self.record.passes.append(p)
        self._pass = p
        self._norms = []
        self._root_array = root.array
        p.loss = _scalar(root.array)  # known before the first step: a paused pass shows it
        entry = j.tensors.get(id(root))
        p.root = entry[1] if entry is not None and entry[0]() is root else self._input_node(root, None, self._module())
        p.order = tuple([self._function_node(fn) for fn in order])

    def _lookup_order(self):
        """Journals whose nodes a new node may refer to: the recent ones, newest first, then
        those of passes kept for good."""
        yield from reversed(self._recent)
        yield from self._kept

    def _function_node(self, fn) -> int:
        entry = self._journal.functions.get(id(fn))
        if entry is not None and entry[0]() is fn:  # made in this pass: the usual case
            return entry[1]
        for older in self._lookup_order():
            entry = older.functions.get(id(fn))
            if entry is not None and entry[0]() is fn:
                if older is not self._journal:
                    older.referenced.add(entry[1])
                return entry[1]
        nid = self._next_id
        self._next_id = nid + 1
        j = self._journal
        j.events.append((nid, _EXTERNAL, _name(f"{fn.name()} (not recorded)"), None, None,
                         self._module(), True, _name(getattr(fn, "op", "function"))))
        j.functions[id(fn)] = (weakref.ref(fn), nid)
        return nid

    def before_node(self, node, grad_output):
        if self._pass is None:
            return
        nid = self._function_node(node)
        # Grads are kept, not copied: the engine makes each one new and never writes into it,
        # except a leaf's, which becomes `.grad` (copied in leaf_grad_accumulated).
        self._journal.steps.append([nid, grad_output, None, [], None])
        self._stepping = nid

    def after_node(self, node, grad_inputs):
        if self._pass is None or not self._journal.steps:
            return
        step = self._journal.steps[-1]
        # Aligned with the node's recorded inputs: no slots for its non-tensor arguments.
        step[2] = [g for x, g in zip(node.inputs, grad_inputs) if isinstance(x, Tensor) or is_array(x)]
        self._stepping = None
        if step[4] is not None:  # already in the record (the session flushed while paused here)
            slots = self._grad_slots(step[4], step[2])
            self._summarize_into(self._journal.index, [(slots, i, g) for i, g in enumerate(step[2]) if g is not None])
            step[2] = None

    def leaf_grad_accumulated(self, tensor, grad):
        if self._pass is None:
            return
        j = self._journal
        entry = j.tensors.get(id(tensor))
        nid = entry[1] if entry is not None and entry[0]() is tensor else self._input_node(tensor, None, self._module())
        # It is the leaf's `.grad` now: user code may change it in place.
        copy = self._keep(grad)
        if j.steps:
            step = j.steps[-1]
            grads = step[2] or ()
            for i, g in enumerate(grads):
                if g is grad:  # the step's grad for this leaf is that same array
                    grads[i] = copy
            if step[4] is None:
                step[3].append((nid, copy))
            else:  # already in the record: summarise at once
                lg = LeafGrad(nid)
                step[4].leaf_grads.append(lg)
                self._summarize_into(j.index, [(lg, "grad", copy)])
        squares = squared_norm(grad)
        if type(squares) is float and squares - squares == 0.0:  # its sum of squares is finite: so is it
            j.finite.add(id(copy))
        if tensor.requires_grad:
            leaf = self._leaf_copies.get(id(tensor))
            label = leaf[5] if leaf is not None and leaf[0]() is tensor else None
            self._norms.append((label or self._label(tensor), squares))

    def backward_ended(self, root):
        p = self._pass
        if p is None:
            return
        index = p.index
        for label, squares in _to_host_floats(self._norms):
            p.grad_norms[label] = math.sqrt(squares)
        p.finished = True
        self._pass = self._root_array = None
        self._norms = []
        self._raised_in, self._stepping = self._stepping, None
        if index % 64 == 63:  # now and then, forget leaves that have died
            self._leaf_copies = {k: e for k, e in self._leaf_copies.items() if e[0]() is not None}
        j = self._journal
        policy = self.policy
        keep = index < policy.keep_first or policy.keep_last is None
        if keep:
            self._materialize_through(index)
        if policy.scan_every_pass or not _finite(p.loss) or not all(map(_finite, p.grad_norms.values())):
            for held in list(self._recent):  # oldest first: the first NaN may be a pass or two back
                if held.index <= index and (held is j or not policy.scan_every_pass):
                    self._check_nonfinite(held)
        # The next forward belongs to the next pass.
        self._journal = _Journal(index + 1)
        self._recent.append(self._journal)
        window = (policy.keep_last or 0) + 1
        if policy.keep_last is not None:
            self._trim(index - policy.keep_last)
        while len(self._recent) > max(window, 4):
            old = self._recent.popleft()
            if not old.materialized and old.index not in self._pinned and old.events:
                self._trim_journal(old)

    # --- what the session tells it ---------------------------------------------------------

    def node_id(self, obj) -> int | None:
        """The record id of a live Function or Tensor seen in a recent or kept pass, else None
        (the session maps engine objects to record nodes with it, once per event)."""
        is_tensor = isinstance(obj, Tensor)
        entry = (self._journal.tensors if is_tensor else self._journal.functions).get(id(obj))
        if entry is not None and entry[0]() is obj:  # the current pass: nearly always
            return entry[1]
        for j in self._lookup_order():
            entry = (j.tensors if is_tensor else j.functions).get(id(obj))
            if entry is not None and entry[0]() is obj:
                return entry[1]
        return None

    def other_thread(self, thread) -> None:
        """A thread other than the recorded one used the engine: say so once, in the console."""
        note = (f"graphscope: thread {_name(thread.name)!r} used the engine; only the script's main "
                "thread is recorded, so that thread's ops are not in the graph")
        self.notes.append(note)
        self.console("stderr", note)

    def console(self, stream: str, text: str) -> None:
        """The script wrote `text` to "stdout" or "stderr"."""
        if self._sealed:
            return
        lines = self.record.console
        lines.append(ConsoleLine(stream, text, len(self.record.passes)))
        if len(lines) > self.policy.console_limit:
            drop = len(lines) - self.policy.console_limit
            del lines[:drop]
            self.record.dropped_console += drop

    def script_failed(self, error: BaseException, traceback_text: str | None = None) -> ScriptError:
        """The script raised `error`: record it, with the node being stepped if backward was running."""
        text = traceback_text if traceback_text is not None else "".join(
            traceback.format_exception(type(error), error, error.__traceback__))
        node = self._stepping if self._stepping is not None else self._raised_in
        error = ScriptError(_name(type(error).__name__), str(error)[:LONG_TEXT_LIMIT],
                            text[-LONG_TEXT_LIMIT:], node, self._error_site(error))
        if not self._sealed:
            self.record.error = error
        return error

    def flush(self) -> Record:
        """Bring every pass kept in detail into the record and update the findings."""
        return self.record if self._sealed else self._flush()

    def _flush(self) -> Record:
        # Every journal still held whose pass has not been trimmed: a consistent cut, whatever
        # the moment (a node of a pass in the window may use a node of an older held pass).
        passes = self.record.passes
        for j in list(self._recent):
            if j.index >= len(passes) or passes[j.index].detailed:
                self._materialize(j)
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
        for held in list(self._recent):
            self._check_nonfinite(held)
        meta = self.record.metadata
        meta.finished = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        if exit_code is not None:
            meta.exit_code = exit_code
        return self._flush()

    def keep(self, index: int) -> None:
        """Keep pass `index` in full detail whatever the policy (the debugger paused in it: the
        user can step back into it, and its snapshot shows it)."""
        self._pinned.add(index)

    # --- turning journals into the record ---------------------------------------------------

    def _materialize_through(self, index: int) -> None:
        """Materialise journal `index` and any earlier recent one still pending, in order, so
        the record's nodes stay in creation order."""
        for j in list(self._recent):
            if j.index <= index:
                self._materialize(j)

    def _materialize(self, j: _Journal) -> None:
        """Turn the journal's new events and steps into record nodes and steps, with summaries."""
        if (j.index < self.policy.keep_first or j.index in self._pinned) and j not in self._kept:
            self._kept.append(j)
        if j.done == len(j.events) and j.steps_done == len(j.steps):
            return
        j.materialized = True
        nodes = self.record.nodes
        work = []
        for event in j.events[j.done:]:
            nid, kind = event[0], event[1]
            if kind == _OP:
                _, _, (op, name), inputs, array, site, module, requires, saved, vc, version, args = event
                n = Node(nid, op, name, inputs, j.index, None, requires, False, None, module,
                         self._site(site), saved,
                         args=() if args is None else tuple((k, _short_repr(v)) for k, v in args))
                if vc[0] == version:  # else it was overwritten in place: its value is lost
                    work.append((n, "output", array))
            elif kind == _LEAF:
                _, _, copy, site, module, requires, label = event
                n = Node(nid, PARAMETER if requires else TENSOR, "", (), j.index, None, requires, True,
                         label, module, self._site(site))
                work.append((n, "output", copy))
            elif kind == _CONST:
                _, _, value, site, module = event
                n = Node(nid, CONSTANT, _short_repr(value), (), j.index, None, False, True, None, module,
                         self._site(site))
                if type(value) in _NUMBER:
                    n.output = summarize_value(value)
                    self._captured.setdefault(j.index, []).append(n.output)
                elif hasattr(value, "dtype") and hasattr(value, "shape"):
                    work.append((n, "output", value))
            else:
                _, _, name, copy, site, module, requires, *op = event
                n = Node(nid, op[0] if op else EXTERNAL, name, (), j.index, None, requires,
                         False, None, module, self._site(site))
                if copy is not None:
                    work.append((n, "output", copy))
            nodes[nid] = n
            j.ids.append(nid)
        for k in range(j.done, len(j.events)):  # the copies now belong to the summaries
            j.events[k] = None
        j.done = len(j.events)
        p = self.record.passes[j.index] if j.index < len(self.record.passes) else None
        for step in j.steps[j.steps_done:]:
            nid, grad_output, grad_inputs, leaf_grads, _ = step
            st = Step(nid)
            work.append((st, "grad_output", grad_output))
            if grad_inputs is not None:
                st.grad_inputs = self._grad_slots(st, grad_inputs)
                work += [(st.grad_inputs, i, g) for i, g in enumerate(grad_inputs) if g is not None]
            for leaf, grad in leaf_grads:
                lg = LeafGrad(leaf)
                st.leaf_grads.append(lg)
                work.append((lg, "grad", grad))
            step[1] = step[2] = None
            step[3] = []
            step[4] = st
            if p is not None:
                p.steps.append(st)
        j.steps_done = len(j.steps)
        self._summarize_into(j.index, work)

    @staticmethod
    def _grad_slots(step: Step, grad_inputs: list) -> list:
        if not step.grad_inputs:
            step.grad_inputs = [None] * len(grad_inputs)
        return step.grad_inputs

    def _summarize_into(self, index: int, work: list) -> None:
        """Summarise [(target, key, array)] and store each summary at target[key] / target.key.

        An array met twice (a leaf's grad is also its step's grad input; a grad passed down a
        chain is one step's grad input and the next step's grad output; an unchanged leaf is
        shared with the last pass) is summarised once and its summary shared."""
        if not work:
            return
        current = {id(e[3]): e[3] for e in self._leaf_copies.values() if e[3] is not None}
        known = self._leaf_summaries = {k: v for k, v in self._leaf_summaries.items() if k in current}
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
        todo = [i for i in range(len(arrays)) if i not in ready]
        fresh = summarize_many([arrays[i] for i in todo], self.policy.full_values_limit)
        summaries = [None] * len(arrays)
        for i, s in ready.items():
            summaries[i] = s
        captured = self._captured.setdefault(index, [])
        added = 0
        meta = self.record.metadata
        for i, s in zip(todo, fresh):
            summaries[i] = s
            if id(arrays[i]) in current:
                known[id(arrays[i])] = (arrays[i], s)
            captured.append(s)
            added += s.captured_bytes
            if s.device != "cpu" and meta.device == "cpu":
                meta.device = s.device
        relus = []
        for (target, key, raw), i in zip(work, slots):
            s = summaries[i]
            if type(key) is int:
                target[key] = s
            else:
                setattr(target, key, s)
                if type(target) is Node and target.op == "relu" and raw.ndim >= 2:
                    relus.append((target, raw))
            if s.nan_count or s.inf_count:
                self._note_nonfinite(index, type(target) is Node)
        if relus:
            _note_dead_units(relus)
        self._captured_bytes += added
        self._enforce_budget()

    def _site(self, site) -> SourceSite | None:
        if site is None:
            return None
        source = self._sites.get(site)
        if source is None:
            text = linecache.getline(site.file, site.line).strip() if site.line > 0 else ""
            source = self._sites[site] = SourceSite(_name(site.file), site.line, _name(site.function), text[:1000])
        return source

    # --- names -----------------------------------------------------------------------------

    def _note_root(self, module, name: str) -> None:
        """Name the parameters of a model called from the top: relative to it ("layers.0.weight"),
        prefixed by the model's name for any further model with parameters."""
        entry = self._roots.get(id(module))
        if entry is not None and entry[0]() is module:
            return
        self._roots[id(module)] = (weakref.ref(module), name)
        named = getattr(module, "named_parameters", None)
        params = list(named()) if named is not None else []
        if not params:
            return
        prefix = f"{name}." if self._named_a_model else ""
        self._named_a_model = True
        for pname, param in params:
            entry = self._param_names.get(id(param))
            if entry is None or entry[0]() is not param:
                self._param_names[id(param)] = (weakref.ref(param), _name(prefix + pname))

    def _label(self, t: Tensor) -> str:
        """A stable name for a leaf that requires grad: its parameter name, the variable that
        holds it, or "tensor<n>"; unique within the run."""
        entry = self._labels.get(id(t))
        if entry is not None and entry[0]() is t:
            name = entry[1]
        else:
            name = self._new_label(t)
        leaf = self._leaf_copies.get(id(t))
        if leaf is not None and leaf[0]() is t:
            leaf[5] = name  # the next passes find it there
        return name

    def _new_label(self, t: Tensor) -> str:
        """Name a leaf seen for the first time (see `_label`)."""
        entry = self._param_names.get(id(t))
        name = entry[1] if entry is not None and entry[0]() is t else _variable_name(t)
        base = _name(name) if name else f"tensor{len(self._labels)}"
        name, k = base, 1
        while name in self._label_owner and self._label_owner[name] != id(t):
            owner = self._labels.get(self._label_owner[name])
            if owner is None or owner[0]() is None:
                break
            k += 1
            name = f"{base}#{k}"
        self._labels[id(t)] = (weakref.ref(t), name)
        self._label_owner[name] = id(t)
        if len(self._labels) % 1024 == 0:  # now and then, forget tensors that have died
            self._labels = {k: e for k, e in self._labels.items() if e[0]() is not None}
            self._label_owner = {e[1]: k for k, e in self._labels.items()}
        return name

    def _error_site(self, error: BaseException) -> SourceSite | None:
        """The innermost line of user code in the traceback (not graphscope, not the libraries)."""
        skip = (_PACKAGE_DIR,) + tuple(
            os.path.join(p, "") for p in {sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib")})
        found = None
        for frame in traceback.extract_tb(error.__traceback__):
            if not frame.filename.startswith(skip) and not frame.filename.startswith("<frozen"):
                found = frame
        if found is None:
            return None
        text = (found.line or "").strip()[:1000]
        return SourceSite(_name(found.filename), found.lineno or 0, _name(found.name), text)

    # --- NaN pins, trimming, the memory budget ---------------------------------------------

    def _note_nonfinite(self, index: int, is_value: bool) -> None:
        if is_value and self._nan_value_pass is None:
            self._nan_value_pass = index
            self._pinned.add(index)
        elif not is_value and self._nan_grad_pass is None:
            self._nan_grad_pass = index
            self._pinned.add(index)

    def _check_nonfinite(self, j: _Journal) -> None:
        """Pin the first pass whose values (and the first whose grads) hold a NaN or Inf, so its
        detail survives for the findings however long the run goes on. A materialised pass was
        checked by its summaries; the others are checked on their copies."""
        want_values = self._nan_value_pass is None
        want_grads = self._nan_grad_pass is None
        if not (want_values or want_grads) or j.materialized and j.done == len(j.events):
            return
        finite = j.finite
        if want_values:
            if any_nonfinite([(e[4] if e[9][0] == e[10] else None) if e[1] == _OP else
                               e[3] if e[1] == _EXTERNAL else e[2] for e in j.events[j.done:]], finite):
                self._note_nonfinite(j.index, True)
            else:  # a leaf copy shared with the next pass need not be checked again
                for leaf, copy in j.fresh:
                    if leaf[3] is copy:
                        leaf[4] = True
        if want_grads:
            grads = []
            for step in j.steps[j.steps_done:]:
                grads.append(step[1])
                grads += step[2] or ()
                grads += [g for _, g in step[3]]
            if any_nonfinite(grads, finite):
                self._note_nonfinite(j.index, False)
        if j.index in self._pinned:
            self._materialize_through(j.index)

    def _trim(self, index: int) -> None:
        """Pass `index` left the detail window: drop its detail unless it is pinned or first."""
        passes = self.record.passes
        if index < self.policy.keep_first or index in self._pinned or not 0 <= index < len(passes):
            return
        j = next((x for x in self._recent if x.index == index), None)
        if j is not None and not j.materialized:
            self._trim_journal(j)
            return
        p = passes[index]
        if not p.detailed:
            return
        p.detailed = False
        p.root, p.order, p.steps = None, (), []
        passes.compact(index)
        if j is not None:
            j.steps = []
            keep = self._closure(j, j.referenced)
            nodes = self.record.nodes
            gone = [nid for nid in j.ids if nid not in keep]
            for nid in gone:
                del nodes[nid]
            self.record.trimmed_nodes += len(gone) + len(j.events) - j.done
            j.events, j.done = [], 0
            self._forget(j, keep)
            j.ids = [nid for nid in j.ids if nid in keep]
            freed = self._captured.pop(index, [])
            self._captured_bytes -= sum(s.captured_bytes for s in freed)
            survivors = [nodes[nid].output for nid in j.ids if nodes[nid].output is not None]
            if survivors:
                self._captured[index] = survivors
                self._captured_bytes += sum(s.captured_bytes for s in survivors)
            self._orphans |= keep
        self._sweep_orphans()

    def _trim_journal(self, j: _Journal) -> None:
        """Throw away a journal never put into the record, except nodes later passes refer to."""
        p = self.record.passes[j.index] if j.index < len(self.record.passes) else None
        if p is not None:
            p.detailed = False
            p.root, p.order, p.steps = None, (), []
            self.record.passes.compact(j.index)
        keep = self._closure(j, j.referenced)
        j.steps = []
        if keep:  # a graph used across passes: put only what later passes refer to in the record
            j.events = [e for e in j.events if e is not None and e[0] in keep]
            self._materialize(j)
            self._forget(j, keep)
            self._orphans |= keep
        else:
            j.tensors, j.functions = {}, {}
        self.record.trimmed_nodes += (p.node_count if p is not None else 0) - len(keep)
        j.events, j.done, j.referenced = [], 0, set()
        self._sweep_orphans()

    def _sweep_orphans(self) -> None:
        """Drop nodes kept from trimmed passes once nothing still in the record refers to them."""
        orphans = self._orphans
        if not orphans:
            return
        nodes, passes = self.record.nodes, self.record.passes
        refs = set()
        for n in nodes.values():
            if n.id not in orphans:
                refs.update(n.inputs)
        for j in self._recent:
            for e in j.events:
                if e is not None and e[1] == _OP:
                    refs.update(e[3])
        keep_last = self.policy.keep_last or 0
        detailed = set(range(min(self.policy.keep_first, len(passes)))) | self._pinned
        detailed.update(range(max(0, len(passes) - keep_last - 1), len(passes)))
        for index in detailed:
            p = passes[index]
            if p.detailed:
                refs.add(p.root)
                refs.update(p.order)
                for st in p.steps:
                    refs.add(st.node)
                    refs.update(lg.node for lg in st.leaf_grads)
        if self.record.error is not None:
            refs.add(self.record.error.node)
        keep, stack = set(), [nid for nid in refs if nid in orphans]
        while stack:
            nid = stack.pop()
            if nid not in keep:
                keep.add(nid)
                stack.extend(k for k in nodes[nid].inputs if k in orphans)
        for nid in orphans - keep:
            node = nodes.pop(nid)
            if node.output is not None:
                self._captured_bytes -= node.output.drop_values()
        self.record.trimmed_nodes += len(orphans - keep)
        if len(keep) < len(orphans):
            for j in self._recent:
                self._forget(j, {e[1] for e in j.tensors.values() if e[1] in nodes}
                             | {e[1] for e in j.functions.values() if e[1] in nodes})
        self._orphans = keep

    def _closure(self, j: _Journal, wanted: set[int]) -> set[int]:
        """`wanted` and, within this journal, everything they were computed from."""
        if not wanted:
            return set()
        nodes = self.record.nodes
        inputs = {nid: nodes[nid].inputs for nid in j.ids if nid in nodes}
        inputs.update((e[0], e[3]) for e in j.events if e is not None and e[1] == _OP)
        own = set(inputs) | {e[0] for e in j.events if e is not None}
        keep, stack = set(), [nid for nid in wanted if nid in own]
        while stack:
            nid = stack.pop()
            if nid not in keep:
                keep.add(nid)
                stack.extend(k for k in inputs.get(nid, ()) if k in own)
        return keep

    @staticmethod
    def _forget(j: _Journal, keep: set[int]) -> None:
        """Later passes must not link to nodes that are gone."""
        j.tensors = {k: e for k, e in j.tensors.items() if e[1] in keep}
        j.functions = {k: e for k, e in j.functions.items() if e[1] in keep}

    def _enforce_budget(self) -> None:
        """Past the memory budget, drop captured values, oldest pass first, and count them."""
        budget = self.policy.memory_budget
        if self._captured_bytes <= budget:
            return
        for index in sorted(self._captured):
            summaries = self._captured[index]
            i = 0
            while i < len(summaries) and self._captured_bytes > budget:
                freed = summaries[i].drop_values()
                i += 1
                if freed:
                    self._captured_bytes -= freed
                    self.record.dropped_values += 1
            del summaries[:i]
            if not summaries:
                del self._captured[index]
            if self._captured_bytes <= budget:
                return


# --- helpers ----------------------------------------------------------------------------------

def _finite(x) -> bool:
    return x is None or x - x == 0.0


# "input:K" for the first inputs, made once.
_INPUT_ROLES = tuple(f"input:{k}" for k in range(8))


def _argument_names(cls) -> tuple[str, ...]:
    """The names of a Function's forward arguments (after ctx/self), by position: a class's
    `arg_names` when its forward's own names are not the user's."""
    names = getattr(cls, "arg_names", None)
    if names is not None:
        return tuple(names)
    forward = getattr(cls, "forward", None)
    try:
        parameters = list(inspect.signature(forward).parameters.values())
    except (TypeError, ValueError):
        return ()
    positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return tuple(positional[1:])  # past self (or a custom Function's ctx)


def _graphscope_version() -> str:
    return getattr(sys.modules.get("graphscope"), "__version__", "")


def _name(text: str) -> str:
    """A string fit for a name in the record (and a snapshot): control characters escaped, bounded."""
    text = str(text)
    if has_control(text):
        text = escaped(text)
    return text if len(text) <= NAME_LIMIT else text[: NAME_LIMIT - 1] + "…"


def _short_repr(value, limit: int = 100) -> str:
    try:
        text = " ".join(repr(value).split())
    except Exception as e:  # a user object whose repr raises
        text = f"<{type(value).__name__}: repr failed ({type(e).__name__})>"
    return _name(text if len(text) <= limit else text[: limit - 1] + "…")


def _variable_name(t: Tensor) -> str | None:
    """The name of a variable in the user's frames that holds `t` (for an unnamed leaf)."""
    frame = sys._getframe(1)
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            for name, value in frame.f_locals.items():
                if value is t and not name.startswith("_"):
                    return name
            owner = frame.f_locals.get("self")
            for name, value in getattr(owner, "__dict__", {}).items():
                if value is t:
                    return name
        frame = frame.f_back
    return None


def squared_norm(grad):
    """The sum of squares of `grad`: a float on the CPU, a device scalar elsewhere (read later)."""
    if type(grad) is np.ndarray:
        squares = float(np.vdot(grad, grad))
        if squares == math.inf:  # a narrow dtype overflowed: redo it wide
            wide = grad.astype(np.float64)
            squares = float(np.vdot(wide, wide))
        return squares
    xp = namespace(grad)
    wide = backend.astype(grad, xp.float64)
    return xp.sum(wide * wide)


def grad_norm(grad) -> float:
    """The L2 norm of `grad` in float64, on the host (one scalar crosses from a device)."""
    squares = squared_norm(grad)
    return math.sqrt(squares if isinstance(squares, float) else float(backend.scalar(squares)))


def _to_host_floats(pairs):
    """[(label, float or device scalar)] -> [(label, float)], one transfer per device."""
    device = [i for i, (_, v) in enumerate(pairs) if not isinstance(v, float)]
    if not device:
        return pairs
    out = list(pairs)
    for i, v in zip(device, backend.scalars([pairs[i][1] for i in device])):
        out[i] = (pairs[i][0], v)
    return out


def _scalar(array) -> float | None:
    if array is None or array.size != 1:
        return None
    return float(backend.scalar(array))


def _note_dead_units(relus: list) -> None:
    """Set each ReLU node's dead units: units (everything after the batch dimension) that are
    zero for every example; the counts of device arrays come back in one transfer per device."""
    on_device = []
    for node, output in relus:
        units = math.prod(output.shape[1:])
        if type(output) is np.ndarray:
            alive = int(np.count_nonzero(output.reshape(output.shape[0], -1).any(axis=0)))
            node.dead_units = (units - alive, units)
        else:
            xp = namespace(output)
            flat = backend.reshape(output, (output.shape[0], -1))
            on_device.append((node, units, xp.sum(backend.astype(xp.any(flat != 0, axis=0), xp.int64))))
    if on_device:
        for (node, units, _), alive in zip(on_device, backend.scalars([c for _, _, c in on_device])):
            node.dead_units = (units - int(alive), units)


def any_nonfinite(arrays, known_finite=()) -> bool:
    """Whether any value in the arrays (or Python numbers) is NaN or Inf, in few reductions:
    the small NumPy arrays are checked together, each large one with a sum of squares, those
    of other devices with a reduction each there and one transfer per device for the answers."""
    small, flags = [], []
    for a in arrays:
        kind = type(a)
        if kind is np.ndarray:
            if id(a) in known_finite:
                continue
            if a.size <= 4096:
                small.append(a.reshape(-1))
            elif a.dtype.kind in "fc" and _nonfinite_in(a):
                return True
        elif kind is float:
            if a - a != 0.0:
                return True
        elif kind is Summarized:
            if a.summary.has_nonfinite:
                return True
        elif a is not None and kind not in _NUMBER and backend.is_array(a) and id(a) not in known_finite \
                and backend.dtype_kind(a) in "fc":
            xp = namespace(a)
            flags.append(xp.any(xp.logical_not(xp.isfinite(a))))
    if small:
        flat = np.concatenate(small) if len(small) > 1 else small[0]
        if flat.dtype.kind in "fc" and _nonfinite_in(flat):
            return True
    return any(backend.scalars(flags)) if flags else False


def _nonfinite_in(a: np.ndarray) -> bool:
    flat = a.reshape(-1)
    if flat.dtype.kind == "f" and flat.dtype.itemsize >= 4:
        total = np.dot(flat, flat)  # BLAS: NaN and Inf propagate, and no warnings
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            total = (np.abs(flat) ** 2).sum()
    if math.isfinite(float(total)):
        return False
    return not bool(np.isfinite(flat).all())
