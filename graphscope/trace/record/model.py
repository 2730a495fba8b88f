"""The record of a run: what the TUI, the summary and the snapshot read.

Its readable types are the dataclasses below (Node and SourceSite in `node.py`, Step and LeafGrad in
`step_table.py`, TensorSummary, ...). The nodes and their output summaries, the bulk of a big record,
are held as columns underneath (`record.nodes` is a `NodeTable`), and a Node or TensorSummary is made
when one is read:

    record.nodes[7]                 a Node (a new object at each read of a column row)
    record.nodes.columns()          a NodeColumns, one entry per node in creation order:
      id            int64           the node id
      op, name      int32           indices into `strings` (one table of every text below)
      pass_index    int64           the backward pass whose forward created it
      output        int64           row in `summaries` (-1: no summary)
      flags         uint8           1: requires_grad, 2: is_leaf
      parameter, module  int32      indices into `strings` (-1: None)
      site          int32           index into `sites` (SourceSite objects; -1: None)
      leaf          int64           leaf identity across passes (-1: None)
      inputs        int64, ragged   input node ids: inputs[inputs_start[i]:inputs_start[i+1]]
      saved         int32, ragged   saved roles (`strings` indices), by saved_start
      arg_name, arg_text  ragged    non-tensor arguments (`strings` indices), by args_start
      dead          {row: (dead, units)}   relu nodes only
      summaries     SummaryTable    shape, dtype, device, numel, stats (n x 6 float64: min, max,
                                    mean, std, norm, zero fraction), NaN/Inf counts, histogram
                                    (n x 16 counts), and the previews and full values packed into
                                    one array per host dtype (`summary_table.py`)

`node_fields.COLUMNS` declares these columns once (each one's kind, dtype, Node fields and snapshot
key); the store (`node_columns.NodeColumns`, the one place a Node is made from columns), the
snapshot's reader and writer (`snapshot/columns_read.py`, `columns_write.py`: one base64 array per
column) walk it. A live recording appends to the same columns as they grow (`record.nodes.live()`,
a `LiveNodes` in `live_columns.py`, NodeColumns' append side: typed arrays, the outputs' summaries
in a `LiveSummaries` whose newest rows are the summary objects until 16,384 are packed into a
SummaryTable); a node's output and dead units are filled in when its batch of summaries is stored.
A Node read from a live row is kept until the recorder next changes the table, so a reader may
change it. A node set with `record.nodes[k] = Node(...)` is kept as that object until
`record.nodes.seal()`.

A pass's backward steps are columns too (`pass.steps` is a `StepTable`, `step_table.py`, read as the
list of Steps it stands for; `steps.columns()` is a StepColumns, one entry per step in the order
they ran, its summary entries rows of `summaries` or -1 for None):
      node          int64           the node whose backward ran
      grad_output   int64           the grad it received
      inputs        int64, ragged   the grads it passed to its inputs: by inputs_start
      leaf_node, leaf_grad, leaf_before, leaf_now   int64, ragged by leaves_start: each grad
                                    accumulated into a leaf, what it added, `.grad` before, after
      summaries     SummaryTable    a loaded record's: the snapshot's one table, shared with the nodes
A Step (and its LeafGrads) is made when read; a recording appends its steps as rows of the same
columns (`StepTable.live()`, a `LiveSteps` of int64 arrays, whose summary entries are slots of one
list filled in as their batches are computed). Code that reads every step
(findings, the index, the summary) asks the table (`nonfinite`, `leaf_grads_of`, `leaves`, `until`),
which reads the columns with NumPy. Passes out of the detail window are rows of `PassHistory`; the
small sections are objects.

A live record is filled from the recorder's journals (`trace/recording/journal.py`), one per pass:
its raw events (an op's output array by reference with its version, a leaf's copy shared across
passes while the leaf is unchanged, input ids, the Site made once per code location) and its
backward steps as the engine taped them. A journal becomes rows here only for a pass kept in detail;
the others are dropped whole, so the record never holds what the detail window lets go.

Each imports only those before it: node, node_fields, node_columns, live_columns, node_table,
step_table, training, model, comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .equality import Same as _Same
from .node import Node as Node  # re-exported: Node is read from here with the record's other types
from .node import SourceSite as SourceSite
from .node_table import NodeTable
from .step_table import LeafGrad as LeafGrad  # re-exported, as Node
from .step_table import Step as Step
from .step_table import StepTable
from .tensor_summary import TensorSummary
from .training import TrainingSeries

# Finding kinds, in the order the summary lists them.
NAN_ORIGIN = "nan-origin"
NAN_GRAD = "nan-grad"
DEAD_RELU = "dead-relu"
VANISHING_GRAD = "vanishing-grad"
EXPLODING_GRAD = "exploding-grad"
ACCUMULATED_GRAD = "accumulated-grad"
FINDING_KINDS = (NAN_ORIGIN, NAN_GRAD, DEAD_RELU, VANISHING_GRAD, EXPLODING_GRAD, ACCUMULATED_GRAD)
# Each kind in a few words, as the summary and the app title a finding.
FINDING_TITLES = {
    NAN_ORIGIN: "NaN origin",
    NAN_GRAD: "NaN in backward",
    DEAD_RELU: "dead ReLU",
    VANISHING_GRAD: "vanishing grad",
    EXPLODING_GRAD: "exploding grad",
    ACCUMULATED_GRAD: "grads not zeroed",
}

# Optimizer events' kinds: `optimizer.zero_grad()` (or a module's), `optimizer.step()`, user code
# clearing one leaf's grad (`t.grad = None`, `t.grad.zero_()`), and user code updating leaves in
# place outside grad mode (`with no_grad(): w -= lr * w.grad`), a step written by hand.
ZERO_GRAD, OPTIMIZER_STEP, GRAD_RESET, HAND_UPDATE = "zero_grad", "step", "grad_reset", "hand_update"
OPTIMIZER_EVENT_KINDS = (ZERO_GRAD, OPTIMIZER_STEP, GRAD_RESET, HAND_UPDATE)

# Ops the recorder gives to leaves (they have no Function): a leaf that requires grad,
# any other leaf tensor, a Python value passed to an op, and a non-leaf tensor whose
# creating node is not in the record (made before recording began, or trimmed away).
PARAMETER, TENSOR, CONSTANT, EXTERNAL = "parameter", "tensor", "constant", "external"
LEAF_OPS = (PARAMETER, TENSOR, CONSTANT, EXTERNAL)


@dataclass(eq=False, slots=True)
class BackwardPass(_Same):
    """One `backward()` call. Loss and grad norms are kept for every pass; the rest only in detail."""

    index: int
    loss: float | None = None  # the root's value when it has one element
    grad_norms: dict[str, float] = field(default_factory=dict)  # parameter -> L2 norm of its grad
    node_count: int = 0  # nodes its forward created
    detailed: bool = True  # False once trimmed by the policy: root/order/steps dropped
    finished: bool = False  # backward_ended was seen
    root: int | None = None
    order: tuple[int, ...] = ()  # the planned order of nodes
    # the steps run so far, in order: a StepTable (columns, and the steps a recording appends) or a list
    steps: StepTable | list[Step] = field(default_factory=StepTable)


@dataclass(eq=False, slots=True)
class ParamChange(_Same):
    """What an optimizer event did to one parameter (summaries None where not kept)."""

    leaf: int  # the parameter's Node.leaf identity
    label: str  # its name ("fc.weight", or the script's variable name)
    before: TensorSummary | None = None  # step, hand_update: its value before; zero_grad/grad_reset: its .grad before
    update: TensorSummary | None = None  # step, hand_update: after - before
    after: TensorSummary | None = None  # step, hand_update: its value after; zero_grad(set_to_none=False): the zeros
    # step: the optimizer's state for it after the step: ("momentum_buffer", S), ("exp_avg", S),
    # ("exp_avg_sq", S), ("step", "3"); a tensor as a summary, anything else as a literal.
    state: tuple[tuple[str, TensorSummary | str], ...] = ()
    grad: TensorSummary | None = None  # step, hand_update: the .grad when it began


@dataclass(eq=False, slots=True)
class OptimizerEvent(_Same):
    """`optimizer.zero_grad()`, `optimizer.step()` (one event per parameter group), or user code
    clearing a leaf's grad or updating leaves by hand, between backward passes. A run's events past
    the detail window keep this row and drop `params`."""

    kind: str  # one of OPTIMIZER_EVENT_KINDS
    passes: int  # backward passes begun before it
    optimizer: str = ""  # "SGD", "Adam"; a module's class for its zero_grad; "" for the script's
    settings: tuple[tuple[str, str], ...] = ()  # the group's options as literals: ("lr", "0.1")
    site: SourceSite | None = None  # the user's line that called it
    params: list[ParamChange] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ConsoleLine:
    """A piece of text the script wrote, stamped with when, so that a replay shows it where the
    live run did: the backward passes begun by then, the steps of the last one begun while its
    backward ran, and the optimizer events recorded by then."""

    stream: str  # "stdout" or "stderr"
    text: str
    pass_index: int = 0
    step: int | None = None  # steps of pass `pass_index - 1` begun; None: outside its backward
    events: int = 0  # len(record.optimizer) when it was written


@dataclass(eq=False, slots=True)
class ScriptError(_Same):
    """The exception the script died of."""

    type: str
    message: str
    traceback: str = ""
    node: int | None = None  # the node being stepped when it raised
    site: SourceSite | None = None  # the innermost line of the user's code in the traceback


@dataclass(eq=False, slots=True)
class Finding(_Same):
    """Something a user debugging training wants pointed out, with where it happened."""

    kind: str  # one of FINDING_KINDS
    message: str
    node: int | None = None
    pass_index: int | None = None
    parameter: str | None = None
    site: SourceSite | None = None


@dataclass(eq=False, slots=True)
class Metadata(_Same):
    """What ran, when, on what, and under which recording policy."""

    script: str = ""
    argv: list[str] = field(default_factory=list)
    started: str = ""  # ISO 8601
    finished: str = ""
    exit_code: int | None = None
    graphscope_version: str = ""
    python_version: str = ""
    numpy_version: str = ""
    device: str = "cpu"
    keep_first: int = 1  # passes kept in full detail at the start...
    keep_last: int | None = 3  # ...and at the end (None: every pass)
    full_values_limit: int = 4096
    memory_budget: int = 512 * 2**20


@dataclass(eq=False, slots=True)
class Record(_Same):
    """Everything graphscope knows about one run."""

    metadata: Metadata = field(default_factory=Metadata)
    nodes: NodeTable = field(default_factory=NodeTable)  # by id, in creation order (a dict is taken in)
    passes: list[BackwardPass] = field(default_factory=list)
    console: list[ConsoleLine] = field(default_factory=list)
    error: ScriptError | None = None
    findings: list[Finding] = field(default_factory=list)
    optimizer: list[OptimizerEvent] = field(default_factory=list)  # in order
    dropped_values: int = 0  # summaries whose captured values the memory budget dropped
    trimmed_nodes: int = 0  # nodes dropped with passes outside the detail window
    dropped_console: int = 0  # console lines dropped past the console limit
    # op -> the derivative rule its Function's backward applies ("d(a·b)/da = b"), or, for a
    # user's autograd.Function, "custom backward: MyReLU.backward (model.py:12)".
    rules: dict[str, str] = field(default_factory=dict)
    # per-pass figures kept for every pass (loss, grad norms, update ratios, activations, logged scalars)
    training: TrainingSeries = field(default_factory=TrainingSeries)

    def __post_init__(self) -> None:
        if type(self.nodes) is not NodeTable:
            self.nodes = NodeTable(self.nodes)
        if self.passes and self.training.empty():  # built with passes and no series: the one they tell
            self.training = TrainingSeries.from_passes(self.passes)

    def has_nonfinite(self) -> bool:
        """Whether any NaN or Inf was seen (in a value, a grad, the loss or a grad norm)."""
        if any(f.kind in (NAN_ORIGIN, NAN_GRAD) for f in self.findings):
            return True
        for p in self.passes:
            if p.loss is not None and not math.isfinite(p.loss):
                return True
            if any(not math.isfinite(v) for v in p.grad_norms.values()):
                return True
        return False
