"""Rows of a batch's columns (SummaryRow): read as the TensorSummary they stand for, packed into the
same table column for column, dropped as a summary is, and what recording keeps for a node's output."""

import numpy as np
import pytest

import graphscope as gs
from graphscope import nn, optim
from graphscope.engine import hooks
from graphscope.trace.record.live_columns import LiveSummaries
from graphscope.trace.record.summary_rows import BatchColumns, SummaryRow, packed
from graphscope.trace.record.summary_table import SummaryTable
from graphscope.trace.record.tensor_summary import TensorSummary
from graphscope.trace.recording.recorder import Policy, Recorder
from graphscope.trace.stats.summarize import summarize, summarize_rows


def made(items):
    return [s.summary() if isinstance(s, SummaryRow) else s for s in items]


def mixed(limit=4096):
    """Batch rows of two dtypes (one element, a preview's worth, more than the limit) between
    summaries of arrays summarised one by one (integers, a NaN)."""
    rng = np.random.default_rng(1)
    return summarize_rows(
        [
            np.arange(6, dtype=np.int64).reshape(2, 3),
            rng.standard_normal((8, 16)).astype(np.float32),
            np.array([2.5], dtype=np.float32),
            rng.standard_normal(100),
            np.array([1.0, np.nan], dtype=np.float32),
            np.zeros((3, 3), dtype=np.float32),
            rng.standard_normal((2, 40)).astype(np.float16),
        ],
        limit,
    )


@pytest.mark.parametrize("limit", [4096, 50])
def test_a_batch_row_reads_as_the_summary_of_its_array(limit):
    items = mixed(limit)
    assert [type(s) for s in items].count(SummaryRow) == 5
    a = np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32)
    row, alone = items[1].summary(), summarize(a, limit)
    assert (row.shape, row.dtype, row.numel, row.min, row.max) == (alone.shape, alone.dtype, 128, a.min(), a.max())
    assert row.mean == pytest.approx(alone.mean) and row.std == pytest.approx(alone.std)
    assert np.array_equal(row.preview, alone.preview) and np.array_equal(row.histogram, alone.histogram)
    assert (row.values is None) == (limit < 128) and (row.values is None or np.array_equal(row.values, a))
    assert items[1].summary() is row  # made once
    assert all(s.captured_bytes == m.captured_bytes for s, m in zip(items, made(items)))


def _columns(table):
    return {name: getattr(table, name) for name in SummaryTable.__slots__ if not name.startswith("_")}


@pytest.mark.parametrize("limit", [4096, 50])
def test_batch_rows_pack_into_the_table_their_summaries_make(limit):
    items = mixed(limit)
    items[1].drop_values()  # dropped before it was read
    items[3].summary()
    items[3].drop_values()  # and after
    rows = packed(items)
    objects = SummaryTable.from_summaries(made(items))
    for name, column in _columns(objects).items():
        ours = _columns(rows)[name]
        if isinstance(column, dict):
            assert ours.keys() == column.keys(), name
            for k in column:
                assert np.array_equal(ours[k], column[k], equal_nan=True) and ours[k].dtype == column[k].dtype, name
        elif isinstance(column, list):
            assert ours == column, name
        else:
            assert ours.dtype == column.dtype and np.array_equal(ours, column, equal_nan=True), name
    assert [rows[i] for i in range(len(items))] == made(items)


def test_a_dropped_row_counts_its_bytes_once_and_reads_as_dropped():
    (row,) = summarize_rows([np.arange(10, dtype=np.float32)])
    assert row.captured_bytes == 40 and row.drop_values() == 40 and row.drop_values() == 0
    s = row.summary()
    assert s.dropped and s.preview.size == 0 and s.values is None and s.mean == 4.5


def test_live_summaries_read_a_row_as_its_summary_and_pack_it():
    items = mixed()
    live = LiveSummaries()
    live.extend(items)
    assert [live[r] for r in range(len(items))] == made(items)
    assert live.value_bytes(1) == made(items)[1].captured_bytes
    assert live.nonfinite().tolist() == [s.has_nonfinite for s in made(items)]
    table = live.table()
    assert [table[r] for r in range(len(items))] == made(items)


def test_a_recorded_node_output_is_kept_as_a_row_never_made_a_summary(monkeypatch):
    made_rows = []
    summary = BatchColumns.summary
    monkeypatch.setattr(BatchColumns, "summary", lambda self, k: made_rows.append(k) or summary(self, k))
    gs.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
    sgd = optim.SGD(model.parameters(), lr=0.1)
    x, y = gs.randn(16, 2), gs.randn(16, 1)
    recorder = Recorder(Policy.every_pass())
    with hooks.observe(recorder):
        for _ in range(3):
            loss = nn.MSELoss()(model(x), y)
            sgd.zero_grad()
            loss.backward()
            sgd.step()
    recorder.flush()
    made_rows.clear()
    live = recorder.record.nodes.live()
    outputs = [live.output[r] for r in live.rows() if live.output[r] >= 0]
    table = live.summaries.table()
    assert made_rows == [] and len(table) >= len(set(outputs)) > 10
    relu = next(n for n in recorder.record.nodes.values() if n.op == "relu")
    assert relu.output.shape == (16, 8) and relu.output.values is not None


def test_arrays_not_wanted_as_rows_come_back_as_summaries_made_at_once():
    arrays = [np.arange(4, dtype=np.float32), np.ones((2, 2), dtype=np.float32), np.array([1.0, np.inf], np.float32)]
    items = summarize_rows(arrays, 4096, [True, False, True])
    assert [type(s) for s in items] == [SummaryRow, TensorSummary, TensorSummary]  # (the Inf: summarised alone)
    assert items[1] == summarize_rows(arrays, 4096)[1].summary()
    assert [type(s) for s in summarize_rows(arrays[:2], 4096, [False, False])] == [TensorSummary, TensorSummary]
