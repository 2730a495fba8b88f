"""record.nodes as columns: each Node and TensorSummary made when read equals the one put in; setting,
deleting, sealing and iterating keep the mapping's meaning and creation order."""

from dataclasses import fields

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphscope.trace.record.model import Node, Record, SourceSite
from graphscope.trace.record.node_fields import COLUMNS, ROW
from graphscope.trace.record.node_table import NodeColumns, NodeTable
from graphscope.trace.record.summary_table import SummaryTable
from graphscope.trace.stats.summarize import summarize
from tests.trace.trace_strategies import records, summaries


def _nodes():
    site = SourceSite("train.py", 3, "<module>", "y = w * x")
    return {
        4: Node(
            4,
            "parameter",
            output=summarize(np.arange(3.0)),
            requires_grad=True,
            is_leaf=True,
            parameter="w",
            module="model",
            site=site,
        ),
        7: Node(7, "constant", "3"),
        9: Node(
            9,
            "pow",
            "PowBackward0",
            (4, 7),
            output=summarize(np.arange(3.0) ** 3),
            requires_grad=True,
            site=site,
            saved=("input:0",),
            dead_units=(1, 3),
            args=(("exponent", "3"),),
        ),
    }


def _columnar():
    return NodeTable(columns=NodeColumns.from_nodes(list(_nodes().values())))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(summaries(), max_size=6))
def test_a_summary_table_reads_back_each_summary(items):
    table = SummaryTable.from_summaries(items)
    assert [table[i] for i in range(len(table))] == items


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(records())
def test_columns_read_back_every_node_in_creation_order(record):
    table = NodeTable(columns=NodeColumns.from_nodes(list(record.nodes.values())))
    assert list(table) == list(record.nodes)
    assert table == record.nodes


def test_a_column_row_is_a_new_node_at_each_read():
    table = _columnar()
    assert table[9] == _nodes()[9] and table[9] is not table[9]
    assert table.get(8) is None and 8 not in table and 9 in table and "9" not in table
    with pytest.raises(KeyError):
        table[8]


def test_setting_a_column_row_replaces_it_in_place_and_deleting_removes_it():
    table = _columnar()
    table[7] = Node(7, "constant", "4")
    del table[4]
    assert list(table) == [7, 9] and len(table) == 2 and table[7].name == "4"
    table[12] = Node(12, "exp")
    assert list(table) == [7, 9, 12]
    assert [n.id for n in table.values()] == [7, 9, 12]


def test_a_node_set_one_at_a_time_stays_that_object_until_sealed():
    table = NodeTable()
    node = Node(1, "exp")
    table[1] = node
    node.output = summarize(np.ones(2))  # the recorder fills it in after setting it
    assert table[1] is node
    table.seal()
    assert table[1] is not node and table[1] == node
    assert table.inputs_of(1) == () and table.op_of(1) == "exp" and table.op_of(2) is None


def test_a_record_takes_a_dict_of_nodes_in():
    record = Record(nodes=_nodes())
    assert type(record.nodes) is NodeTable and record.nodes == _nodes()


def test_every_node_field_has_one_column_and_rows_name_columns():
    held = [f for c in COLUMNS for f in c.fields]
    assert sorted(held) == sorted(f.name for f in fields(Node))  # each field in exactly one column
    assert set(ROW) <= {c.name for c in COLUMNS} and len(set(ROW)) == len(ROW)
