"""The cyclic garbage collector kept off the record's long-lived objects: paused while many are made, then
promoted to its oldest generation unscanned."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from ..snapshot.format import gc_paused


class Collector:
    """Python's cyclic garbage collector as one recording uses it: paused while materialising makes
    many long-lived objects and no cycles (a collector run again and again while they are made would
    scan them all each time: on a 100,000-node pass, most of the work), and what was made then moved
    to its oldest generation at once (`promote_young`)."""

    def __init__(self) -> None:
        # Whether the script was seen keeping objects frozen: promotion is skipped from then on, without
        # asking again (CPython counts frozen objects one by one: ~50 ms for 500,000, at every pass's end).
        self._frozen_seen = False
        self._paused = False  # by `pause` (a long taped backward), until `resume`

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Pause the collector (as the snapshot reader does, `gc_paused`), then promote what was made."""
        try:
            with gc_paused():
                yield
        finally:
            self.promote_young()

    def pause(self) -> None:
        """Pause the collector until `resume` (left as it is where the script had paused it)."""
        if gc.isenabled():
            gc.disable()
            self._paused = True

    def resume(self) -> None:
        """Where `pause` paused the collector: promote what was made since (`promote_young`) and let it
        run again (nothing otherwise: safe to call at any pass's end, or the run's)."""
        if self._paused:
            self._paused = False
            self.promote_young()
            gc.enable()

    def promote_young(self) -> None:
        """Move every object the collector tracks into its oldest generation, unscanned: the record's new
        summaries, steps and changes live as long as the record, and young collections scanning them,
        then the full ones their promotion brings on (one was a tenth of a run with every pass kept),
        would find nothing. gc.freeze and gc.unfreeze do it in two list splices, and do not count the
        objects toward the next full collection; a young cycle of garbage moved with them is collected
        by that one. Skipped once the script is seen keeping objects frozen (unfreezing would thaw them;
        should it thaw them itself later, promotion stays off: slower collections, never a thawed object)."""
        if self._frozen_seen:
            return
        if gc.get_freeze_count():
            self._frozen_seen = True
            return
        gc.freeze()
        gc.unfreeze()
