"""OptimizerHistory: a recording's optimizer events as rows of columns, those with parameters held as objects."""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence

from .held_rows import HeldRows
from .model import OptimizerEvent, ParamChange, SourceSite

_WIDE = 255  # in a byte column: the value did not fit, look in the column's dict
_MARK_EVERY = 16
_Settings = tuple[tuple[str, str], ...]  # OptimizerEvent.settings


class OptimizerHistory(HeldRows[OptimizerEvent]):
    """`record.optimizer` of a live recording, read like the list it replaces.

    Every event is a row of two bytes: its backward passes as the difference from the previous
    event's, and its kind (kind, optimizer, settings and site, each such combination stored
    once). A training loop's events take a few bytes a step. An event given parameters (its
    pass is kept in detail) is also held as an OptimizerEvent object, until `compact(i)` lets
    go of it; the recorder adds rows and holds only what it keeps.
    """

    _what = "optimizer event"

    def __init__(self) -> None:
        super().__init__()  # _held: index -> OptimizerEvent
        self._delta = bytearray()  # passes minus the previous event's
        self._wide_passes: dict[int, int] = {}
        self._marks = array("q")  # the passes of every 16th event, to read the deltas from
        self._last = 0
        self._kinds = bytearray()  # index into _kind_list
        self._wide_kinds: dict[int, int] = {}
        self._kind_list: list[tuple[str, str, _Settings, SourceSite | None]] = []
        self._kind_ids: dict[tuple[str, str, int, int], int] = {}

    def add(self, kind: str, passes: int, optimizer: str, settings: _Settings, site: SourceSite | None) -> int:
        """Add the next event as a row (no object); its index."""
        i = len(self._delta)
        delta = passes - self._last
        if 0 <= delta < _WIDE:
            self._delta.append(delta)
        else:
            self._delta.append(_WIDE)
            self._wide_passes[i] = passes
        if i % _MARK_EVERY == 0:
            self._marks.append(passes)
        self._last = passes
        # Settings and sites are shared objects (made once by the recorder): keyed by identity,
        # which the kind list keeps alive, instead of hashing them again for every event.
        key = (kind, optimizer, id(settings), id(site))
        k = self._kind_ids.get(key)
        if k is None:
            k = self._kind_ids[key] = len(self._kind_list)
            self._kind_list.append((kind, optimizer, settings, site))
        if k < _WIDE:
            self._kinds.append(k)
        else:
            self._kinds.append(_WIDE)
            self._wide_kinds[i] = k
        return i

    def append(self, event: OptimizerEvent) -> None:
        """Add the next event, held as the object until compacted."""
        self._held[self.add(event.kind, event.passes, event.optimizer, event.settings, event.site)] = event

    def detail(self, index: int) -> OptimizerEvent:
        """Event `index` held as an object from now on (to add its parameters to)."""
        event = self._held.get(index)
        if event is None:
            event = self._held[index] = self._row(index)
        return event

    def held(self, index: int) -> OptimizerEvent | None:
        """Event `index`'s object, while it is held."""
        return self._held.get(index)

    def compact(self, index: int, drop_params: bool = False) -> None:
        """Keep event `index` as a row from now on, once it has no parameters (with
        `drop_params`: dropping them; an object read before keeps them)."""
        event = self._held.get(index)
        if event is not None and (drop_params or not event.params):
            del self._held[index]

    def __len__(self) -> int:
        return len(self._delta)

    def __iter__(self) -> Iterator[OptimizerEvent]:
        for i, passes, event in self._walk():
            yield event if event is not None else self._made(i, passes)

    def kinds(self) -> Iterator[tuple[str, int, SourceSite | None, list[ParamChange]]]:
        """(kind, passes, site, parameters) of every event in order, a row's without making its event."""
        kinds, wide_kinds, kind_list = self._kinds, self._wide_kinds, self._kind_list
        for i, passes, event in self._walk():
            if event is not None:
                yield event.kind, event.passes, event.site, event.params
            else:
                k = kinds[i]
                kind, _, _, site = kind_list[wide_kinds[i] if k == _WIDE else k]
                yield kind, passes, site, []

    def _walk(self) -> Iterator[tuple[int, int, OptimizerEvent | None]]:
        """(index, passes, the held event or None) of every event in order, the passes read from the
        deltas as it goes (not from the last mark each time)."""
        held, delta, wide = self._held, self._delta, self._wide_passes
        passes = 0
        for i in range(len(delta)):
            d = delta[i]
            passes = wide[i] if d == _WIDE else passes + d
            yield i, passes, held.get(i)

    def _passes(self, i: int) -> int:
        mark = i - i % _MARK_EVERY
        passes = self._marks[mark // _MARK_EVERY]
        delta, wide = self._delta, self._wide_passes
        for j in range(mark + 1, i + 1):
            d = delta[j]
            passes = wide[j] if d == _WIDE else passes + d
        return passes

    def _row(self, i: int) -> OptimizerEvent:
        return self._made(i, self._passes(i))

    def _made(self, i: int, passes: int) -> OptimizerEvent:
        k = self._kinds[i]
        kind, optimizer, settings, site = self._kind_list[self._wide_kinds[i] if k == _WIDE else k]
        return OptimizerEvent(kind, passes, optimizer, settings, site)


def event_kinds(events: Sequence[OptimizerEvent]) -> Iterator[tuple[str, int, SourceSite | None, list[ParamChange]]]:
    """(kind, passes, site, parameters) of every event in order (an OptimizerHistory's rows read from
    its columns)."""
    if isinstance(events, OptimizerHistory):
        return events.kinds()
    return ((e.kind, e.passes, e.site, e.params) for e in events)
