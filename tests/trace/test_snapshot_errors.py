"""A bad snapshot raises one SnapshotError naming the file, the place in it, and what is wrong."""

import base64
import contextlib
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphscope.trace import snapshot
from graphscope.trace.record.model import (
    BackwardPass,
    LeafGrad,
    Node,
    OptimizerEvent,
    ParamChange,
    Record,
    SourceSite,
    Step,
)
from graphscope.trace.snapshot import SnapshotError
from graphscope.trace.snapshot import read as snapshot_read
from graphscope.trace.snapshot.columns_read import ColumnReader
from graphscope.trace.stats.summarize import summarize
from tests.trace.snapshot_v3 import dumps_v3


def _record():
    site = SourceSite("train.py", 3, "<module>", "y = w * x")

    def s(n=4):
        return summarize(np.arange(n, dtype=np.float32), full_values_limit=8)

    nodes = {
        0: Node(0, "parameter", output=s(), requires_grad=True, is_leaf=True, parameter="w", site=site, leaf=0),
        1: Node(1, "tensor", output=s(100), is_leaf=True, site=site),
        2: Node(2, "mul", "MulBackward0", (0, 0), output=s(), requires_grad=True, site=site, saved=("a", "b")),
    }
    step = Step(2, s(), [s(), None], [LeafGrad(0, s(), s(), s())])
    change = ParamChange(0, "w", s(), s(), s(), (("momentum_buffer", s()), ("step", "1")), s())
    optimizer = [OptimizerEvent("step", 1, "SGD", (("lr", "0.1"),), site, [change])]
    return Record(
        nodes=nodes, passes=[BackwardPass(0, 1.5, {"w": 2.0}, 3, True, True, 2, (2,), [step])], optimizer=optimizer
    )


@pytest.fixture
def doc():
    """A version 3 document (nodes and tensors as JSON lists, as versions 1 to 3 have them)."""
    return json.loads(dumps_v3(_record()))


@pytest.fixture
def columns_doc():
    """A document of the current version (nodes and tensors as base64 columns)."""
    return json.loads(snapshot.dumps(_record()))


def _load_text(tmp_path, text, name="snap.json"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(SnapshotError) as info:
        snapshot.load(path)
    assert str(path) in str(info.value)
    return info.value


def _load_doc(tmp_path, doc):
    return _load_text(tmp_path, json.dumps(doc))


def test_not_json(tmp_path):
    e = _load_text(tmp_path, "hello, world")
    assert "not valid JSON" in e.problem and "line 1" in e.where


def test_truncated_file(tmp_path):
    text = snapshot.dumps(_record())
    e = _load_text(tmp_path, text[: len(text) // 2])
    assert "truncated" in e.problem


def test_empty_file(tmp_path):
    assert "empty" in _load_text(tmp_path, "").problem


def test_binary_file(tmp_path):
    assert "not UTF-8" in _load_text(tmp_path, b"\x89PNG\r\n\x1a\n\xff\xfe\x00").problem


def test_another_format(tmp_path):
    e = _load_doc(tmp_path, {"format": "something-else", "version": 1})
    assert e.where == "format" and "not a graphscope snapshot" in e.problem and "something-else" in e.problem


def test_json_that_is_not_an_object(tmp_path):
    assert "not a graphscope snapshot" in _load_text(tmp_path, "[1, 2, 3]").problem


def test_missing_format(tmp_path):
    assert "not a graphscope snapshot" in _load_doc(tmp_path, {"nodes": []}).problem


def test_newer_version(tmp_path, doc):
    doc["version"] = snapshot.VERSION + 1
    e = _load_doc(tmp_path, doc)
    assert e.where == "version" and "newer" in e.problem and "upgrade graphscope" in e.problem


def _as_version_2(doc):
    """The document as version 2 wrote it: no leaf identities, [leaf, grad] leaf grads, no optimizer."""
    doc["version"] = 2
    del doc["nodes"]["leaf"], doc["optimizer"]
    for p in doc["passes"]:
        p["steps"]["leaf_grads"] = [[row[:2] for row in rows] for rows in p["steps"]["leaf_grads"]]
    return doc


def test_version_1_without_arguments_still_loads(tmp_path, doc):
    doc = _as_version_2(doc)
    doc["version"] = 1
    del doc["nodes"]["args"]
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(doc))
    record = snapshot.load(str(path))
    assert all(n.args == () for n in record.nodes.values())


def test_version_2_loads_without_leaf_identities_accumulation_or_optimizer_events(tmp_path, doc):
    path = tmp_path / "v2.json"
    path.write_text(json.dumps(_as_version_2(doc)))
    record = snapshot.load(str(path))
    assert [n.leaf for n in record.nodes.values()] == [None, None, None]
    assert record.nodes[2].args == () and record.optimizer == []
    (lg,) = record.passes[0].steps[0].leaf_grads
    assert lg.grad is not None and lg.before is None and lg.now is None


def test_version_3_round_trips_leaf_identity_accumulation_and_the_optimizer():
    record = _record()
    assert snapshot.loads(snapshot.dumps(record)) == record


def test_a_leaf_grad_row_of_the_wrong_width(tmp_path, doc):
    doc["passes"][0]["steps"]["leaf_grads"][0][0] = [0, 1]
    e = _load_doc(tmp_path, doc)
    assert e.where == "passes[0].steps.leaf_grads[0][0]" and "added, before, now" in e.problem


def test_an_unknown_optimizer_event(tmp_path, doc):
    doc["optimizer"][0]["kind"] = "explode"
    e = _load_doc(tmp_path, doc)
    assert e.where == "optimizer[0].kind" and "unknown optimizer event 'explode'" in e.problem


def test_a_malformed_optimizer_state_entry(tmp_path, doc):
    doc["optimizer"][0]["params"]["state"][0][0] = ["momentum_buffer", 1.5]
    e = _load_doc(tmp_path, doc)
    assert e.where == "optimizer[0].params.state[0][0][1]" and "tensor index or a literal" in e.problem


def test_a_version_3_document_without_optimizer_events(tmp_path, doc):
    del doc["optimizer"]
    e = _load_doc(tmp_path, doc)
    assert e.where == "" and '"optimizer"' in e.problem


def test_a_malformed_argument(tmp_path, doc):
    doc["nodes"]["args"][0] = [["exponent"]]
    e = _load_doc(tmp_path, doc)
    assert e.where == "nodes.args[0][0]" and "expected [name, literal]" in e.problem


def test_missing_key(tmp_path, doc):
    del doc["nodes"]["op"]
    e = _load_doc(tmp_path, doc)
    assert e.where == "nodes" and '"op"' in e.problem


@pytest.mark.parametrize(
    "path, value, where",
    [
        (("nodes", "op", 0), 5, "nodes.op[0]"),
        (("nodes", "inputs", 2), "0,1", "nodes.inputs[2]"),
        (("nodes", "inputs", 2, 1), 1.5, "nodes.inputs[2][1]"),
        (("nodes", "requires_grad", 0), "yes", "nodes.requires_grad[0]"),
        (("nodes", "op"), ["mul"], "nodes.op"),
        (("nodes", "output", 1), 99, "nodes.output[1]"),
        (("nodes", "site", 0), 7, "nodes.site[0]"),
        (("tensors", "shape", 0, 0), -1, "tensors.shape[0][0]"),
        (("tensors", "dtype", 1), None, "tensors.dtype[1]"),
        (("tensors", "nan", 1), 1000, "tensors.nan[1]"),
        (("tensors", "stats"), "AAAA", "tensors.stats"),
        (("tensors", "exact"), [[0, 1]], "tensors.exact[0]"),
        (("tensors", "histogram", "data"), "AAAA", "tensors.histogram.data"),
        (("tensors", "values", "float32"), "AAAA", "tensors.values.float32"),
        (("tensors", "preview", "float32"), "!!!!", "tensors.preview.float32"),
        (("tensors", "values", "pickle"), "AAAA", "tensors.values"),
        (("passes", 0, "loss"), [1], "passes[0].loss"),
        (("passes", 0, "steps", "grad_inputs"), {}, "passes[0].steps.grad_inputs"),
        (("passes", 0, "steps", "grad_output", 0), 99, "passes[0].steps.grad_output[0]"),
        (("metadata", "argv"), "train.py", "metadata.argv"),
        (("sites", 0, "line"), "3", "sites[0].line"),
        (("console",), None, "console"),
        (("nodes", "leaf", 0), "w", "nodes.leaf[0]"),
        (("optimizer", 0, "passes"), -1, "optimizer[0].passes"),
        (("optimizer", 0, "settings", 0), ["lr"], "optimizer[0].settings[0]"),
        (("optimizer", 0, "params", "before", 0), 999, "optimizer[0].params.before[0]"),
        (("optimizer", 0, "params", "label"), [], "optimizer[0].params.label"),
    ],
)
def test_wrong_types_name_the_place(tmp_path, doc, path, value, where):
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert _load_doc(tmp_path, doc).where == where


@pytest.mark.parametrize(
    "path, where",
    [
        (("nodes", "inputs", 2, 0), "nodes.inputs[2][0]"),
        (("passes", 0, "root"), "passes[0].root"),
        (("passes", 0, "order", 0), "passes[0].order[0]"),
        (("passes", 0, "steps", "node", 0), "passes[0].steps.node[0]"),
        (("passes", 0, "steps", "leaf_grads", 0, 0, 0), "passes[0].steps.leaf_grads[0][0][0]"),
    ],
)
def test_dangling_node_ids(tmp_path, doc, path, where):
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = 999
    e = _load_doc(tmp_path, doc)
    assert e.where == where and "999 does not exist" in e.problem


def test_a_version_3_document_loads_as_the_record(tmp_path, doc):
    path = tmp_path / "v3.json"
    path.write_text(json.dumps(doc))
    assert snapshot.load(path) == _record()


def _column(values, dtype="int64"):
    return {"dtype": dtype, "data": base64.b64encode(np.array(values, dtype=dtype).tobytes()).decode()}


@pytest.mark.parametrize(
    "path, value, where, problem",
    [
        (("nodes", "op"), _column([0, 1, 99]), "nodes.op[2]", "99 is out of range"),
        (("nodes", "op", "dtype"), "float64", "nodes.op.dtype", "expected one of"),
        (("nodes", "op", "data"), "AA==", "nodes.op.data", "holds 1 bytes; 3 uint8 values take 3"),
        (("nodes", "op", "data"), "!!!!!!!!", "nodes.op.data", "base64 characters"),
        (("nodes", "id"), _column([0, 1, 0]), "nodes.id[2]", "node id 0 appears twice"),
        (("nodes", "inputs", "ids"), _column([0, 999]), "nodes.inputs.ids[1]", "node id 999 does not exist"),
        (("nodes", "inputs", "count"), _column([0, 0, 3]), "nodes.inputs.ids.data", "3 uint8 values take 3"),
        (("nodes", "output"), _column([0, 1, 99]), "nodes.output[2]", "out of range"),
        (("nodes", "site"), _column([0, 7, 0]), "nodes.site[1]", "out of range"),
        (("nodes", "count"), -1, "nodes.count", "out of range"),
        (("nodes", "flags"), _column([0, 4, 0], "uint8"), "nodes.flags[1]", "out of range"),
        (("tensors", "nan"), lambda n: _column([0, 1000] + [0] * (n - 2)), "tensors.nan[1]", "1,000 NaNs"),
        (("tensors", "held"), lambda n: _column([0] * (n - 1) + [3], "uint8"), "tensors.held[-1]", "out of range"),
        (("tensors", "values", "float32"), "AAAAAA==", "tensors.values.float32", "the tensors use"),
        (("tensors", "values", "pickle"), "AAAA", "tensors.values", "unknown array dtype"),
        (("tensors", "stats"), "AAAA", "tensors.stats", "base64 characters"),
        (  # the one histogram the file holds, row 1's (the others' rows hold every value: derived from them)
            ("tensors", "histogram"),
            lambda n: _column([200] + [0] * 15, "uint8"),
            "tensors.histogram.data",
            "row 1: a count of 200 in",
        ),
        (("strings", 0), "relu\x1b[2J", "strings[0]", "control characters"),
    ],
)
def test_bad_columns_name_the_place(tmp_path, columns_doc, path, value, where, problem):
    """(A value made from the tensor count n, and a place [-1], are for the last tensor.)"""
    n = columns_doc["tensors"]["count"]
    target = columns_doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value(n) if callable(value) else value
    where = where.replace("[-1]", f"[{n - 1}]")
    e = _load_doc(tmp_path, columns_doc)
    assert e.where == where and problem in e.problem, str(e)


def test_values_for_fewer_tensors_than_claim_them(tmp_path, doc):
    doc["tensors"]["full"].append(1)
    assert "tensors.values" in _load_doc(tmp_path, doc).where


def test_a_version_3_shape_of_more_than_2_to_the_62_elements(tmp_path, doc):
    doc["tensors"]["shape"][1] = [2**62, 2**62, 4]
    e = _load_doc(tmp_path, doc)
    assert e.where == "tensors.shape[1]" and "more than the 4,611,686,018,427,387,904 allowed" in e.problem


def test_row_lengths_whose_sum_would_wrap_int64_are_refused():
    with pytest.raises(SnapshotError) as info:
        ColumnReader("snap.json").starts(np.full(4, 2**62, dtype=np.int64), "nodes.inputs.count")
    assert info.value.where == "nodes.inputs.count" and "add up to more than" in info.value.problem


def test_duplicate_node_ids(tmp_path, doc):
    doc["nodes"]["id"][1] = 0
    assert "appears twice" in _load_doc(tmp_path, doc).problem


def test_huge_string(tmp_path, doc):
    doc["nodes"]["op"][0] = "x" * 1_000_000
    e = _load_doc(tmp_path, doc)
    assert e.where == "nodes.op[0]" and "longer than" in e.problem


def test_hostile_control_characters_in_a_name_are_refused_and_not_echoed(tmp_path, doc):
    doc["nodes"]["op"][0] = "relu\x1b[2J\x1b]0;pwned\x07"
    e = _load_doc(tmp_path, doc)
    assert "control characters" in e.problem and "\x1b" not in str(e)


def test_control_characters_in_console_text_are_kept_as_data(tmp_path, doc):
    doc["console"] = [{"stream": "stdout", "text": "progress\r\x1b[2K50%", "pass": 0}]
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(doc))
    assert snapshot.load(path).console[0].text == "progress\r\x1b[2K50%"


def test_bare_nan_is_not_strict_json(tmp_path):
    text = snapshot.dumps(_record()).replace('"loss":1.5', '"loss":NaN')
    assert "not strict JSON" in _load_text(tmp_path, text).problem


def test_deeply_nested_json(tmp_path):
    assert "nested too deeply" in _load_text(tmp_path, '{"console": ' + "[" * 200_000 + "]" * 200_000 + "}").problem


def test_a_section_no_snapshot_has_is_refused_before_it_is_parsed(tmp_path, columns_doc):
    text = json.dumps(columns_doc)[:-1] + ', "extra\\u001b": [1, 2'  # never parsed: not even closed
    e = _load_text(tmp_path, text)
    assert (e.where, e.problem) == ("extra\\x1b", "a snapshot has no such section")


def test_a_section_that_appears_twice_is_refused(tmp_path, columns_doc):
    e = _load_text(tmp_path, json.dumps(columns_doc)[:-1] + ', "console": []}')
    assert (e.where, e.problem) == ("console", "the section appears twice")


def test_an_object_of_other_sections_is_not_a_snapshot(tmp_path):
    e = _load_text(tmp_path, '{"name": "my-package", "version": "1.0"}')
    assert e.where == "name" and e.problem.startswith("not a graphscope snapshot")


def test_running_out_of_memory_while_reading_is_one_error_with_the_size(tmp_path, columns_doc, monkeypatch):
    def no_memory(*args):
        raise MemoryError

    monkeypatch.setattr(snapshot_read.RecordReader, "record", no_memory)
    e = _load_text(tmp_path, json.dumps(columns_doc))
    assert e.problem.startswith("not enough memory to read it (the file is ")


def test_integer_with_thousands_of_digits(tmp_path, doc):
    text = json.dumps(doc).replace('"line": 3', '"line": ' + "9" * 5000)
    assert isinstance(_load_text(tmp_path, text), SnapshotError)


def test_unknown_finding_kind(tmp_path, doc):
    doc["findings"] = [{"kind": "rm -rf", "message": "", "node": None, "pass": None, "parameter": None, "site": None}]
    assert _load_doc(tmp_path, doc).where == "findings[0].kind"


def test_missing_file(tmp_path):
    with pytest.raises(SnapshotError, match="cannot read"):
        snapshot.load(tmp_path / "nope.json")


def test_a_folder(tmp_path):
    with pytest.raises(SnapshotError, match="folder"):
        snapshot.load(tmp_path)


def test_error_message_reads_file_place_problem(tmp_path, doc):
    doc["nodes"]["inputs"][2][0] = 999
    e = _load_doc(tmp_path, doc)
    assert str(e) == f"{tmp_path / 'snap.json'}: nodes.inputs[2][0]: node id 999 does not exist in the snapshot"


def _paths(doc, prefix=()):
    """Every place in a JSON document, as a tuple of keys and indexes."""
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, prefix + (i,))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_single_change_to_a_valid_snapshot_loads_or_raises_snapshot_error(data):
    doc = json.loads(snapshot.dumps(_record()))
    places = list(_paths(doc))[1:]
    place = data.draw(st.sampled_from(places))
    target = doc
    for key in place[:-1]:
        target = target[key]
    if data.draw(st.booleans()) and isinstance(target, dict):
        del target[place[-1]]
    else:
        target[place[-1]] = data.draw(json_values)
    with contextlib.suppress(SnapshotError):
        snapshot.loads(json.dumps(doc))


@pytest.mark.parametrize(
    "rules, where, problem",
    [
        ([], "rules", "expected an object, found a list"),
        ({"mul": 3}, "rules.mul", "expected a string, found an integer"),
        ({"mul\x1b": "d(a·b)/da = b"}, "rules", "contains control characters"),
    ],
    ids=["not an object", "a rule that is not text", "an op name with a control character"],
)
def test_bad_rules(tmp_path, doc, rules, where, problem):
    doc["rules"] = rules
    e = _load_doc(tmp_path, doc)
    assert e.where == where and problem in e.problem


def _record_with_long_arrays():
    record = _record()
    record.nodes[3] = Node(3, "tensor", output=summarize(np.arange(2000, dtype=np.float32), full_values_limit=4096))
    return record


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.data())
def test_reading_bytes_lifts_long_arrays_out_and_reads_as_the_text_does(data):
    """From a file, arrays of 1,024 base64 characters and more are taken out of the JSON before it
    is parsed: any single change reads the same (the record, or the error) as from the text."""
    doc = json.loads(snapshot.dumps(_record_with_long_arrays()))
    places = list(_paths(doc))[1:]
    place = data.draw(st.sampled_from(places))
    target = doc
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = data.draw(json_values | st.sampled_from(["A" * 4096, "A" * 1023 + "=", "\\" + "A" * 2000]))
    text = json.dumps(doc)
    outcomes = []
    for source in (text, text.encode("utf-8", "surrogatepass")):
        try:
            outcomes.append(snapshot.loads(source, "s.json"))
        except SnapshotError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]


def test_a_tensor_whose_dims_multiply_past_2_to_the_62_is_refused_at_it(tmp_path, columns_doc):
    """Each dim within bounds, their product not: the current version's columns name the tensor."""
    tensors = columns_doc["tensors"]
    n = tensors["count"]
    tensors["ndim"] = _column([1] + [2] * (n - 1), tensors["ndim"]["dtype"])  # every tensor but the first a matrix
    tensors["dims"] = _column([2**40] * (2 * n - 1))
    e = _load_doc(tmp_path, columns_doc)
    assert e.where == "tensors.dims" and "tensor 1 has more than the 4,611,686,018,427,387,904" in e.problem


@pytest.mark.parametrize(
    "ids",
    [
        np.array([0, 1, 5, 9, 40], dtype=np.int64),  # sorted, with gaps: early passes' nodes dropped
        np.array([9, 0, 40, 5, 1], dtype=np.int64),  # in no order
    ],
)
def test_node_ids_among_nodes_with_gaps_are_checked_each_one(ids):
    reader = ColumnReader("snap.json")
    reader.known(np.array([40, 0, 5, 5, 9, 1], dtype=np.int64), ids, "passes[3].order")  # all known: no error
    reader.known(np.zeros(0, dtype=np.int64), ids, "passes[4].order")  # a pass with no steps
    for node, i in (([5, 9, 3], 2), ([40, -1], 1), ([41], 0), ([1, 5, 6, 99], 2)):
        with pytest.raises(SnapshotError) as info:
            reader.known(np.array(node, dtype=np.int64), ids, "passes[5].order")
        assert info.value.where == f"passes[5].order[{i}]", node
        assert info.value.problem == f"node id {node[i]} does not exist in the snapshot"


def test_node_ids_of_a_snapshot_without_nodes_are_all_refused():
    with pytest.raises(SnapshotError) as info:
        ColumnReader("snap.json").known(np.array([0], dtype=np.int64), np.zeros(0, dtype=np.int64), "passes[0].order")
    assert info.value.where == "passes[0].order[0]"


def _with_a_pass_without_steps():
    """The record and a second pass outside the detail window: its loss and grad norms, no order, no steps."""
    rec = _record()
    outside = BackwardPass(1, 1.25, {"w": 1.0}, 3, False, True, None, (), [])
    return Record(nodes=dict(rec.nodes.items()), passes=[*rec.passes, outside], optimizer=rec.optimizer)


def test_a_pass_without_steps_reads_back_as_it_was_written():
    rec = _with_a_pass_without_steps()
    loaded = snapshot.loads(snapshot.dumps(rec))
    assert loaded == rec and len(loaded.passes[1].steps) == 0


@pytest.mark.parametrize("count", [False, 0.0, None, "0"])
def test_the_steps_of_a_pass_without_any_whose_count_is_not_an_integer_are_refused(tmp_path, count):
    doc = json.loads(snapshot.dumps(_with_a_pass_without_steps()))
    doc["passes"][1]["steps"]["count"] = count
    assert _load_doc(tmp_path, doc).where == "passes[1].steps.count"
