"""Snapshots whose columns are each valid but disagree with each other (issue 25 item 2): the loader refuses
them in one line with the place, and every reader of a record that disagrees says so in one line."""

import base64
import dataclasses
import json

import numpy as np
import pytest

import graphscope as gs
from graphscope.session.explain_run import explain
from graphscope.trace import snapshot
from graphscope.trace.analysis.node_gradcheck import gradcheck_node
from graphscope.trace.explain.optimizer_step import explain_change
from graphscope.trace.explain.step import explain_step
from graphscope.trace.record.inconsistent import InconsistentRecord
from graphscope.trace.record.model import OptimizerEvent, ParamChange
from graphscope.trace.snapshot import SnapshotError
from tests.graphscope_command import graphscope
from tests.hand_records import mlp_record, s
from tests.hostile.hostile_helpers import one_line_error
from tests.trace.trace_helpers import recorded

INCONSISTENT = "this snapshot is inconsistent at "


def _node_of(record, op: str, k: int = 0) -> int:
    """The id of the k-th node of `op`."""
    return [n.id for n in record.nodes.values() if n.op == op][k]


def _refused(record, tmp_path, where: str, commands: tuple[str, ...] = ()) -> str:
    """Assert the record, written, is refused at `where` in one line by the loader, and by each of the
    graphscope `commands` (exit 2, no traceback); the loader's message."""
    path = tmp_path / "edited.json"
    path.write_text(snapshot.dumps(record))
    with pytest.raises(SnapshotError) as refused:
        snapshot.load(path)
    message = str(refused.value)
    assert f"{INCONSISTENT}{where}" in message and "\n" not in message, message
    for command in commands:
        one_line_error(graphscope(command, path), 2, INCONSISTENT + where)
    return message


@pytest.mark.slow
def test_a_matmul_input_rewired_to_a_node_of_another_shape_is_refused_with_the_place(tmp_path):
    record = mlp_record(passes=1)
    mm2 = _node_of(record, "matmul", 1)  # relu (4, 5) @ w2 (5, 1)
    x = _node_of(record, "tensor")  # the input x, of (4, 3): a shape the product cannot take
    assert record.nodes[x].output.shape == (4, 3)
    record.nodes[mm2] = dataclasses.replace(record.nodes[mm2], inputs=(x, record.nodes[mm2].inputs[1]))
    step = record.passes[0].order.index(mm2)
    message = _refused(record, tmp_path, f"passes[0].steps.grad_inputs[{step}][0]", ("explain", "summary", "view"))
    assert f"node {mm2}'s input 0 (node {x}), of shape (4, 3)" in message


def test_an_elementwise_input_rewired_without_its_grads_is_refused_by_its_ops_rule(tmp_path):
    record = mlp_record(passes=1)
    add = _node_of(record, "add")  # mm1 (4, 5) + b1 (5,)
    x = _node_of(record, "tensor")  # (4, 3)
    record.nodes[add] = dataclasses.replace(record.nodes[add], inputs=(record.nodes[add].inputs[0], x))
    for st in record.passes[0].steps:
        if st.node == add:
            st.grad_inputs = [st.grad_inputs[0], None]
    row = list(record.nodes).index(add)
    message = _refused(record, tmp_path, f"nodes.inputs[{row}]")
    assert "do not broadcast" in message


def test_an_output_summary_of_another_size_is_refused_with_the_place(tmp_path):
    record = mlp_record(passes=1)
    relu = _node_of(record, "relu")  # (4, 5)
    record.nodes[relu] = dataclasses.replace(record.nodes[relu], output=s([1.0] * 20))
    consumer = record.passes[0].order.index(_node_of(record, "matmul", 1))  # stepped before the relu
    message = _refused(record, tmp_path, f"passes[0].steps.grad_inputs[{consumer}][0]")
    assert (
        f"a grad of shape (4, 5) for node {_node_of(record, 'matmul', 1)}'s input 0 (node {relu}), of shape (20,)"
        in message
    )


def test_node_ids_swapped_are_refused_as_an_input_made_after_its_node(tmp_path):
    doc = json.loads(snapshot.dumps(mlp_record(passes=1)))
    ids = snapshot.loads(json.dumps(doc)).nodes.columns().id.tolist()
    remapped = ids[:]
    remapped[0], remapped[-1] = ids[-1], ids[0]  # every reference stays a node: the graph has a cycle
    doc["nodes"]["id"] = {"dtype": "int64", "data": _base64(remapped)}
    path = tmp_path / "remapped.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SnapshotError) as refused:
        snapshot.load(path)
    assert f"{INCONSISTENT}nodes.inputs[" in str(refused.value) and "not made before it" in str(refused.value)


def test_an_input_made_after_its_node_is_refused_at_that_node_and_input(tmp_path):
    record = mlp_record(passes=1)
    rows = list(record.nodes)
    node = record.nodes[_node_of(record, "matmul", 1)]  # leaves (no inputs) and nodes before it
    late = rows[-1]
    record.nodes[node.id] = dataclasses.replace(node, inputs=(node.inputs[0], late))
    message = _refused(record, tmp_path, f"nodes.inputs[{rows.index(node.id)}]")
    assert message.endswith(f"node {node.id}'s input 1 is node {late}, not made before it"), message


def _base64(values) -> str:
    return base64.b64encode(np.array(values, dtype="<i8").tobytes()).decode()


def test_a_saved_role_naming_an_input_the_node_does_not_have_is_refused(tmp_path):
    record = mlp_record(passes=1)
    relu = _node_of(record, "relu")
    record.nodes[relu] = dataclasses.replace(record.nodes[relu], saved=("input:3",))
    _refused(record, tmp_path, f"nodes.saved[{list(record.nodes).index(relu)}]")


def test_an_optimizer_step_whose_tensors_disagree_is_refused(tmp_path):
    record = mlp_record(passes=1)
    change = ParamChange(2, "fc1.weight", s([[1.0] * 5] * 3), s([0.1] * 15), s([[1.0] * 5] * 3))
    record.optimizer.append(OptimizerEvent("step", 1, "SGD", (("lr", "0.1"),), None, [change]))
    message = _refused(record, tmp_path, "optimizer[0].params[0]")
    assert "update shape (15,)" in message


# --- the readers: a record that disagrees (live, or loaded before this check) is one line --------------


def _disagreeing_record():
    """mlp_record with the second matmul's input rewired past the loader's eyes (in memory)."""
    record = mlp_record(passes=1)
    mm2 = _node_of(record, "matmul", 1)
    x = _node_of(record, "tensor")
    record.nodes[mm2] = dataclasses.replace(record.nodes[mm2], inputs=(x, record.nodes[mm2].inputs[1]))
    return record, mm2


def test_explaining_a_step_that_disagrees_raises_one_line_with_the_step():
    record, mm2 = _disagreeing_record()
    step = record.passes[0].order.index(mm2)
    with pytest.raises(InconsistentRecord) as raised:
        explain_step(record, 0, step)
    assert str(raised.value).startswith(f"the record is inconsistent at passes[0].steps[{step}]: ")
    assert "\n" not in str(raised.value)


def test_gradcheck_of_a_node_that_disagrees_says_why_in_one_line():
    record, mm2 = _disagreeing_record()
    result = gradcheck_node(record, mm2)
    assert not result.checked and "forward failed at the recorded inputs" in result.reason
    assert "\n" not in result.reason


def test_gradcheck_of_a_node_whose_arguments_its_op_cannot_take_says_the_record_is_inconsistent():
    record = mlp_record(passes=1)
    relu = _node_of(record, "relu")
    record.nodes[relu] = dataclasses.replace(record.nodes[relu], args=(("arg3", "1"),))  # relu takes one
    result = gradcheck_node(record, relu)
    assert not result.checked and result.reason.startswith(f"the record is inconsistent at node {relu}: ")


def test_an_optimizer_step_that_disagrees_explains_in_one_line():
    record = mlp_record(passes=1)
    state = (("exp_avg", s([1.0])), ("exp_avg_sq", s([-4.0])), ("step", "1"))  # a "squared" average below 0
    change = ParamChange(2, "w", s([1.0]), s([0.1]), s([1.1]), state, s([0.5]))
    event = OptimizerEvent("step", 1, "Adam", (("lr", "0.1"),), None, [change])
    record.optimizer.append(event)
    with pytest.raises(InconsistentRecord) as raised:
        explain_change(record, event, change)
    assert str(raised.value).startswith("the record is inconsistent at optimizer[0], parameter 'w': ")


def test_explain_of_a_snapshot_that_disagrees_exits_2_with_one_line(tmp_path, capsys):
    path = tmp_path / "edited.json"
    record = mlp_record(passes=1)
    relu = _node_of(record, "relu")
    record.nodes[relu] = dataclasses.replace(record.nodes[relu], output=s([1.0] * 20))
    path.write_text(snapshot.dumps(record))
    assert explain(str(path)) == 2
    err = capsys.readouterr().err.strip()
    assert INCONSISTENT in err and "\n" not in err


def test_a_users_function_named_as_an_engine_op_is_held_to_its_own_rule_not_the_engines(tmp_path):
    class Pair(gs.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a[:2] + b[:2]  # (3,) and (4,) to (2,): no elementwise op's shapes

        @staticmethod
        def backward(ctx, g):
            return gs.zeros(3), gs.zeros(4)

    Pair.__name__ = "mul"

    def run():
        a, b = gs.ones(3, requires_grad=True), gs.ones(4, requires_grad=True)
        Pair.apply(a, b).sum().backward()

    record = recorded(run)[1]
    assert "mul" in {n.op for n in record.nodes.values()}
    path = tmp_path / "custom.json"
    snapshot.dump(record, path)
    assert snapshot.load(path).nodes == record.nodes


@pytest.mark.parametrize("late", [1, 700, 1499])
def test_a_disagreement_deep_in_a_long_pass_is_found_by_the_column_scan(late, tmp_path):
    """The loader scans a pass's steps as columns and checks only the steps the scan flags: a grad of
    the wrong shape at any step of a 1,500-step pass is still refused at that step."""

    def chain():
        h = gs.tensor([1.0, 2.0, 3.0], requires_grad=True)
        for _ in range(750):
            h = h * 0.5 + 1.0
        h.sum().backward()

    record = recorded(chain)[1]
    steps = list(record.passes[0].steps)
    steps[late] = dataclasses.replace(steps[late], grad_output=s([1.0, 2.0]))  # (2,): the nodes hold (3,)
    record.passes[0].steps = steps
    node = steps[late].node
    message = _refused(record, tmp_path, f"passes[0].steps.grad_output[{late}]")
    assert f"a grad of shape (2,) for node {node}'s output, of shape (3,)" in message
