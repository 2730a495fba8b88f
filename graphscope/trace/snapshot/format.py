"""The snapshot format's shared terms: its name and version, bounds, the error a reader raises."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

FORMAT = "graphscope-snapshot"
# 2: nodes.args (non-tensor arguments). 3: nodes.leaf, leaf grads before/now, optimizer events.
# 4: strings; nodes and tensors as base64 columns (the record's own, `record/node_fields.py`). 5: console lines'
# step and events (when each was written). 6: backward steps as columns (`record/step_table.py`). 7: the training
# series (`record/training.py`, every pass's figures). 8: the statistics and histograms of tensors whose values it
# holds, where derived from them bit for bit, left out (`snapshot/derived_stats.py`). Files of every earlier version
# still load.
VERSION = 8
COLUMNS_VERSION = 4  # the first version whose nodes and tensors are binary columns
CONSOLE_STAMPS_VERSION = 5  # the first whose console lines say when they were written (step, events)
STEPS_VERSION = 6  # the first whose backward steps are binary columns
TRAINING_VERSION = 7  # the first with the training series (earlier ones rebuild it from their passes)
DERIVED_VERSION = 8  # the first that leaves out statistics derived from the values (the tensors' "derived")

MAX_NDIM = 64
MAX_ELEMENTS = 2**62  # of one tensor (so also each of its dims, its NaN and Inf counts)
FLOAT_MAX = int(sys.float_info.max)


class SnapshotError(Exception):
    """A snapshot that cannot be read: which file, where in it, and what is wrong."""

    def __init__(self, file: str, where: str, problem: str):
        self.file, self.where, self.problem = str(file), where, problem
        place = f"{self.file}: {where}: " if where else f"{self.file}: "
        super().__init__(place + problem)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector while building or parsing many small containers
    (none of them cyclic), which otherwise rescans the whole heap again and again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
