"""DOT export: one box per node with its op and shape, edges from inputs, NaN nodes red, labels escaped."""

import re

import numpy as np

from graphscope.trace.record.model import Node, Record
from graphscope.trace.report.dot import escape, to_dot, write_dot
from graphscope.trace.stats.summarize import summarize

# What a DOT statement we emit looks like; a label with a stray quote would break the match.
_STRING = r'"(?:[^"\\]|\\.)*"'
_NODE = re.compile(rf"^  n\d+ \[label={_STRING}(, [a-z]+=(?:{_STRING}|[#\w.]+))*\];$")
_EDGE = re.compile(r"^  n(\d+) -> n(\d+);$")


def _record():
    ok = summarize(np.ones((2, 3), dtype=np.float32))
    bad = summarize(np.array([1.0, np.nan]))
    return Record(
        nodes={
            0: Node(0, "parameter", output=ok, parameter="layers.0.weight", is_leaf=True, requires_grad=True),
            1: Node(1, "tensor", output=ok, is_leaf=True),
            2: Node(2, "log", "LogBackward0", (0, 1), output=bad, module='model."evil"\n\\x'),
        }
    )


def _statements(text):
    lines = text.splitlines()
    assert lines[0] == "digraph graphscope {" and lines[-1] == "}"
    return lines[3:-1]


def test_every_statement_is_well_formed_dot():
    for line in _statements(to_dot(_record())):
        assert _NODE.match(line) or _EDGE.match(line), line


def test_nodes_show_op_and_shape_and_parameters_their_name():
    text = to_dot(_record())
    assert "layers.0.weight\\n2×3 float32" in text and "log\\n2 float64" in text


def test_edges_run_from_inputs_to_their_consumer():
    edges = {m.groups() for line in _statements(to_dot(_record())) if (m := _EDGE.match(line))}
    assert edges == {("0", "2"), ("1", "2")}


def test_nan_nodes_are_red():
    n2 = next(line for line in to_dot(_record()).splitlines() if line.startswith("  n2 ["))
    assert "color=red" in n2
    n0 = next(line for line in to_dot(_record()).splitlines() if line.startswith("  n0 ["))
    assert "color=red" not in n0


def test_labels_escape_quotes_backslashes_newlines_and_controls():
    assert escape('a"b\\c\nd\x1be') == 'a\\"b\\\\c\\nd\\\\x1be'


def test_one_pass_only(tmp_path):
    record = _record()
    record.nodes[2].pass_index = 1
    text = to_dot(record, pass_index=1)
    assert "n2 [" in text and "n0 [" not in text and "->" not in text
    write_dot(record, tmp_path / "g.dot")
    assert (tmp_path / "g.dot").read_text() == to_dot(record)
