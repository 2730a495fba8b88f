"""The snapshot format of version 7 (every tensor's statistics and histogram stored, none derived from its
values), made from a record: the tests check that such files still load."""

from __future__ import annotations

import json
from unittest import mock

import numpy as np

from graphscope.trace import snapshot
from graphscope.trace.snapshot import columns_write


def every_figure_stored(record) -> dict:
    """The record's current document as a writer that derives no statistic writes it."""
    with mock.patch.object(columns_write, "agreeing", lambda t: np.zeros(len(t), dtype=bool)):
        return json.loads(snapshot.dumps(record))


def as_version_7(record) -> dict:
    """The record's document as version 7 wrote it: every figure stored, no "derived" column."""
    doc = every_figure_stored(record)
    del doc["tensors"]["derived"]
    doc["version"] = 7
    return doc
