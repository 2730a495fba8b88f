"""A long pass's small float node outputs are summarised as the rows of one table, with no summary object
each: the same rows, bit for bit, as their summaries made one by one and packed."""

import dataclasses
from unittest import mock

import numpy as np
import pytest

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.record.summary_table import SummaryTable
from graphscope.trace.recording import summary_batches
from graphscope.trace.recording.recorder import Policy, Recorder
from graphscope.trace.stats.batched import summary_rows
from graphscope.trace.stats.summarize import summarize_many

COLUMNS = ("dims_start", "dims", "numel", "dtype", "device", "stats", "nan", "inf", "histogram", "held", "start")


def _arrays(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes = [(64, 16), (16,), (16, 2), (1,), (), (3, 1, 2), (7,)]
    level = [np.zeros(5, np.float32), np.ones(4, np.float32)]
    return [rng.standard_normal(s).astype(np.float32) for s in shapes] + level


def test_the_table_rows_are_the_summaries_packed_bit_for_bit():
    arrays = _arrays()
    table = summary_rows(arrays)
    expected = SummaryTable.from_summaries(summarize_many(arrays))
    assert table is not None
    for name in COLUMNS:
        got, want = getattr(table, name), getattr(expected, name)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), name
    assert (table.dtypes, table.devices, table.exact) == (expected.dtypes, expected.devices, expected.exact)
    assert table.pools.keys() == expected.pools.keys()
    assert all(table.pools[k].tobytes() == expected.pools[k].tobytes() for k in table.pools)


def test_arrays_holding_a_nan_or_an_inf_make_no_table():
    arrays = _arrays()
    arrays[3] = np.array([np.inf], np.float32)
    assert summary_rows(arrays) is None


def _chain():
    """A chain long enough for a batch of table rows, with leaves, an array constant, a 2-D relu and a NaN
    between its ops (each summarised apart, in the rows' order)."""
    gs.manual_seed(0)
    x = gs.randn(8, requires_grad=True)
    y = x
    for k in range(5000):
        y = (y * 1.0001).tanh()
        if k % 97 == 0:
            y = y + gs.randn(8, requires_grad=True)  # a fresh leaf: its copy's summary is shared, so apart
        if k % 211 == 0:
            y = y * np.full(8, 0.5)  # an array constant: a node of its own
        if k % 307 == 0:
            y = (y.reshape(2, 4).relu() + 1.0).reshape(8)
        if k == 4900:
            y = y + (y * 0.0 + float("nan")).sum() * 0.0  # a NaN: its batch summarised one by one
            y = gs.where(gs.isnan(y), gs.zeros(8), y)
    y.sum().backward()


def _export(policy: Policy) -> str:
    recorder = Recorder(policy)
    with hooks.observe(recorder):
        _chain()
    rec = recorder.finish(0)
    rec.metadata = dataclasses.replace(rec.metadata, started="", finished="")
    return snapshot.dumps(rec)


@pytest.mark.parametrize("budget", [512 * 2**20, 40_000], ids=["all values", "past the memory budget"])
def test_a_long_pass_exports_the_same_as_with_a_summary_made_for_each_output(budget):
    policy = Policy(memory_budget=budget)
    made = []

    def counted(arrays):
        table = summary_rows(arrays)
        made.append(table is not None)
        return table

    with mock.patch.object(summary_batches, "summary_rows", counted):
        as_rows = _export(policy)
    with mock.patch.object(summary_batches, "TABLE_ROWS", 10**9):
        one_by_one = _export(policy)
    assert True in made and False in made  # the rows' path taken, and left for a batch with a NaN
    assert as_rows == one_by_one
