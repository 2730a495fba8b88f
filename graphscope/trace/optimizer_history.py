"""OptimizerHistory: a recording's optimizer events, those without parameters kept as rows of columns."""

from __future__ import annotations

from array import array

from .held_rows import HeldRows
from .record import OptimizerEvent

_WIDE = 255  # in a byte column: the value did not fit, look in the column's dict
_MARK_EVERY = 64


class OptimizerHistory(HeldRows):
    """`record.optimizer` of a live recording, read like the list it replaces.

    An event with parameters (its pass is kept in detail, or not yet trimmed) is an
    OptimizerEvent object; `compact(i)` turns one without them (a light row) into two bytes:
    its backward passes as the difference from the previous event's, and its kind (kind,
    optimizer, settings and site, each such combination stored once). A training loop's
    events take a few bytes a step.
    """

    _what = "optimizer event"

    def __init__(self):
        super().__init__()  # _held: index -> OptimizerEvent
        self._delta = bytearray()        # passes minus the previous event's
        self._wide_passes: dict[int, int] = {}
        self._marks = array("q")         # the passes of every 64th event, to read the deltas from
        self._last = 0
        self._kinds = bytearray()        # index into _kind_list
        self._wide_kinds: dict[int, int] = {}
        self._kind_list: list[tuple] = []
        self._kind_ids: dict[tuple, int] = {}

    def append(self, event: OptimizerEvent) -> None:
        """Add the next event, held as the object until compacted."""
        i = len(self._delta)
        self._held[i] = event
        delta = event.passes - self._last
        if 0 <= delta < _WIDE:
            self._delta.append(delta)
        else:
            self._delta.append(_WIDE)
            self._wide_passes[i] = event.passes
        if i % _MARK_EVERY == 0:
            self._marks.append(event.passes)
        self._last = event.passes
        self._kinds.append(0)

    def compact(self, index: int, drop_params: bool = False) -> None:
        """Keep event `index` as a row from now on, once it has no parameters (with
        `drop_params`: dropping them; an object read before keeps them)."""
        event = self._held.get(index)
        if event is None or event.params and not drop_params:
            return
        del self._held[index]
        # Settings and sites are shared objects (made once by the recorder): keyed by identity,
        # which the kind list keeps alive, instead of hashing them again for every event.
        key = (event.kind, event.optimizer, id(event.settings), id(event.site))
        kind = self._kind_ids.get(key)
        if kind is None:
            kind = self._kind_ids[key] = len(self._kind_list)
            self._kind_list.append((event.kind, event.optimizer, event.settings, event.site))
        if kind < _WIDE:
            self._kinds[index] = kind
        else:
            self._kinds[index] = _WIDE
            self._wide_kinds[index] = kind

    def __len__(self) -> int:
        return len(self._delta)

    def _passes(self, i: int) -> int:
        mark = i - i % _MARK_EVERY
        passes = self._marks[mark // _MARK_EVERY]
        delta, wide = self._delta, self._wide_passes
        for j in range(mark + 1, i + 1):
            d = delta[j]
            passes = wide[j] if d == _WIDE else passes + d
        return passes

    def _row(self, i: int) -> OptimizerEvent:
        kind = self._kinds[i]
        kind, optimizer, settings, site = self._kind_list[self._wide_kinds[i] if kind == _WIDE else kind]
        return OptimizerEvent(kind, self._passes(i), optimizer, settings, site)
