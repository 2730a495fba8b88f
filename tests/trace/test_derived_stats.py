"""Version 8 leaves out the statistics and histograms its values derive, and a reader derives them bit for
bit as recorded; a version 7 file, every statistic stored, still loads as its record."""

import base64
import json

import numpy as np
import pytest

import graphscope as gs
from graphscope.trace import snapshot
from tests.trace.snapshot_v7 import as_version_7, every_figure_stored
from tests.trace.trace_helpers import recorded


def _chain():
    """A recorded chain of small float tensors (each kept whole), with its backward pass."""

    def run():
        h = gs.tensor([1.0, -2.0, 3.0], requires_grad=True)
        for _ in range(300):
            h = h * 0.9999 + 0.001
        h.sum().backward()

    return recorded(run)[1]


def _table(text):
    return snapshot.loads(text).nodes.columns().summaries


def test_a_chain_of_small_tensors_leaves_their_figures_out_and_reads_them_back_bit_for_bit():
    record = _chain()
    text = snapshot.dumps(record)
    derived = np.frombuffer(base64.b64decode(json.loads(text)["tensors"]["derived"]["data"]), np.uint8)
    assert derived.size > 900 and derived.all()  # every node's output and every grad: 3 values each
    stored = _table(json.dumps(every_figure_stored(record)))
    read = _table(text)
    assert np.array_equal(read.stats.view(np.int64), stored.stats.view(np.int64))
    assert np.array_equal(read.histogram, stored.histogram)
    assert snapshot.loads(text) == record
    assert len(text) < 0.5 * len(json.dumps(every_figure_stored(record)))


def test_a_row_read_alone_derives_its_figures_as_the_whole_column_does():
    text = snapshot.dumps(_chain())
    alone = [_table(text)[i] for i in (0, 5, 700)]
    table = _table(text)
    assert table.stats.shape == (len(table), 6)  # every row derived at once
    assert all(a == table[i] for a, i in zip(alone, (0, 5, 700)))


def test_a_version_7_file_with_every_figure_stored_loads_as_the_record():
    record = _chain()
    assert snapshot.loads(json.dumps(as_version_7(record))) == record


def test_figures_left_out_of_a_tensor_whose_values_are_not_all_held_are_refused_with_the_place():
    doc = json.loads(snapshot.dumps(_chain()))
    held = doc["tensors"]["held"]
    flags = np.frombuffer(base64.b64decode(held["data"]), np.dtype(held["dtype"])).copy()
    flags[4] = 0  # row 4 now says it holds a preview (of its 3 values: as many), not every value
    held["data"] = base64.b64encode(flags.tobytes()).decode()
    with pytest.raises(snapshot.SnapshotError) as refused:
        snapshot.loads(json.dumps(doc))
    assert refused.value.where == "tensors.derived[4]" and "cannot be derived" in refused.value.problem


def test_a_version_8_file_without_the_derived_column_is_refused_with_the_place():
    doc = json.loads(snapshot.dumps(_chain()))
    del doc["tensors"]["derived"]
    with pytest.raises(snapshot.SnapshotError) as refused:
        snapshot.loads(json.dumps(doc))
    assert refused.value.where == "tensors" and refused.value.problem == 'missing "derived"'
