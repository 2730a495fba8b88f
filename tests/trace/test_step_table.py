"""The backward steps as columns: Steps made on read, scans with NumPy, and a snapshot that keeps them as columns."""

import base64
import json

import numpy as np
import pytest

from graphscope.trace import snapshot
from graphscope.trace.analysis.findings import nan_grad
from graphscope.trace.record.model import BackwardPass, LeafGrad, Node, Record, Step
from graphscope.trace.record.step_table import StepColumns, StepTable, step_table
from graphscope.trace.snapshot import SnapshotError
from graphscope.trace.stats.summarize import summarize
from tests.trace.snapshot_v5 import as_version_5
from tests.trace.snapshot_v7 import as_version_7


def s(*values):
    return summarize(np.array(values, dtype=np.float32), full_values_limit=8)


def _steps():
    # consistent with _record's shapes (the loader refuses a step whose grads do not fit its tensors)
    added = s(0.5, 0.25)
    return [
        Step(3, s(1.0), [s(2.0, 3.0)]),
        Step(
            2,
            s(4.0, 4.5),
            [s(5.0, 5.5), None],
            [LeafGrad(0, added, None, added), LeafGrad(1, s(6.0, 6.5), s(7.0, 7.5), s(13.0, 14.0))],
        ),
        Step(1, None, [], [LeafGrad(0, s(8.0, 0.0), s(0.5, 0.25), s(8.5, 0.25))]),
    ]


def _record(steps):
    nodes = {
        0: Node(0, "parameter", output=s(1.0, 1.5), requires_grad=True, is_leaf=True, parameter="w"),
        1: Node(1, "parameter", output=s(2.0, 2.5), requires_grad=True, is_leaf=True, parameter="b"),
        2: Node(2, "mul", "MulBackward0", (0, 1), output=s(2.0, 3.75), requires_grad=True),
        3: Node(3, "sum", "SumBackward0", (2,), output=s(5.75), requires_grad=True),
    }
    return Record(nodes=nodes, passes=[BackwardPass(0, 5.75, {}, 4, True, True, 3, (3, 2, 1), steps)])


def test_steps_read_from_columns_equal_the_steps_they_were_made_of():
    steps = _steps()
    table = StepTable(StepColumns.from_steps(steps))
    assert len(table) == 3 and table == steps and list(table) == steps and table[-1] == steps[-1]
    lg = table[1].leaf_grads[0]
    assert lg.now is lg.grad and table[1].leaf_grads[1].now is not table[1].leaf_grads[1].grad


def test_appended_steps_follow_the_column_rows_as_the_objects():
    steps = _steps()
    table = StepTable(StepColumns.from_steps(steps[:2]))
    table.append(steps[2])
    assert table[2] is steps[2] and table == steps
    assert table.leaf_grads_of(0) == [(1, steps[1].leaf_grads[0]), (2, steps[2].leaf_grads[0])]
    assert table.leaves() == [0, 1]


def test_the_scans_read_columns_and_held_steps_alike():
    steps = _steps()
    steps[1].grad_inputs[0] = s(float("nan"))
    steps[2].leaf_grads[0].grad = s(float("inf"))
    for table in (StepTable(StepColumns.from_steps(steps)), step_table(steps)):
        output, inputs, leaves = table.nonfinite()
        assert output.tolist() == [False, False, False]
        assert inputs.tolist() == [False, True, False]
        assert leaves.tolist() == [False, False, True]


def test_until_a_cursor_keeps_the_steps_before_it_and_the_grad_the_current_one_receives():
    steps = _steps()
    for table in (StepTable(StepColumns.from_steps(steps)), step_table(steps)):
        cut = table.until(1)
        assert cut == [steps[0], Step(2, steps[1].grad_output)]
        assert table.until(3) == steps and table.until(0) == [Step(3, steps[0].grad_output)]


def test_a_snapshot_holds_the_steps_as_columns_and_reads_them_without_a_summary_each():
    record = _record(_steps())
    doc = json.loads(snapshot.dumps(record))
    st = doc["passes"][0]["steps"]
    assert st["count"] == 3 and set(st["grad_inputs"]) == {"count", "rows"} and doc["passes"][0]["order"]["count"] == 3
    loaded = snapshot.loads(json.dumps(doc))
    assert loaded == record
    steps = loaded.passes[0].steps
    assert isinstance(steps, StepTable)
    # the steps' grads are rows of the one table the file's tensors are, shared with the nodes
    assert steps.columns().summaries is loaded.nodes.columns().summaries


def test_a_loaded_record_exports_its_tensors_once():
    text = snapshot.dumps(_record(_steps()))
    again = snapshot.dumps(snapshot.loads(text))
    assert json.loads(again)["tensors"]["count"] == json.loads(text)["tensors"]["count"]
    assert snapshot.loads(again) == snapshot.loads(text)


def test_a_version_5_file_with_steps_as_lists_still_loads():
    record = _record(_steps())
    doc = as_version_5(as_version_7(record))
    first, second = doc["passes"][0]["steps"]["grad_inputs"][1]
    assert type(first) is int and second is None
    assert snapshot.loads(json.dumps(doc)) == record


@pytest.mark.parametrize(
    "key, part, value, where, problem",
    [
        ("node", None, [9, 2, 1], "passes[0].steps.node[0]", "node id 9 does not exist"),
        ("order", None, [3, 2, 8], "passes[0].order[2]", "node id 8 does not exist"),
        ("grad_output", None, [99, -1, -1], "passes[0].steps.grad_output[0]", "out of range"),
        ("grad_inputs", "rows", [0, -2, 0], "passes[0].steps.grad_inputs.rows[1]", "out of range"),
        ("leaf_grads", "node", [0, 7, 0], "passes[0].steps.leaf_grads.node[1]", "node id 7 does not exist"),
        ("leaf_grads", "now", [0, 0, 500], "passes[0].steps.leaf_grads.now[2]", "out of range"),
    ],
)
def test_a_bad_step_column_names_its_place(key, part, value, where, problem):
    doc = json.loads(snapshot.dumps(_record(_steps())))
    section = doc["passes"][0] if key == "order" else doc["passes"][0]["steps"]
    target = section[key]
    column = {"dtype": "int64", "data": base64.b64encode(np.array(value, np.int64).tobytes()).decode()}
    if key == "order":
        target.update(column)
    elif part is None:
        section[key] = column
    else:
        target[part] = column
    with pytest.raises(SnapshotError) as info:
        snapshot.loads(json.dumps(doc))
    assert info.value.where == where and problem in info.value.problem


def test_nan_grad_is_found_in_a_loaded_record_from_its_columns():
    steps = _steps()
    steps[1].grad_inputs[0] = s(float("nan"), 1.0)
    loaded = snapshot.loads(snapshot.dumps(_record(steps)))
    found = nan_grad(loaded)
    assert found is not None and found.node == 2 and "input 0: 1 NaN of 2 values" in found.message
    assert "backward step 2" in found.message


def test_a_step_of_a_node_between_sparse_ids_is_refused():
    nodes = {k: Node(k, "tensor", output=s(1.0), is_leaf=True, requires_grad=True) for k in (0, 5, 9)}
    record = Record(nodes=nodes, passes=[BackwardPass(0, 1.0, {}, 3, True, True, 9, (9, 5), [Step(9), Step(5)])])
    doc = json.loads(snapshot.dumps(record))
    assert snapshot.loads(json.dumps(doc)) == record
    doc["passes"][0]["steps"]["node"] = {
        "dtype": "int64",
        "data": base64.b64encode(np.array([9, 3]).tobytes()).decode(),
    }
    with pytest.raises(SnapshotError) as info:
        snapshot.loads(json.dumps(doc))
    assert info.value.where == "passes[0].steps.node[1]" and "node id 3 does not exist" in info.value.problem
