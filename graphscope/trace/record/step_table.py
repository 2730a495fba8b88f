"""StepTable: a backward pass's steps held as columns, each made into a Step when read."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
from numpy.typing import NDArray

from .equality import Same
from .held_rows import HeldRows
from .node_columns import offsets
from .node_fields import NONE  # a summary column's entry for None, as in the node columns
from .summary_table import SummaryTable
from .tensor_summary import TensorSummary


@dataclass(eq=False, slots=True)
class LeafGrad(Same):
    """A grad accumulated into a leaf's `.grad` during a backward step: what was there, what
    this pass added, what is there now."""

    node: int
    grad: TensorSummary | None = None  # what this pass added
    before: TensorSummary | None = None  # `.grad` just before (None: it was None)
    now: TensorSummary | None = None  # `.grad` right after


@dataclass(eq=False, slots=True)
class Step(Same):
    """One node's backward: the grad it received and the grads it passed to its inputs."""

    node: int
    grad_output: TensorSummary | None = None
    grad_inputs: list[TensorSummary | None] = field(default_factory=list)  # aligned with inputs
    leaf_grads: list[LeafGrad] = field(default_factory=list)


# The columns of a pass's steps, held alike by a loaded pass (StepColumns) and a recording one (LiveSteps).
STEP_COLUMNS = (
    "grad_output",
    "inputs",
    "inputs_start",
    "leaf_before",
    "leaf_grad",
    "leaf_node",
    "leaf_now",
    "leaves_start",
    "node",
    "summaries",
)


class StepColumns:
    """A pass's steps as columns, one entry per step in the order they ran (summary entries are
    rows of `summaries`, NONE for None):

      node          int64            the node whose backward ran
      grad_output   int64            the grad it received
      inputs        int64, ragged    the grads it passed on: inputs[inputs_start[i]:inputs_start[i+1]]
      leaf_node     int64, ragged    the leaves grads were accumulated into, by leaves_start
      leaf_grad, leaf_before, leaf_now  int64, by leaves_start   what was added, `.grad` before, after
      summaries     SummaryTable     (a loaded record's: the snapshot's one table, shared with the nodes)
    """

    __slots__ = STEP_COLUMNS

    def __init__(
        self,
        node: NDArray[np.int64],
        grad_output: NDArray[np.int64],
        inputs_start: NDArray[np.int64],
        inputs: NDArray[np.int64],
        leaves_start: NDArray[np.int64],
        leaf_node: NDArray[np.int64],
        leaf_grad: NDArray[np.int64],
        leaf_before: NDArray[np.int64],
        leaf_now: NDArray[np.int64],
        summaries: SummaryTable,
    ) -> None:
        self.node, self.grad_output, self.inputs_start, self.inputs = node, grad_output, inputs_start, inputs
        self.leaves_start, self.leaf_node = leaves_start, leaf_node
        self.leaf_grad, self.leaf_before, self.leaf_now = leaf_grad, leaf_before, leaf_now
        self.summaries = summaries

    def __len__(self) -> int:
        return len(self.node)

    def _summary(self, row: int) -> TensorSummary | None:
        return None if row < 0 else self.summaries[row]

    def step(self, i: int) -> Step:
        """Step i, made from its rows (a leaf grad's `now` is its `grad` when they share a row)."""
        summary = self._summary
        a, b = self.inputs_start[i : i + 2].tolist()
        c, d = self.leaves_start[i : i + 2].tolist()
        leaves = []
        for leaf, grad, before, now in zip(
            self.leaf_node[c:d].tolist(),
            self.leaf_grad[c:d].tolist(),
            self.leaf_before[c:d].tolist(),
            self.leaf_now[c:d].tolist(),
        ):
            added = summary(grad)
            leaves.append(LeafGrad(leaf, added, summary(before), added if now == grad and now >= 0 else summary(now)))
        return Step(
            int(self.node[i]),
            summary(int(self.grad_output[i])),
            [summary(r) for r in self.inputs[a:b].tolist()],
            leaves,
        )

    def nonfinite(self) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
        """Per step: whether its grad output, any of its grad inputs, any grad it added to a leaf
        holds a NaN or an Inf."""
        bad = np.append(self.summaries.nonfinite(), False)  # the last: NONE
        return _flagged(bad, self.grad_output, self.inputs, self.inputs_start, self.leaf_grad, self.leaves_start)

    def head(self, count: int) -> StepColumns:
        """The first `count` steps (views of these columns)."""
        a, b = int(self.inputs_start[count]), int(self.leaves_start[count])
        return StepColumns(
            self.node[:count],
            self.grad_output[:count],
            self.inputs_start[: count + 1],
            self.inputs[:a],
            self.leaves_start[: count + 1],
            self.leaf_node[:b],
            self.leaf_grad[:b],
            self.leaf_before[:b],
            self.leaf_now[:b],
            self.summaries,
        )

    @classmethod
    def from_steps(cls, steps: Sequence[Step]) -> StepColumns:
        """The steps as columns (their summaries copied into one table)."""
        items: list[TensorSummary] = []

        def add(s: TensorSummary | None) -> int:
            if s is None:
                return NONE
            items.append(s)
            return len(items) - 1

        node = np.fromiter((st.node for st in steps), np.int64, len(steps))
        grad_output = np.fromiter((add(st.grad_output) for st in steps), np.int64, len(steps))
        inputs_start = offsets([len(st.grad_inputs) for st in steps])
        inputs = np.fromiter((add(g) for st in steps for g in st.grad_inputs), np.int64, int(inputs_start[-1]))
        leaves = list(chain.from_iterable(st.leaf_grads for st in steps))
        leaves_start = offsets([len(st.leaf_grads) for st in steps])
        rows = []
        for lg in leaves:
            grad = add(lg.grad)
            before = add(lg.before)
            rows.append((lg.node, grad, before, grad if lg.now is lg.grad and grad >= 0 else add(lg.now)))
        leaf = np.array(rows, dtype=np.int64).reshape(-1, 4)
        return cls(
            node,
            grad_output,
            inputs_start,
            inputs,
            leaves_start,
            leaf[:, 0].copy(),
            leaf[:, 1].copy(),
            leaf[:, 2].copy(),
            leaf[:, 3].copy(),
            SummaryTable.from_summaries(items),
        )


def _flagged(
    bad: NDArray[np.bool_],
    grad_output: NDArray[np.int64],
    inputs: NDArray[np.int64],
    inputs_start: NDArray[np.int64],
    leaf_grad: NDArray[np.int64],
    leaves_start: NDArray[np.int64],
) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
    """Per step: whether its grad output, any grad input, any leaf grad is a summary row flagged in
    `bad` (whose last entry, for NONE, is False)."""
    return bad[grad_output], _any_per_row(bad[inputs], inputs_start), _any_per_row(bad[leaf_grad], leaves_start)


class LiveSteps:
    """A recording's steps as they run: rows appended to int64 arrays (`array.array`), the columns of StepColumns (a
    ragged column's rows start at its `_start` entry and end at the next step's, the last step's at
    the column's end, so the last step can still gain grads: one paused in gets them when its
    backward returns), their summary entries slots of `summaries` (NONE for None) that the
    recorder's summary batches fill in. A Step is made when one is read."""

    __slots__ = STEP_COLUMNS

    def __init__(self) -> None:
        # int64 arrays, not lists: a list holds an int object per entry past 256 (36 bytes, not 8)
        self.node = array("q")
        self.grad_output = array("q")
        self.inputs_start = array("q")
        self.inputs = array("q")
        self.leaves_start = array("q")
        self.leaf_node = array("q")
        self.leaf_grad = array("q")
        self.leaf_before = array("q")
        self.leaf_now = array("q")
        self.summaries: list[TensorSummary | None] = []

    def __len__(self) -> int:
        return len(self.node)

    def _bounds(self, starts: array[int], end: int, i: int) -> tuple[int, int]:
        return starts[i], starts[i + 1] if i + 1 < len(starts) else end

    def _summary(self, row: int) -> TensorSummary | None:
        return None if row < 0 else self.summaries[row]

    def step(self, i: int) -> Step:
        """Step i, made from its rows (entries sharing a slot share its summary)."""
        summary = self._summary
        a, b = self._bounds(self.inputs_start, len(self.inputs), i)
        c, d = self._bounds(self.leaves_start, len(self.leaf_node), i)
        return Step(
            self.node[i],
            summary(self.grad_output[i]),
            [summary(r) for r in self.inputs[a:b]],
            [
                LeafGrad(leaf, summary(grad), summary(before), summary(now))
                for leaf, grad, before, now in zip(
                    self.leaf_node[c:d], self.leaf_grad[c:d], self.leaf_before[c:d], self.leaf_now[c:d]
                )
            ],
        )

    def leaf_grads_of(self, leaf: int, first: int) -> list[tuple[int, LeafGrad]]:
        """(step, its LeafGrad) of each grad accumulated into node `leaf`, steps numbered from `first`."""
        out = []
        starts, summary = self.leaves_start, self._summary
        for k, node in enumerate(self.leaf_node):
            if node == leaf:
                i = bisect_right(starts, k) - 1
                grad, before, now = summary(self.leaf_grad[k]), summary(self.leaf_before[k]), summary(self.leaf_now[k])
                out.append((first + i, LeafGrad(node, grad, before, now)))
        return out

    def nonfinite(self) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
        """Per step: whether its grad output, any of its grad inputs, any grad it added to a leaf
        holds a NaN or an Inf (a summary not yet made holds none)."""
        flagged = [r for r, s in enumerate(self.summaries) if s is not None and (s.nan_count or s.inf_count)]
        if not flagged:  # (the usual answer, without an array per column)
            none = np.zeros(len(self.node), dtype=bool)
            return none, none.copy(), none.copy()
        bad = np.zeros(len(self.summaries) + 1, dtype=bool)  # the last: NONE
        bad[flagged] = True
        return _flagged(
            bad,
            np.array(self.grad_output, dtype=np.int64),
            np.array(self.inputs, dtype=np.int64),
            np.array([*self.inputs_start, len(self.inputs)], dtype=np.int64),
            np.array(self.leaf_grad, dtype=np.int64),
            np.array([*self.leaves_start, len(self.leaf_node)], dtype=np.int64),
        )


def _any_per_row(flags: NDArray[np.bool_], starts: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Per row of a ragged column: whether any of its entries is set."""
    counts = np.add.reduceat(np.append(flags, False).astype(np.int64), starts[:-1]) if len(starts) > 1 else None
    if counts is None:
        return np.zeros(0, dtype=bool)
    counts[np.diff(starts) == 0] = 0  # reduceat gives an empty row the next entry
    return counts > 0


class StepTable(HeldRows[Step]):
    """`pass.steps`, read like the list of Steps it replaces: rows of StepColumns (a loaded pass's),
    then the rows a recording appends (`live()`, a LiveSteps), each made into a Step when read; or,
    after the columns, Steps appended as the objects (a cut of a pass, `until`). The scans below read
    the columns with NumPy and only the held steps one by one."""

    _what = "step"

    def __init__(self, columns: StepColumns | None = None, steps: Iterable[Step] = ()) -> None:
        super().__init__()
        self._columns = columns
        self._rows = 0 if columns is None else len(columns)
        self._count = self._rows
        self._live: LiveSteps | None = None
        self._leaf_index: tuple[tuple[int, int], dict[int, list[tuple[int, LeafGrad]]]] = ((-1, -1), {})
        for st in steps:
            self.append(st)

    def append(self, step: Step) -> None:
        """Add the next step, held as the object."""
        if self._live is not None:
            raise ValueError("a recording's step table takes its steps as rows (live())")
        self._held[self._count] = step
        self._count += 1

    def live(self) -> LiveSteps:
        """The rows a recording appends its steps to, after the columns' (made on first use)."""
        if self._live is None:
            if self._held:
                raise ValueError("a step table holding Steps as objects takes no rows after them")
            self._live = LiveSteps()
        return self._live

    def __len__(self) -> int:
        return self._count if self._live is None else self._rows + len(self._live.node)

    def _row(self, i: int) -> Step:
        if i >= self._rows:
            assert self._live is not None  # the rows after the columns' are the recording's
            return self._live.step(i - self._rows)
        assert self._columns is not None  # the rows before the held ones are the columns'
        return self._columns.step(i)

    def node_ids(self) -> list[int]:
        """Each step's node id, in order, read without making the Steps."""
        stored = [] if self._columns is None else self._columns.node[: self._rows].tolist()
        if self._live is not None:
            return stored + self._live.node.tolist()
        return stored + [self._held[i].node for i in range(self._rows, self._count)]

    def _held_steps(self) -> list[Step]:
        return [self._held[i] for i in range(self._rows, self._count)]

    def columns(self) -> StepColumns:
        """Every step as columns (the stored ones while none follows them; else made from the steps)."""
        if self._columns is not None and len(self) == self._rows:
            return self._columns
        return StepColumns.from_steps(list(self))

    def nonfinite(self) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
        """Per step: whether its grad output, any of its grad inputs, any grad it added to a leaf
        holds a NaN or an Inf."""
        held = self._held_steps()
        # (one walk of the held steps, a summary's counts read inline: a step costs no call but these)
        output, inputs, leaves = bytearray(len(held)), bytearray(len(held)), bytearray(len(held))
        for i, st in enumerate(held):
            s = st.grad_output
            if s is not None and (s.nan_count or s.inf_count):
                output[i] = 1
            for s in st.grad_inputs:
                if s is not None and (s.nan_count or s.inf_count):
                    inputs[i] = 1
                    break
            for lg in st.leaf_grads:
                s = lg.grad
                if s is not None and (s.nan_count or s.inf_count):
                    leaves[i] = 1
                    break
        parts = [np.frombuffer(flags, dtype=bool).copy() for flags in (output, inputs, leaves)]
        if self._live is not None:
            parts = [np.concatenate([r, h]) for r, h in zip(self._live.nonfinite(), parts)]
        if self._columns is not None:
            parts = [np.concatenate([c, h]) for c, h in zip(self._columns.nonfinite(), parts)]
        return parts[0], parts[1], parts[2]

    def leaf_grads_of(self, leaf: int) -> list[tuple[int, LeafGrad]]:
        """(step, its LeafGrad) of each grad accumulated into node `leaf`, in step order."""
        out = []
        c = self._columns
        if c is not None:
            at = np.flatnonzero(c.leaf_node == leaf)
            steps = np.searchsorted(c.leaves_start, at, side="right") - 1
            for k, i in zip(at.tolist(), steps.tolist()):
                out.append((i, c.step(i).leaf_grads[k - int(c.leaves_start[i])]))
        if self._live is not None:
            out += self._live.leaf_grads_of(leaf, self._rows)
        return out + self._held_leaf_grads().get(leaf, [])

    def _held_leaf_grads(self) -> dict[int, list[tuple[int, LeafGrad]]]:
        """leaf -> (step, LeafGrad) of the held steps, kept until a step is appended or the last
        one gains a leaf grad (a step paused at gains them after it was appended)."""
        last = self._held.get(self._count - 1)
        key = (self._count, len(last.leaf_grads) if last is not None else 0)
        if self._leaf_index[0] != key:
            table: dict[int, list[tuple[int, LeafGrad]]] = {}
            for i in range(self._rows, self._count):
                for lg in self._held[i].leaf_grads:
                    table.setdefault(lg.node, []).append((i, lg))
            self._leaf_index = (key, table)
        return self._leaf_index[1]

    def leaves(self) -> list[int]:
        """The leaves grads were accumulated into, each once, in the order of their first."""
        c = self._columns
        first = [] if c is None else c.leaf_node[np.sort(np.unique(c.leaf_node, return_index=True)[1])].tolist()
        live = [] if self._live is None else self._live.leaf_node.tolist()
        held = [lg.node for st in self._held_steps() for lg in st.leaf_grads]
        return list(dict.fromkeys(first + live + held))

    def until(self, cursor: int) -> StepTable:
        """The steps as a pause before step `cursor` knows them: those before it, then step `cursor`
        holding the grad it receives but nothing its backward passes on."""
        c = self._columns
        rows = min(cursor, self._rows)
        count = len(self)
        out = StepTable(None if c is None else c.head(rows), (self[i] for i in range(rows, min(cursor, count))))
        if cursor < count:
            current = self[cursor]
            out.append(Step(current.node, current.grad_output))
        return out


def step_table(steps: Sequence[Step]) -> StepTable:
    """A pass's steps as a StepTable (a list of Steps is wrapped, its objects held as they are)."""
    return steps if isinstance(steps, StepTable) else StepTable(steps=steps)


def step_columns(steps: Sequence[Step]) -> StepColumns:
    """A pass's steps as columns, whether a StepTable or a list of Steps."""
    return step_table(steps).columns()
