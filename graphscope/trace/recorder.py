"""The recorder: an engine observer that copies what each event shows into the record, within a memory policy."""

from __future__ import annotations

import datetime
import linecache
import math
import os
import platform
import sys
import sysconfig
import traceback
import weakref
from dataclasses import dataclass

import numpy as np

from graphscope.engine import hooks
from graphscope.engine.backend import namespace, to_host
from graphscope.engine.tensor import Tensor

from . import findings
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
from .summary import FULL_VALUES_LIMIT, summarize, summarize_value

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_NUMBER = (int, float, bool)


@dataclass(frozen=True)
class Policy:
    """How much the recorder keeps.

    Every pass keeps its loss and per-parameter grad norms. Full detail (nodes with value
    summaries, backward steps with grad summaries) is kept for the first `keep_first` passes,
    the last `keep_last` (None: every pass), and the passes where the first NaN/Inf appeared.
    Captured values (previews and full values) are held within `memory_budget` bytes; past
    it the oldest are dropped and the record counts them.
    """

    keep_first: int = 1
    keep_last: int | None = 3
    full_values_limit: int = FULL_VALUES_LIMIT
    memory_budget: int = 512 * 2**20
    vanishing: float = 1e-7           # a parameter grad norm under this is vanishing
    exploding: float = 1e3            # over this, exploding
    console_limit: int = 100_000      # console lines kept (the oldest are dropped past it)
    pending_limit: int = 256 * 2**20  # bytes of raw copies waiting to be summarised

    @classmethod
    def every_pass(cls, **options) -> "Policy":
        """Full detail for every pass."""
        return cls(keep_last=None, **options)


class Recorder(hooks.Observer):
    """Fills a Record from engine events; install it with `graphscope.engine.hooks.observe`.

    Values are copied at each event (the engine may change them in place later) and
    summarised lazily: a pass that falls out of the detail window before it is summarised
    costs only its copies. `flush()` brings the record up to date (the session calls it
    when the script pauses); `finish()` ends the recording and works out the findings.
    """

    def __init__(self, policy: Policy | None = None, script: str = "", argv: list[str] | None = None):
        self.policy = policy = policy or Policy()
        self.record = Record(metadata=Metadata(
            script=script, argv=list(argv or []),
            started=datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            graphscope_version=_graphscope_version(), python_version=platform.python_version(),
            numpy_version=np.__version__, keep_first=policy.keep_first, keep_last=policy.keep_last,
            full_values_limit=policy.full_values_limit, memory_budget=policy.memory_budget,
        ))
        self._next_id = 0
        self._segment = 0                        # the pass whose forward is being recorded
        self._segment_nodes: dict[int, list[int]] = {0: []}
        self._orphans: set[int] = set()          # nodes of trimmed passes still referenced
        self._tensors: dict[int, tuple] = {}     # id(tensor) -> (weakref, node id, is a leaf node)
        self._functions: dict[int, tuple] = {}   # id(Function) -> (weakref, node id)
        self._labels: dict[int, tuple] = {}      # id(leaf requiring grad) -> (weakref, name)
        self._label_owner: dict[str, int] = {}   # name -> id of the tensor that has it
        self._roots: dict[int, tuple] = {}       # id(root module) -> (weakref, name)
        self._param_names: dict[int, tuple] = {}  # id(parameter) -> (weakref, "layers.0.weight")
        self._modules: list[str] = []
        self._named_a_model = False
        self._op_names: dict[type, tuple[str, str]] = {}
        self._sites: dict[hooks.Site, SourceSite] = {}
        self._pending: dict[int, list] = {}      # pass -> [(object, key, raw copy)]
        self._pending_bytes = 0
        self._captured: dict[int, list] = {}     # pass -> summaries holding captured values
        self._captured_bytes = 0
        self._pinned: set[int] = set()
        self._nan_values_flushed: set[int] = set()  # passes with a NaN/Inf in an already summarised value
        self._nan_grads_flushed: set[int] = set()   # ... or grad
        self._nan_value_pass: int | None = None
        self._nan_grad_pass: int | None = None
        self._pass: BackwardPass | None = None
        self._step: Step | None = None
        self._norms: list = []
        self._root_array = None
        self._stepping: int | None = None        # the node whose backward is running
        self._finished = False

    # --- engine events ---------------------------------------------------------------------

    def module_entered(self, module, name):
        if not self._modules:
            self._note_root(module, name)
        self._modules.append(name)

    def module_left(self, module, name):
        if self._modules:
            self._modules.pop()

    def node_created(self, node, inputs, output, site):
        source = self._sites.get(site)
        if source is None:
            source = self._source_site(site)
        ids = []
        tensors = self._tensors
        for x in inputs:
            if isinstance(x, Tensor):
                entry = tensors.get(id(x))
                if entry is not None and entry[0]() is x:
                    ids.append(entry[1])
                else:
                    ids.append(self._tensor_node(x, source))
            else:
                ids.append(self._constant_node(x, source))
        names = self._op_names.get(type(node))
        if names is None:
            names = self._op_names[type(node)] = (node.op, node.name())
        nid = self._next_id
        self._next_id = nid + 1
        segment = self._segment
        n = Node(nid, names[0], names[1], tuple(ids), segment, None, output.requires_grad, False, None,
                 self._modules[-1] if self._modules else None, source, tuple(node.saved_arrays()))
        self.record.nodes[nid] = n
        self._segment_nodes[segment].append(nid)
        self._capture(segment, n, "output", output.array)
        tensors[id(output)] = (weakref.ref(output), nid, False)
        self._functions[id(node)] = (weakref.ref(node), nid)

    def backward_begun(self, root, order):
        index = len(self.record.passes)
        p = BackwardPass(index, node_count=len(self._segment_nodes.get(index, ())))
        self.record.passes.append(p)
        self._pass = p
        self._norms = []
        self._root_array = root.array
        p.root = self._node_of_tensor(root)
        p.order = tuple(self._node_of_function(fn) for fn in order)

    def before_node(self, node, grad_output):
        p = self._pass
        if p is None:
            return
        nid = self._node_of_function(node)
        step = Step(nid)
        p.steps.append(step)
        self._step = step
        self._stepping = nid
        self._capture(p.index, step, "grad_output", grad_output)

    def after_node(self, node, grad_inputs):
        step, p = self._step, self._pass
        if step is None or p is None:
            return
        grads = [None] * len(grad_inputs)
        step.grad_inputs = grads
        for i, g in enumerate(grad_inputs):
            if g is not None:
                self._capture(p.index, grads, i, g)
        self._stepping = None

    def leaf_grad_accumulated(self, tensor, grad):
        p = self._pass
        if p is None:
            return
        lg = LeafGrad(self._node_of_tensor(tensor))
        if self._step is not None:
            self._step.leaf_grads.append(lg)
        self._capture(p.index, lg, "grad", grad)
        if tensor.requires_grad:
            self._norms.append((self._label(tensor), _squared_norm(grad)))

    def backward_ended(self, root):
        p = self._pass
        if p is None:
            return
        index = p.index
        p.loss = _scalar(self._root_array)
        norms = p.grad_norms
        for label, squares in _to_host_floats(self._norms):
            norms[label] = math.sqrt(squares)
        p.finished = True
        self._pass = self._step = self._root_array = None
        self._norms = []
        self._check_nonfinite(index)
        self._end_segment()
        keep_last = self.policy.keep_last
        if keep_last is not None:
            self._trim(index - keep_last)
        if index < self.policy.keep_first or index in self._pinned or keep_last is None:
            self._flush_pass(index)

    # --- what the session tells it --------------------------------------------------------

    def console(self, stream: str, text: str) -> None:
        """The script wrote `text` to "stdout" or "stderr"."""
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
        self.record.error = ScriptError(type(error).__name__, str(error), text, self._stepping,
                                        self._error_site(error))
        return self.record.error

    def flush(self) -> Record:
        """Summarise every pending capture and update the findings; returns the record."""
        for index in sorted(self._pending):
            self._flush_pass(index)
        self.record.findings = findings.find(self.record, self.policy.vanishing, self.policy.exploding)
        return self.record

    def finish(self, exit_code: int | None = None) -> Record:
        """End the recording: summarise what is pending, check the last forward, find the findings."""
        self._check_nonfinite(self._segment)
        meta = self.record.metadata
        meta.finished = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        if exit_code is not None:
            meta.exit_code = exit_code
        self._finished = True
        return self.flush()

    def node_id(self, obj) -> int | None:
        """The record id of a live Function or Tensor already recorded, else None."""
        table = self._tensors if isinstance(obj, Tensor) else self._functions
        entry = table.get(id(obj))
        return entry[1] if entry is not None and entry[0]() is obj else None

    # --- nodes -----------------------------------------------------------------------------

    def _new_node(self, **fields) -> Node:
        nid = self._next_id
        self._next_id = nid + 1
        n = Node(nid, pass_index=self._segment, module=self._modules[-1] if self._modules else None, **fields)
        self.record.nodes[nid] = n
        self._segment_nodes[self._segment].append(nid)
        return n

    def _tensor_node(self, t: Tensor, site: SourceSite | None) -> int:
        """A node for a tensor first seen as an input this pass: a leaf, or a non-leaf made
        where the record cannot see (before recording began, or in a trimmed pass)."""
        if t.grad_fn is None:
            leaf = t.requires_grad
            n = self._new_node(op=PARAMETER if leaf else TENSOR, requires_grad=leaf, is_leaf=True,
                               parameter=self._label(t) if leaf else None, site=site)
        else:
            n = self._new_node(op=EXTERNAL, name=f"{t.grad_fn.name()} (not recorded)",
                               requires_grad=t.requires_grad, site=site)
        self._capture(self._segment, n, "output", t.array)
        self._tensors[id(t)] = (weakref.ref(t), n.id, True)
        return n.id

    def _constant_node(self, value, site: SourceSite | None) -> int:
        n = self._new_node(op=CONSTANT, name=_short_repr(value), is_leaf=True, site=site)
        if type(value) in _NUMBER:
            self._pending.setdefault(self._segment, []).append((n, "output", value))
        return n.id

    def _node_of_tensor(self, t: Tensor) -> int:
        entry = self._tensors.get(id(t))
        if entry is not None and entry[0]() is t:
            return entry[1]
        return self._tensor_node(t, None)

    def _node_of_function(self, fn) -> int:
        entry = self._functions.get(id(fn))
        if entry is not None and entry[0]() is fn:
            return entry[1]
        n = self._new_node(op=getattr(fn, "op", "function"), name=f"{fn.name()} (not recorded)",
                           requires_grad=True)
        self._functions[id(fn)] = (weakref.ref(fn), n.id)
        return n.id

    def _source_site(self, site) -> SourceSite:
        text = linecache.getline(site.file, site.line).strip() if site.line > 0 else ""
        source = self._sites[site] = SourceSite(site.file, site.line, site.function, text[:1000])
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
                self._param_names[id(param)] = (weakref.ref(param), prefix + pname)

    def _label(self, t: Tensor) -> str:
        """A stable name for a leaf that requires grad: its parameter name, the variable that
        holds it, or "tensor<n>"; unique within the run."""
        entry = self._labels.get(id(t))
        if entry is not None and entry[0]() is t:
            return entry[1]
        entry = self._param_names.get(id(t))
        name = entry[1] if entry is not None and entry[0]() is t else _variable_name(t)
        base = name or f"tensor{len(self._labels)}"
        name, k = base, 1
        while name in self._label_owner and self._label_owner[name] != id(t):
            owner = self._labels.get(self._label_owner[name])
            if owner is None or owner[0]() is None:
                break
            k += 1
            name = f"{base}#{k}"
        self._labels[id(t)] = (weakref.ref(t), name)
        self._label_owner[name] = id(t)
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
        return SourceSite(found.filename, found.lineno or 0, found.name, (found.line or "").strip()[:1000])

    # --- captures, summaries, the memory budget --------------------------------------------

    def _capture(self, index: int, target, key, array) -> None:
        copy = array.copy()
        self._pending.setdefault(index, []).append((target, key, copy))
        self._pending_bytes += copy.nbytes
        if self._pending_bytes > self.policy.pending_limit:
            self._flush_pass(min(self._pending))

    def _flush_pass(self, index: int) -> None:
        entries = self._pending.pop(index, None)
        if not entries:
            return
        limit = self.policy.full_values_limit
        captured = self._captured.setdefault(index, [])
        added = 0
        for target, key, raw in entries:
            if type(raw) in _NUMBER:
                s = summarize_value(raw)
            else:
                self._pending_bytes -= raw.nbytes
                s = summarize(raw, limit)
                if type(target) is Node and target.op == "relu" and raw.ndim >= 2:
                    target.dead_units = _dead_units(raw)
            if type(key) is int:
                target[key] = s
            else:
                setattr(target, key, s)
            if s is not None:
                if s.nan_count or s.inf_count:
                    (self._nan_values_flushed if type(target) is Node else self._nan_grads_flushed).add(index)
                captured.append(s)
                added += s.captured_bytes
                if s.device != "cpu" and self.record.metadata.device == "cpu":
                    self.record.metadata.device = s.device
        self._captured_bytes += added
        self._enforce_budget()

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

    def _check_nonfinite(self, index: int) -> None:
        """Pin the first pass whose values (and the first whose grads) hold a NaN or Inf, so
        its detail survives for the findings however long the run goes on."""
        want_values = self._nan_value_pass is None
        want_grads = self._nan_grad_pass is None
        if not (want_values or want_grads):
            return
        values, grads = [], []
        for target, _, raw in self._pending.get(index, ()):
            (values if type(target) is Node else grads).append(raw)
        if want_values and (index in self._nan_values_flushed or _any_nonfinite(values)):
            self._nan_value_pass = index
            self._pinned.add(index)
        if want_grads and (index in self._nan_grads_flushed or _any_nonfinite(grads)):
            self._nan_grad_pass = index
            self._pinned.add(index)
        if index in self._pinned:
            self._flush_pass(index)

    # --- passes ending, passes trimmed -----------------------------------------------------

    def _end_segment(self) -> None:
        """The next forward belongs to the next pass: leaves get fresh nodes (their values may
        have changed), and dead or trimmed entries leave the lookup maps."""
        nodes = self.record.nodes
        self._tensors = {k: e for k, e in self._tensors.items()
                         if not e[2] and e[1] in nodes and e[0]() is not None}
        self._functions = {k: e for k, e in self._functions.items() if e[1] in nodes and e[0]() is not None}
        if self._segment % 256 == 255:  # now and then, forget tensors that have died
            self._labels = {k: e for k, e in self._labels.items() if e[0]() is not None}
            self._label_owner = {e[1]: k for k, e in self._labels.items()}
        self._segment += 1
        self._segment_nodes.setdefault(self._segment, [])

    def _trim(self, index: int) -> None:
        """Drop pass `index`'s detail, keeping only nodes that retained passes still refer to."""
        passes = self.record.passes
        if index < self.policy.keep_first or index in self._pinned or index >= len(passes):
            return
        p = passes[index]
        if not p.detailed:
            return
        p.detailed = False
        p.root, p.order, p.steps = None, (), []
        nodes = self.record.nodes
        candidates = set(self._segment_nodes.pop(index, ())) | self._orphans
        keep = self._still_referenced(candidates)
        for nid in candidates - keep:
            n = nodes.pop(nid)
            if n.pass_index != index and n.output is not None:  # an orphan of an older pass
                self._captured_bytes -= n.output.drop_values()
        self.record.trimmed_nodes += len(candidates - keep)
        self._orphans = keep
        entries = self._pending.pop(index, ())
        for target, key, raw in entries:
            if type(raw) not in _NUMBER:
                self._pending_bytes -= raw.nbytes
        kept = [e for e in entries if type(e[0]) is Node and e[0].id in keep]
        if kept:
            self._pending[index] = kept
            self._pending_bytes += sum(e[2].nbytes for e in kept if type(e[2]) not in _NUMBER)
            self._flush_pass(index)
        freed = self._captured.pop(index, [])
        self._captured_bytes -= sum(s.captured_bytes for s in freed)
        survivors = [nodes[nid].output for nid in keep
                     if nodes[nid].pass_index == index and nodes[nid].output is not None]
        if survivors:
            self._captured.setdefault(index, []).extend(survivors)
            self._captured_bytes += sum(s.captured_bytes for s in survivors)

    def _still_referenced(self, candidates: set[int]) -> set[int]:
        if not candidates:
            return set()
        nodes = self.record.nodes
        refs = set()
        for p in self.record.passes:
            if p.detailed:
                refs.add(p.root)
                refs.update(p.order)
                for st in p.steps:
                    refs.add(st.node)
                    refs.update(lg.node for lg in st.leaf_grads)
        for segment, ids in self._segment_nodes.items():
            for nid in ids:
                refs.update(nodes[nid].inputs)
        if self.record.error is not None:
            refs.add(self.record.error.node)
        keep = set()
        stack = [nid for nid in refs & candidates]
        while stack:
            nid = stack.pop()
            if nid in keep:
                continue
            keep.add(nid)
            stack.extend(k for k in nodes[nid].inputs if k in candidates and k not in keep)
        return keep


# --- helpers ----------------------------------------------------------------------------------

def _graphscope_version() -> str:
    return getattr(sys.modules.get("graphscope"), "__version__", "")


def _short_repr(value, limit: int = 100) -> str:
    try:
        text = repr(value)
    except Exception as e:  # a user object whose repr raises
        text = f"<{type(value).__name__}: repr failed ({type(e).__name__})>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


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


def _squared_norm(grad):
    """The sum of squares of `grad`: a float on the CPU, a device scalar elsewhere (read later)."""
    xp = namespace(grad)
    if xp is np:
        squares = float(np.vdot(grad, grad))
        if squares == math.inf:  # a narrow dtype overflowed: redo it wide
            squares = float(np.vdot(grad.astype(np.float64), grad.astype(np.float64)))
        return squares
    wide = grad.astype(xp.float64)
    return xp.vdot(wide, wide)


def _to_host_floats(pairs):
    """[(label, float or device scalar)] -> [(label, float)], with one transfer for the device ones."""
    device = [i for i, (_, v) in enumerate(pairs) if not isinstance(v, float)]
    if not device:
        return pairs
    xp = namespace(pairs[device[0]][1])
    host = to_host(xp.stack([pairs[i][1] for i in device])).tolist()
    out = list(pairs)
    for i, v in zip(device, host):
        out[i] = (pairs[i][0], float(v))
    return out


def _scalar(array) -> float | None:
    if array is None or array.size != 1:
        return None
    return float(to_host(array.reshape(-1)[:1])[0])


def _dead_units(output) -> tuple[int, int]:
    """Units (everything after the batch dimension) that are zero for every example."""
    xp = namespace(output)
    flat = output.reshape(output.shape[0], -1)
    alive = int(xp.count_nonzero((flat != 0).any(axis=0)))
    return (flat.shape[1] - alive, flat.shape[1])


def _any_nonfinite(arrays) -> bool:
    """Whether any value in the arrays (or Python numbers) is NaN or Inf, in few reductions:
    a sum of squares is finite exactly when every element is (barring overflow, rechecked)."""
    small, numbers = [], []
    for a in arrays:
        if type(a) in _NUMBER:
            numbers.append(a)
        elif a.dtype.kind in "fc":
            if a.size <= 4096 and namespace(a) is np:
                small.append(a.reshape(-1))
            elif _nonfinite_in(a):
                return True
    if any(type(v) is float and not math.isfinite(v) for v in numbers):
        return True
    return bool(small) and _nonfinite_in(np.concatenate(small) if len(small) > 1 else small[0])


def _nonfinite_in(a) -> bool:
    xp = namespace(a)
    flat = a.reshape(-1)
    with np.errstate(over="ignore", invalid="ignore"):
        total = flat @ flat if flat.dtype.kind == "f" else (xp.abs(flat) ** 2).sum()
    if math.isfinite(float(total)):
        return False
    return not bool(xp.isfinite(flat).all())
