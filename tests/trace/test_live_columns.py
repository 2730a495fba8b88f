"""The columns a live recording appends to: rows read back as the Nodes and summaries put in, packed
summaries drop their values, deleted rows let go of theirs, and the columns equal those of the Nodes."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace.record import live_columns
from graphscope.trace.record.live_columns import LiveNodes, LiveSummaries
from graphscope.trace.record.model import Node, SourceSite
from graphscope.trace.record.node_fields import ROW
from graphscope.trace.record.node_table import (
    IS_LEAF,
    NONE,
    REQUIRES_GRAD,
    NodeColumns,
    NodeTable,
)
from graphscope.trace.record.summary_table import SummaryTable
from graphscope.trace.recording.recorder import Recorder
from graphscope.trace.stats.summarize import summarize
from tests.trace.trace_strategies import summaries


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(summaries(), max_size=12), st.integers(1, 5))
def test_summaries_read_back_packed_or_not(items, pack):
    live = LiveSummaries()
    old, live_columns.PACK = live_columns.PACK, pack
    try:
        rows = [live.add(s) for s in items]
    finally:
        live_columns.PACK = old
    assert rows == list(range(len(items)))
    assert [live[r] for r in rows] == items
    table = live.table()
    assert [table[r] for r in rows] == items and [live[r] for r in rows] == items


def test_a_dropped_packed_row_reads_as_dropped_and_its_pool_shrinks_at_half():
    items = [summarize(np.arange(10.0) + k) for k in range(4)]
    table = SummaryTable.from_summaries(items)
    live = LiveSummaries()
    live.extend(items)
    live._pack()
    assert live.value_bytes(0) == 80 and live.drop(0) == 80 and live.drop(0) == 0
    assert live[0].dropped and live[0].preview.size == 0 and live[0].mean == items[0].mean
    assert live[1] == table[1] and live.table().pools["float64"].size == 30
    live.drop(1)
    live.drop(2)  # more than half dropped: the pool is repacked
    assert live._tables[0].pools["float64"].size == 10 and live[3] == items[3]


def test_take_and_concat_keep_each_row():
    items = [summarize(np.arange(k + 1, dtype=np.float32)) for k in range(5)] + [summarize(np.ones(3, np.int64))]
    table = SummaryTable.from_summaries(items)
    taken = table.take([5, 0, 3])
    assert [taken[i] for i in range(3)] == [items[5], items[0], items[3]]
    both = SummaryTable.concat_all([taken, table])
    assert [both[i] for i in range(len(both))] == [items[5], items[0], items[3], *items]


def _site():
    return SourceSite("train.py", 3, "<module>", "y = w * x")


def _row(nid, op="exp", **values):
    """A row as the recorder adds it (`node_fields.ROW`), the columns not given as an exp node's."""
    given = {
        "id": nid,
        "op": op,
        "name": "ExpBackward0",
        "inputs": (),
        "pass_index": 0,
        "flags": REQUIRES_GRAD,
        "parameter": None,
        "module": "model",
        "site": _site(),
        "saved": (),
        "args": (),
        **values,
    }
    return tuple(given.get(name, NONE) for name in ROW)


def test_rows_read_back_as_nodes_and_columns_as_those_of_the_nodes():
    live = LiveNodes()
    live.extend(
        [
            _row(3, "parameter", flags=REQUIRES_GRAD | IS_LEAF, parameter="w", leaf=3),
            _row(4, inputs=(3,), saved=("output",), args=(("dim", "1"),)),
        ]
    )
    live.extend([_row(9, "relu", inputs=(4, 3))])
    live.set_output(0, summarize(np.arange(3.0)))
    live.set_outputs([2], [summarize(np.zeros((2, 2)))])
    live.set_dead(2, (1, 2))
    nodes = [live.node(live.row(k)) for k in (3, 4, 9)]
    assert nodes[1] == Node(
        4, "exp", "ExpBackward0", (3,), 0, None, True, False, None, "model", _site(), ("output",), None, (("dim", "1"),)
    )
    assert nodes[0].leaf == 3 and nodes[0].is_leaf and nodes[2].dead_units == (1, 2)
    assert live.row(5) is None and live.row(10) is None and live.row("3") is None
    expected = NodeTable(columns=NodeColumns.from_nodes(nodes))
    assert NodeTable(columns=live.columns()) == expected


def test_a_row_of_the_wrong_length_is_refused_not_shifted():
    live = LiveNodes()
    with pytest.raises(ValueError, match="a node row has"):
        live.extend([_row(1)[:-1]])
    assert len(live) == 0


def test_sites_are_coded_by_value_whether_their_objects_are_met_again_or_made_anew():
    kept = SourceSite("train.py", 7, "step", "loss.backward()")
    sites = [None if k % 3 == 0 else kept if k % 3 == 1 else _site() for k in range(300)]  # 100 made anew
    live = LiveNodes()
    for start in range(0, 300, 10):
        live.extend([_row(k, name="", flags=0, module=None, site=sites[k]) for k in range(start, start + 10)])
    assert live.sites == [kept, _site()]
    assert live.site.tolist() == [NONE, 0, 1] * 100
    assert [live.node(r).site for r in range(300)] == sites


def test_a_deleted_row_goes_and_its_output_values_with_it_unless_shared():
    live = LiveNodes()
    live.extend([_row(1), _row(2), _row(3)])
    s = live.set_output(0, summarize(np.arange(4.0)))
    live.share_output(1, s)
    live.set_output(2, summarize(np.ones(2)))
    live.delete(0)
    assert not live.summaries[s].dropped and live.row(2) == 1 and live.row(1) is None
    live.delete(1)
    assert live.summaries[s].dropped
    c = live.columns()
    assert c.id.tolist() == [3] and len(c.summaries) == 1 and c.node(0).output == summarize(np.ones(2))


def _recorded():
    recorder = Recorder()
    with hooks.observe(recorder):
        x = gs.ones(4, requires_grad=True)
        (x.exp() * 2).relu().sum().backward()
    return recorder.finish(0)


def test_a_recorded_record_is_live_columns_and_reads_as_its_nodes():
    record = _recorded()
    nodes = record.nodes
    assert nodes._live is not None and not nodes._loose
    objects = NodeTable(columns=NodeColumns.from_nodes(list(nodes.values())))
    assert NodeTable(columns=nodes.columns()) == objects == nodes


def test_a_node_read_from_a_live_row_keeps_a_readers_change_until_the_recorder_changes_the_table():
    record = _recorded()
    nodes = record.nodes
    first = next(iter(nodes))
    node = nodes[first]
    node.parameter = "renamed"
    assert nodes[first] is node and nodes[first].parameter == "renamed"
    assert nodes.columns().node(0).parameter == "renamed"  # the changed Node is in the columns too
    nodes.live().set_dead(0, (0, 4))
    assert nodes[first] is not node and nodes[first].parameter != "renamed"


def test_deleted_rows_are_left_out_once_over_half_and_ids_still_find_their_rows(monkeypatch):
    monkeypatch.setattr(live_columns, "COMPACT_ROWS", 2)
    live = LiveNodes()
    live.extend([_row(k, inputs=(k - 1,) if k else (), saved=("output",) * (k % 2)) for k in range(6)])
    live.set_dead(5, (1, 2))
    before = [live.node(live.row(k)) for k in (1, 5)]
    for k in (0, 2, 3, 4):
        live.delete(live.row(k))
    assert len(live) == 2 and live.count == 2  # compacted: only the two left
    assert [live.node(live.row(k)) for k in (1, 5)] == before
    assert live.row(0) is None and live.row(4) is None
    assert NodeTable(columns=live.columns()) == NodeTable(columns=NodeColumns.from_nodes(before))


def test_summary_rows_no_node_has_are_left_out_once_over_half(monkeypatch):
    monkeypatch.setattr(live_columns, "COMPACT_ROWS", 2)
    live = LiveNodes()
    live.extend([_row(k) for k in range(4)])
    values = [summarize(np.arange(3.0) + k) for k in range(4)]
    for k in range(4):
        live.set_output(k, values[k])
    live.delete(0)
    live.delete(2)
    assert live.compact_summaries() is None  # half, not over half
    live.delete(1)
    remap = live.compact_summaries()
    assert remap.tolist() == [NONE, NONE, NONE, 0] and len(live.summaries) == 1
    assert live.node(live.row(3)).output == values[3]


def test_a_scan_of_live_rows_reads_as_the_columns():
    recorder = Recorder()
    with hooks.observe(recorder):
        w = gs.ones(4, requires_grad=True)
        ((w * float("nan")).relu() + w.log()).sum().backward()
    nodes = recorder.finish(0).nodes
    del nodes[next(iter(nodes))]
    scan, columns = nodes.scan(), nodes.columns()
    assert scan.output_nonfinite().any() and scan.output_nonfinite().tolist() == columns.output_nonfinite().tolist()
    assert [scan.strings[k] for k in scan.op] == [columns.strings[k] for k in columns.op]
    for key in ("id", "flags", "leaf"):
        assert getattr(scan, key).tolist() == getattr(columns, key).tolist()
    assert scan.dead == columns.dead
