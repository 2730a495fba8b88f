"""RecordIndex: leaf grads by node, roots of the graph tree, search and the NaN origin over a record."""

import os

from graphscope.tui.record_index import SEARCH_LIMIT, RecordIndex
from tests.hand_records import big_record, mlp_record, nan_record


def test_roots_are_the_passes_losses():
    record = mlp_record(passes=2)
    roots = RecordIndex(record).roots()
    assert [(r.pass_index, r.node) for r in roots] == [(0, record.passes[0].root), (1, record.passes[1].root)]


def test_a_forward_without_backward_is_rooted_at_its_unconsumed_nodes():
    record = big_record(1000)
    roots = RecordIndex(record).roots()
    assert len(roots) == 1 and roots[0].node is None
    assert 999 in roots[0].sinks


def test_search_finds_ops_modules_parameters_and_lines():
    index = RecordIndex(mlp_record(passes=1))
    assert {index.record.nodes[n].op for n in index.search("relu").nodes} == {"relu"}
    assert len(index.search("fc1.weight").nodes) == 1
    assert len(index.search("mlp.py:22").nodes) == 1
    assert index.search("MODEL.FC2").total == 2
    assert index.search("#3").nodes[0] == 3


def test_search_counts_all_matches_but_lists_a_limited_number():
    index = RecordIndex(big_record(10_000))
    result = index.search("matmul")
    assert result.total > SEARCH_LIMIT
    assert len(result.nodes) == SEARCH_LIMIT


def test_an_empty_query_matches_nothing():
    assert RecordIndex(mlp_record()).search("  ").total == 0


def test_search_over_100000_nodes_uses_the_prepared_lookups_and_finds_the_last_layer():
    """Its speed is measured in bench/tui.py (no wall-clock limits in tests)."""
    index = RecordIndex(big_record())
    assert not index.fresh()
    index.prepare()
    assert index.fresh()
    result = index.search("layers.9999")  # the parameter's name and its module's path, not layers.999
    assert result.total == 10 and result.nodes == tuple(range(99_990, 100_000))
    assert index.fresh()


def test_the_nan_origin_is_the_recorders_finding():
    record = nan_record()
    assert RecordIndex(record).nan_origin() == record.findings[0].node


def test_without_a_finding_the_origin_is_the_first_nonfinite_value_with_finite_inputs():
    record = nan_record()
    record.findings.clear()
    assert RecordIndex(record).nan_origin() == record.passes[1].order[-1]


def test_a_finite_record_has_no_nan_origin():
    assert RecordIndex(mlp_record()).nan_origin() is None


def _row(node) -> str:
    """A node's row as the search defines it: "#id op name module parameter file:line text", lowercased."""
    site = node.site
    where = f"{os.path.basename(site.file)}:{site.line} {site.text}" if site else ""
    return f"#{node.id} {node.op} {node.name} {node.module or ''} {node.parameter or ''} {where}".lower()


def test_search_matches_what_each_nodes_row_contains_across_fields_and_inside_ids():
    record = big_record(3000)
    index = RecordIndex(record)
    for query in ("#1", "1", "0", "#0", "00", "#", "#1#", "12", "matmul m", "mlp.py:2", "(", "a", "x = "):
        expected = [n.id for n in record.nodes.values() if query.strip().lower() in _row(n)]
        result = index.search(query)
        assert result.total == len(expected) and list(result.nodes) == expected[:SEARCH_LIMIT], query
