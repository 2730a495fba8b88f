"""A loaded snapshot's parts checked against each other (each was checked alone as it was read): a node's
inputs against its op's shape rule, the grads of each step against the shapes of the nodes they belong
to, saved roles against the nodes, an optimizer step's tensors against each other.

The readers of a record (explain, gradcheck, the app's panes) compute with these shapes; a file whose
columns disagree is refused here in one line, with the place, rather than failing deep in NumPy."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..record.model import BackwardPass, OptimizerEvent, Record, Step
from ..record.naming import CUSTOM_RULE, INPUT_ROLES, engine_functions
from ..record.node_columns import NodeColumns
from ..record.node_fields import COLUMNS
from ..record.step_table import StepColumns, step_columns
from ..record.summary_table import SummaryTable
from ..record.tensor_summary import TensorSummary
from .format import SnapshotError

Shape = tuple[int, ...]
_FEW = 4  # inputs of a node whose op's rule is worked out once per shapes (more: checked one by one)
_SAVED = next(c for c in COLUMNS if c.name == "saved")  # its roles: read through the table


class Disagreement(Exception):
    """The first place where a record's parts disagree, and how."""

    def __init__(self, where: str, problem: str) -> None:
        self.where, self.problem = where, problem
        super().__init__(f"{where}: {problem}")


def check_consistency(record: Record, source: str) -> None:
    """SnapshotError ("this snapshot is inconsistent at <place>: <how>") at the first place where the
    parts of `record`, read from `source`, disagree."""
    try:
        nodes = record.nodes.columns()
        _check_nodes(nodes)
        shapes = None  # made for the first pass with steps
        for i, p in enumerate(record.passes):
            if p.steps:
                shapes = shapes or _Shapes(nodes, record.rules)
                _check_pass(p, f"passes[{i}]", shapes)
        for i, event in enumerate(record.optimizer):
            _check_event(event, f"optimizer[{i}]")
        _check_training(record)
    except Disagreement as d:
        raise SnapshotError(source, "", f"this snapshot is inconsistent at {d.where}: {d.problem}") from None


def _check_training(record: Record) -> None:
    """The training series has one entry per pass, and each logged scalar a pass that was begun."""
    series, passes = record.training, len(record.passes)
    if series.passes != passes:
        raise Disagreement("training.passes", f"the series has {series.passes:,} passes; the snapshot has {passes:,}")
    for i, s in enumerate(series.scalars.values()):
        late = np.flatnonzero(s.pass_index > passes)
        if late.size:
            k = int(late[0])
            raise Disagreement(
                f"training.scalars[{i}].pass[{k}]", f"pass {int(s.pass_index[k]):,} of a run of {passes:,} passes"
            )


def _text(shape: Shape | None) -> str:
    return "no tensor" if shape is None else f"shape {shape}" if shape else "a scalar"


class _Shapes:
    """Each node's output shape and inputs, by row, read from the columns (a few rows: those the column
    scan flags, one of each op and shapes) and made once per node."""

    def __init__(self, nodes: NodeColumns, rules: dict[str, str]) -> None:
        self.nodes, self._recorded_rules = nodes, rules
        table = nodes.summaries
        self._starts, self._dims = table.dims_start, table.dims
        self._outputs = np.asarray(nodes.output, dtype=np.int64)
        self._input_starts = np.asarray(nodes.inputs_start, dtype=np.int64)
        self._inputs = np.asarray(nodes.inputs, dtype=np.int64)
        self.input_rows = nodes.rows_of(self._inputs)
        self._ops = np.asarray(nodes.op)
        self._shapes: dict[int, Shape | None] = {}
        self._rules: dict[tuple[str, tuple[Shape | None, ...], Shape | None], str | None] = {}

    def rows(self, ids: list[int]) -> list[int]:
        """The rows of node ids (every one checked to exist by the reader)."""
        rows: list[int] = self.nodes.rows_of(np.array(ids, dtype=np.int64)).tolist()
        return rows

    def output(self, r: int) -> Shape | None:
        """Row r's output shape (None: no summary)."""
        if r in self._shapes:
            return self._shapes[r]
        k = int(self._outputs[r])
        shape = None if k < 0 else tuple(self._dims[self._starts[k] : self._starts[k + 1]].tolist())
        self._shapes[r] = shape
        return shape

    def inputs(self, r: int) -> tuple[list[int], tuple[Shape | None, ...]]:
        """Row r's input ids and their output shapes."""
        a, b = self._input_starts[r : r + 2].tolist()
        return self._inputs[a:b].tolist(), tuple(self.output(k) for k in self.input_rows[a:b].tolist())

    def op(self, r: int) -> str:
        return self.nodes.strings[int(self._ops[r])]

    def shape_ids(self, steps: SummaryTable) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """An id per row of `steps` and of the nodes' table, the same id for the same shape (one
        past the end: -1, for an entry of None)."""
        tables = [steps] if steps is self.nodes.summaries else [steps, self.nodes.summaries]
        ids = _shape_ids(tables)
        cut = len(tables[0])
        step_ids, node_ids = ids[:cut], ids[cut:] if len(tables) > 1 else ids[:cut]
        return np.append(step_ids, -1), np.append(node_ids, -1)

    def rule_refused(self, rows: NDArray[np.int64], out: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Per entry of `rows` (node rows): whether its op's rule may refuse its shapes, worked out
        once per (op, output shape, input shapes) from `out`, each row's output shape id (a node of
        more than a few inputs is taken as may)."""
        kept, index = _unique(rows)
        refused = np.ones(len(kept), dtype=bool)
        node_starts = np.asarray(self.nodes.inputs_start, dtype=np.int64)
        few = (kept >= 0) & (np.diff(node_starts)[kept] <= _FEW)
        few_rows = kept[few]
        starts, ends = node_starts[few_rows], node_starts[few_rows + 1]
        given = np.append(out[self.input_rows], -2)  # each input's shape id, then -2: no such input
        keys = [np.asarray(self.nodes.op, dtype=np.int64)[few_rows], out[few_rows]] + [
            given[np.where(starts + j < ends, starts + j, len(given) - 1)] for j in range(_FEW)
        ]
        answers = np.ones(len(few_rows), dtype=bool)
        if len(few_rows):
            back = _key_ids(keys)
            first = np.zeros(int(back.max()) + 1, dtype=np.int64)
            first[back[::-1]] = np.arange(len(back) - 1, -1, -1)  # a row of each key (any: its shapes are the same)
            said = np.array(
                [self.rule(self.op(r), self.inputs(r)[1], self.output(r)) is not None for r in few_rows[first].tolist()]
            )
            answers = said[back]
        refused[few] = answers
        return refused[index.reshape(-1)]

    def rule(self, op: str, ins: tuple[Shape | None, ...], out: Shape | None) -> str | None:
        """_op_rule's answer, worked out once per op and shapes."""
        key = (op, ins, out)
        if key not in self._rules:  # (a user's Function may be named as an engine op: its rule is its own)
            custom = self._recorded_rules.get(op, "").startswith(CUSTOM_RULE)
            self._rules[key] = None if custom else _op_rule(op, ins, out)
        return self._rules[key]


def _check_nodes(nodes: NodeColumns) -> None:
    """Each node's inputs made before it (a graph has no cycle), its saved roles naming inputs it has
    (a leaf identity may name a node trimmed with its pass: it is not checked)."""
    ids = np.asarray(nodes.id, dtype=np.int64)
    starts = np.asarray(nodes.inputs_start, dtype=np.int64)
    counts = np.diff(starts)
    later = np.flatnonzero(np.asarray(nodes.inputs) >= np.repeat(ids, counts))
    if later.size:
        j = int(later[0])
        r = _owner(starts, j)
        raise Disagreement(
            f"nodes.inputs[{r}]", f"node {ids[r]}'s input {j - starts[r]} is node {nodes.inputs[j]}, not made before it"
        )
    saved = np.asarray(getattr(nodes, _SAVED.parts[0][0]), dtype=np.int64)
    roles = np.flatnonzero(np.bincount(saved[saved >= 0], minlength=len(nodes.strings)))  # the roles' strings
    role_input = np.full(len(nodes.strings) + 1, -1, dtype=np.int64)  # (the last for -1: none)
    role_input[roles] = [_input_of(nodes.strings[k]) for k in roles.tolist()]
    saved_start: NDArray[np.int64] = np.asarray(getattr(nodes, _SAVED.start), dtype=np.int64)
    wrong = np.flatnonzero(role_input[saved] >= np.repeat(counts, np.diff(saved_start)))
    if wrong.size:
        r = _owner(saved_start, int(wrong[0]))
        role = nodes.strings[int(saved[wrong[0]])]
        raise Disagreement(f"nodes.saved[{r}]", f"node {ids[r]} saves {role!r} but has {counts[r]} inputs")


def _owner(starts: NDArray[np.int64], j: int) -> int:
    """The row of a ragged column's j-th value, from its rows' starts."""
    return int(np.searchsorted(starts, j, side="right")) - 1


def _input_of(role: str) -> int:
    """K of a role "input:K"; -1 for any other role (or text)."""
    if role in INPUT_ROLES:
        return INPUT_ROLES.index(role)
    head, _, k = role.partition(":")
    return int(k) if head == "input" and k.isdigit() and len(k) < 10 else -1


def _check_pass(p: BackwardPass, where: str, shapes: _Shapes) -> None:
    """Each step the node its place in the order names, its grads of the shapes of the tensors they
    are the grads of, its node's inputs fit for its op. The steps are scanned as columns first; only
    those the scan flags are read as Steps and checked one by one (so the first disagreement, and its
    words, are the same as a check of every step would give)."""
    if len(p.steps) > len(p.order):
        raise Disagreement(f"{where}.steps", f"{len(p.steps)} steps for the {len(p.order)} nodes of the order")
    columns = step_columns(p.steps)
    rows = shapes.nodes.rows_of(np.asarray(columns.node, dtype=np.int64))
    order = np.asarray(p.order[: len(columns)], dtype=np.int64)
    for i in np.flatnonzero(_suspects(columns, rows, order, shapes)).tolist():
        _check_step(p.steps[i], i, p.order[i], int(rows[i]), f"{where}.steps", shapes)


def _suspects(
    steps: StepColumns, rows: NDArray[np.int64], order: NDArray[np.int64], shapes: _Shapes
) -> NDArray[np.bool_]:
    """Per step (of node row `rows`): whether any of its checks may fail (a shape not the same as its
    tensor's, more grads than inputs, another node than the order's, an op whose shapes its rule
    refuses); every step that fails one is among them."""
    nodes = shapes.nodes
    step_shape, node_shape = shapes.shape_ids(steps.summaries)
    out = np.append(node_shape[np.asarray(nodes.output, dtype=np.int64)], -1)  # a node row's output shape id
    node_starts = np.asarray(nodes.inputs_start, dtype=np.int64)
    input_count = np.diff(node_starts)[rows]
    suspect: NDArray[np.bool_] = (np.asarray(steps.node) != order) | _differ(step_shape[steps.grad_output], out[rows])
    grads = np.diff(steps.inputs_start)
    suspect |= grads > input_count
    owner = np.repeat(np.arange(len(rows)), grads)
    j = np.arange(len(steps.inputs)) - np.repeat(steps.inputs_start[:-1], grads)
    fits = j < input_count[owner]
    at = np.where(fits, node_starts[rows[owner]] + j, 0)
    given = out[shapes.input_rows[at]] if len(nodes.inputs) else np.full(len(at), -1)
    suspect[owner[fits & _differ(step_shape[steps.inputs], given)]] = True
    leaves = np.diff(steps.leaves_start)
    leaf_owner = np.repeat(np.arange(len(rows)), leaves)
    leaf = out[nodes.rows_of(np.asarray(steps.leaf_node, dtype=np.int64))]
    for column in (steps.leaf_grad, steps.leaf_before, steps.leaf_now):
        suspect[leaf_owner[_differ(step_shape[column], leaf)]] = True
    suspect |= shapes.rule_refused(rows, out)
    return suspect


def _row_ids(matrix: NDArray[np.int64]) -> NDArray[np.int64]:
    """An id per row of `matrix`, the same for equal rows (0, 1, ... in sorted order of the rows)."""
    if not len(matrix):
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort(matrix.T[::-1])
    ordered = matrix[order]
    ids = np.empty(len(matrix), dtype=np.int64)
    ids[order] = np.concatenate([[0], np.cumsum(np.any(ordered[1:] != ordered[:-1], axis=1))])
    return ids


def _key_ids(keys: list[NDArray[np.int64]]) -> NDArray[np.int64]:
    """_row_ids of the rows of these columns (of small ids, -2 and up), from one number per row where
    their ranges let a row be packed into one (a sort of numbers, not of rows: several times faster)."""
    span = [int(k.max(initial=0)) + 3 for k in keys]  # each column's values shifted to 0.. (from -2)
    if float(np.prod(np.array(span, dtype=np.float64))) >= 2.0**62:
        return _row_ids(np.stack(keys, axis=1))
    packed = np.zeros(len(keys[0]), dtype=np.int64)
    for k, size in zip(keys, span):
        packed = packed * size + (k + 2)  # mixed radix: equal rows, equal numbers; in row order
    return _unique(packed)[1]


def _shape_ids(tables: list[SummaryTable]) -> NDArray[np.int64]:
    """An id per row of the tables (one after another), the same for the same shape and only for it:
    from the shape's rank and dims packed into one number where they fit (a sort of numbers, several
    times faster than one of rows), else from the rows of the shapes."""
    ranks = np.concatenate([np.diff(t.dims_start) for t in tables])
    dims = np.concatenate([t.dims for t in tables])
    starts = np.zeros(len(ranks) + 1, dtype=np.int64)
    np.cumsum(ranks, out=starts[1:])
    rank = int(ranks.max(initial=0))
    bits = (int(dims.max(initial=0)) + 1).bit_length()  # a dim d as d + 1 (0: past the rank)
    if rank.bit_length() + rank * bits > 62:
        return _row_ids(_padded_shapes(ranks, dims, starts))
    keys = ranks.astype(np.int64)
    for k in range(rank):
        dim = np.where(ranks > k, dims[np.minimum(starts[:-1] + k, len(dims) - 1)] + 1, 0)
        keys = (keys << bits) | dim
    return _unique(keys)[1]


def _unique(values: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """np.unique(values, return_inverse=True) of numbers -1 and up: through a table of every number
    where their range is not much more than their count (no sort), else by a sort."""
    top = int(values.max(initial=-1)) + 1  # -1 at 0, k at k + 1
    if top > 4 * len(values) + (1 << 16):
        uniques, inverse = np.unique(values, return_inverse=True)
        return uniques, inverse.reshape(-1)
    present = np.zeros(top + 1, dtype=bool)
    present[values + 1] = True
    rank = np.cumsum(present, dtype=np.int64) - 1
    return np.flatnonzero(present) - 1, rank[values + 1]


def _padded_shapes(ranks: NDArray[np.int64], dims: NDArray[np.int64], starts: NDArray[np.int64]) -> NDArray[np.int64]:
    """Each row's shape as a row of a matrix: its rank, then its dims, then -1s."""
    width = int(ranks.max(initial=0)) + 1
    matrix = np.full((len(ranks), width), -1, dtype=np.int64)
    matrix[:, 0] = ranks
    owner = np.repeat(np.arange(len(ranks)), ranks)
    matrix[owner, 1 + np.arange(len(dims)) - starts[:-1][owner]] = dims
    return matrix


def _differ(a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Where two shape ids are both known (>= 0) and not the same shape."""
    differ: NDArray[np.bool_] = (a >= 0) & (b >= 0) & (a != b)
    return differ


def _check_step(s: Step, i: int, node: int, r: int, at: str, shapes: _Shapes) -> None:
    """Step i (of node row r; `node` is the order's i-th) checked against its node and its op."""
    if s.node != node:
        raise Disagreement(f"{at}.node[{i}]", f"step {i} is node {s.node}'s, but order[{i}] is node {node}")
    out = shapes.output(r)
    inputs, ins = shapes.inputs(r)
    if not _same(s.grad_output, out):
        raise _unlike(s.grad_output, out, f"{at}.grad_output[{i}]", f"node {s.node}'s output")
    if len(s.grad_inputs) > len(inputs):
        raise Disagreement(
            f"{at}.grad_inputs[{i}]", f"{len(s.grad_inputs)} grads for node {s.node}'s {len(inputs)} inputs"
        )
    for j, g in enumerate(s.grad_inputs):
        if g is not None and not _sums_to(g.shape, ins[j]):
            raise Disagreement(
                f"{at}.grad_inputs[{i}][{j}]",
                f"a grad of {_text(tuple(g.shape))} for node {s.node}'s input {j} (node {inputs[j]}), "
                f"of {_text(ins[j])}",
            )
    for j, lg in enumerate(s.leaf_grads):
        leaf = shapes.output(shapes.rows([lg.node])[0])
        for k, g in enumerate((lg.grad, lg.before, lg.now)):
            if not _same(g, leaf):
                raise _unlike(g, leaf, f"{at}.leaf_grads[{i}][{j}][{k + 1}]", f"leaf node {lg.node}")
    op = shapes.op(r)
    problem = shapes.rule(op, ins, out)
    if problem is not None:
        raise Disagreement(f"nodes.inputs[{r}]", f"node {s.node} ({op}): {problem}")


def _sums_to(grad: Shape, shape: Shape | None) -> bool:
    """Whether a grad of shape `grad` is one for a tensor of `shape`: the same, or broadcast from it
    (the engine sums it down as it passes it on)."""
    if shape is None or grad == shape:
        return True
    grad = tuple(grad)
    extra = len(grad) - len(shape)
    return extra >= 0 and all(n in (1, m) for n, m in zip(shape, grad[extra:]))


def _same(summary: TensorSummary | None, shape: Shape | None) -> bool:
    """Whether a grad's summary has the shape of the tensor it is the grad of (or either is not recorded)."""
    return summary is None or shape is None or summary.shape == shape or tuple(summary.shape) == shape


def _unlike(summary: TensorSummary | None, shape: Shape | None, where: str, whose: str) -> Disagreement:
    """The disagreement of a grad of another shape than the tensor it is the grad of."""
    given = None if summary is None else tuple(summary.shape)
    return Disagreement(where, f"a grad of {_text(given)} for {whose}, of {_text(shape)}")


def _op_rule(op: str, ins: tuple[Shape | None, ...], out: Shape | None) -> str | None:
    """What is wrong with an op's input and output shapes, where its rule can say (an elementwise op
    broadcasts its inputs to its output; a matrix product's inner sizes agree); None when nothing is."""
    cls: Any = engine_functions().get(op)
    if cls is None or any(s is None for s in ins) or out is None:
        return None
    known: list[Shape] = [s for s in ins if s is not None]
    if cls.elementwise and known:
        try:
            broadcast = np.broadcast_shapes(*known)
        except ValueError:
            return f"inputs of {', '.join(map(str, known))} do not broadcast"
        if broadcast != out:
            return f"inputs of {', '.join(map(str, known))} broadcast to {broadcast}, not to its output's {out}"
    if op == "matmul" and len(known) == 2:
        a, b = known
        if not a or not b:
            return "a matrix product of a scalar"
        inner = b[0] if len(b) == 1 else b[-2]
        if a[-1] != inner:
            return f"a matrix product of {a} and {b}: inner sizes {a[-1]} and {inner} differ"
    return None


def _check_event(event: OptimizerEvent, where: str) -> None:
    """A parameter's value before, its update, its value after and its grad: one shape."""
    for i, change in enumerate(event.params):
        tensors = {k: getattr(change, k) for k in ("before", "update", "after", "grad")}
        shapes = {k: tuple(v.shape) for k, v in tensors.items() if v is not None}
        if len(set(shapes.values())) > 1:
            told = ", ".join(f"{k} {_text(v)}" for k, v in shapes.items())
            raise Disagreement(f"{where}.params[{i}]", f"parameter {change.label[:80]!r}: {told}")
