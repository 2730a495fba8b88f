"""PassHistory: a recording's backward passes, those out of the detail window kept as rows of columns."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence

from .held_rows import HeldRows
from .model import BackwardPass

_NO_LOSS = float("-inf")  # stands for None in the loss column; a real -inf loss is flagged apart


class PassHistory(HeldRows[BackwardPass]):
    """`record.passes` of a live recording, read like the list it replaces.

    A pass held in detail (or not yet trimmed) is a BackwardPass object; `compact(i)` turns a
    trimmed one into a row: its loss, node count, finished flag and grad norms in columns of
    machine numbers (about 40 bytes a pass and 8 a parameter, where an object took 350 and more),
    made into a BackwardPass again when read. So a million passes fit in tens of megabytes.
    """

    _what = "pass"

    def __init__(self) -> None:
        super().__init__()  # _held: index -> BackwardPass
        self._loss = array("d")
        self._flags = bytearray()  # bit 0: finished, bit 1: the loss is a real -inf
        self._nodes = array("q")
        self._norm_names = array("i")  # index into _name_sets, per pass
        self._norm_start = array("q")  # first of its values in _norm_values, per pass
        self._norm_values = array("d")
        self._name_sets: list[tuple[str, ...]] = []
        self._name_set_ids: dict[tuple[str, ...], int] = {}

    def append(self, p: BackwardPass) -> None:
        """Add the next pass (its index is its position), held as the object until compacted."""
        self._held[len(self._loss)] = p
        self._loss.append(_NO_LOSS)
        self._flags.append(0)
        self._nodes.append(0)
        self._norm_names.append(0)
        self._norm_start.append(len(self._norm_values))

    def compactable(self, index: int) -> bool:
        """Whether pass `index` is held and would read back the same as a row: no detail left,
        and its own index where it stands."""
        p = self._held.get(index)
        return p is not None and p.index == index and not p.detailed and p.root is None and not p.order and not p.steps

    def compact(self, index: int) -> None:
        """Keep pass `index` (trimmed: no root, order or steps) as a row from now on."""
        p = self._held.pop(index, None)
        if p is None:
            return
        loss = p.loss
        self._loss[index] = _NO_LOSS if loss is None else loss
        self._flags[index] = int(p.finished) | (2 if loss == _NO_LOSS else 0)
        self._nodes[index] = p.node_count
        names = tuple(p.grad_norms)
        set_id = self._name_set_ids.get(names)
        if set_id is None:
            set_id = self._name_set_ids[names] = len(self._name_sets)
            self._name_sets.append(names)
        self._norm_names[index] = set_id
        self._norm_start[index] = len(self._norm_values)
        self._norm_values.extend(p.grad_norms.values())

    def __len__(self) -> int:
        return len(self._loss)

    def held(self) -> list[BackwardPass]:
        """The passes held as objects, in order: the only ones that can hold steps (a row has none)."""
        return [self._held[i] for i in sorted(self._held)]

    def grad_norm_rows(self) -> Iterator[tuple[int, Iterable[tuple[str, float]]]]:
        """(index, its (parameter, grad norm) pairs) of every pass in order, a row's read from the
        columns without making its pass."""
        held, name_sets, names_of, starts, values = (
            self._held,
            self._name_sets,
            self._norm_names,
            self._norm_start,
            self._norm_values,
        )
        for i in range(len(self._loss)):
            p = held.get(i)
            if p is not None:
                yield p.index, p.grad_norms.items()
            else:
                names = name_sets[names_of[i]]
                start = starts[i]
                yield i, zip(names, values[start : start + len(names)])

    def _row(self, i: int) -> BackwardPass:
        loss, flags = self._loss[i], self._flags[i]
        names = self._name_sets[self._norm_names[i]]
        start = self._norm_start[i]
        return BackwardPass(
            i,
            loss=None if loss == _NO_LOSS and not flags & 2 else loss,
            grad_norms=dict(zip(names, self._norm_values[start : start + len(names)])),
            node_count=self._nodes[i],
            detailed=False,
            finished=bool(flags & 1),
        )


def with_steps(passes: Sequence[BackwardPass]) -> Iterator[BackwardPass]:
    """The passes that hold backward steps, in order (of a PassHistory, only its held passes are read)."""
    return (p for p in (passes.held() if isinstance(passes, PassHistory) else passes) if p.steps)


def grad_norms_by_pass(passes: Sequence[BackwardPass]) -> Iterator[tuple[int, Iterable[tuple[str, float]]]]:
    """(index, its (parameter, grad norm) pairs) of every pass in order (a PassHistory's rows read
    from its columns)."""
    if isinstance(passes, PassHistory):
        return passes.grad_norm_rows()
    return ((p.index, p.grad_norms.items()) for p in passes)
