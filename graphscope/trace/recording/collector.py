"""The cyclic garbage collector kept off the record's long-lived objects: paused while many are made, then
promoted to its oldest generation unscanned."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from ..snapshot.format import gc_paused


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (as the snapshot reader does, `gc_paused`): materialising
    makes many long-lived objects and no cycles, and a collector run again and again while they are
    made would scan them all each time (on a 100,000-node pass, most of the work). After, what was
    made goes to the oldest generation at once (`promote_young`)."""
    try:
        with gc_paused():
            yield
    finally:
        promote_young()


def pause() -> bool:
    """Pause the collector; whether it ran (only then is `resume` to be called)."""
    enabled = gc.isenabled()
    gc.disable()
    return enabled


def resume() -> None:
    """Promote what was made while paused (`promote_young`) and let the collector run again."""
    promote_young()
    gc.enable()


def promote_young() -> None:
    """Move every object the collector tracks into its oldest generation, unscanned: the record's new
    summaries, steps and changes live as long as the record, and young collections scanning them,
    then the full ones their promotion brings on (one was a tenth of a run with every pass kept),
    would find nothing. gc.freeze and gc.unfreeze do it in two list splices, and do not count the
    objects toward the next full collection; a young cycle of garbage moved with them is collected
    by that one. Skipped while the script keeps objects frozen (unfreezing would thaw them)."""
    if not gc.get_freeze_count():
        gc.freeze()
        gc.unfreeze()
