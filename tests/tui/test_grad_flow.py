"""The Flow tab: each grad a node received names the consumer it came from; several are summed; it fits 80 columns."""

import io

import numpy as np
from rich.console import Console

from graphscope.trace.record.model import BackwardPass, LeafGrad, Metadata, Node, Record, Step
from graphscope.tui.grad_flow import FlowTable, GradFlow, flow_rows
from graphscope.tui.moment import Moment
from graphscope.tui.record_index import RecordIndex
from tests.hand_records import mlp_record, s
from tests.tui.tui_screen import screen_text
from tests.tui.tui_widget import WidgetApp


def two_consumers() -> Record:
    """loss = sum(a * 3 + a ** 2): the parameter `a` feeds a mul and a pow; their grads add up in `.grad`."""
    a = np.array([2.0, 3.0], np.float32)
    nodes = {
        1: Node(1, "parameter", "", (), 0, s(a), True, True, "layer.weight"),
        2: Node(2, "mul", "MulBackward0", (1,), 0, s(a * 3), True, args=(("b", "3"),)),
        3: Node(3, "pow", "PowBackward0", (1,), 0, s(a**2), True, args=(("exponent", "2"),)),
        4: Node(4, "add", "AddBackward0", (2, 3), 0, s(a * 3 + a**2), True),
        5: Node(5, "sum", "SumBackward0", (4,), 0, s(np.float32(19.0)), True),
    }
    ones = np.ones(2, np.float32)
    steps = [
        Step(5, s(np.float32(1.0)), [s(ones)]),
        Step(4, s(ones), [s(ones), s(ones * 2)]),
        Step(2, s(ones), [s(ones * 3)]),
        Step(3, s(ones * 2), [s(2 * a * 2)], [LeafGrad(1, s(3 + 2 * a * 2))]),
    ]
    record = Record(metadata=Metadata(script="/nowhere/two.py"), nodes=nodes)
    record.passes.append(BackwardPass(0, 19.0, {"layer.weight": 1.0}, 5, True, True, 5, (5, 4, 2, 3), steps))
    return record


def rendered(table, width: int) -> str:
    console = Console(width=width, file=io.StringIO(), color_system=None, legacy_windows=False)
    console.print(table)
    return console.file.getvalue()


def by_op(record, op):
    return next(n.id for n in record.nodes.values() if n.op == op and n.pass_index == 0)


def test_each_incoming_grad_names_its_consumer():
    record = two_consumers()
    rows = flow_rows(Moment(RecordIndex(record)), 2)  # the mul: the add passed it its grad
    incoming = [r for r in rows if r.direction == "in ←"]
    assert [(r.words, r.node) for r in incoming] == [("from", 4)]
    assert incoming[0].grad is record.passes[0].steps[1].grad_inputs[0]
    assert "from add #4" in rendered(FlowTable(rows, record.nodes), 100)
    assert "the loss" not in rendered(FlowTable(rows, record.nodes), 100)


def test_a_tensor_fed_to_two_consumers_shows_each_contribution_and_their_sum():
    record = two_consumers()
    steps = record.passes[0].steps
    rows = flow_rows(Moment(RecordIndex(record)), 1)
    assert [(r.direction, r.node) for r in rows] == [("in ←", 2), ("in ←", 3), ("=", None)]
    assert rows[0].grad is steps[2].grad_inputs[0]  # the mul's grad for its input 0
    assert rows[1].grad is steps[3].grad_inputs[0]  # the pow's
    assert rows[2].grad is steps[3].leaf_grads[0].grad  # their sum, in .grad
    text = rendered(FlowTable(rows, record.nodes), 100)
    assert "from mul ×3 #2" in text and "from pow ² #3" in text and "sum: its .grad" in text


def test_a_node_used_twice_by_one_consumer_shows_both_slots_and_the_sum():
    record = mlp_record(passes=1)
    moment = Moment(RecordIndex(record))
    sub, mul = by_op(record, "sub"), by_op(record, "mul")
    rows = flow_rows(moment, sub)
    mul_step = moment.step_of(mul)
    assert [(r.direction, r.node, r.note) for r in rows[:3]] == [
        ("in ←", mul, "as input 0"),
        ("in ←", mul, "as input 1"),
        ("=", None, ""),
    ]
    assert rows[0].grad is mul_step.grad_inputs[0] and rows[1].grad is mul_step.grad_inputs[1]
    assert rows[2].grad is moment.step_of(sub).grad_output


def test_the_root_receives_the_seed_of_backward():
    record = two_consumers()
    rows = flow_rows(Moment(RecordIndex(record)), 5)
    assert (rows[0].direction, rows[0].words) == ("in ←", "backward() seed")
    assert [(r.direction, r.node) for r in rows[1:]] == [("out →", 4)]


def test_an_old_snapshots_constant_is_no_row():
    record = two_consumers()
    record.nodes[6] = Node(6, "constant", "3", (), 0, s(np.int64(3)), False, True)
    record.nodes[2].inputs, record.nodes[2].args = (1, 6), ()
    record.passes[0].steps[2].grad_inputs.append(None)
    rows = flow_rows(Moment(RecordIndex(record)), 2)
    assert [(r.direction, r.node) for r in rows] == [("in ←", 4), ("out →", 1)]
    assert "from mul ×3 #2" in rendered(FlowTable(flow_rows(Moment(RecordIndex(record)), 1), record.nodes), 100)


def test_at_80_columns_the_direction_node_shape_and_norm_stay_whole():
    """The details pane of an 80x24 terminal leaves the Flow tab about 46 columns."""
    record = mlp_record(passes=1)
    moment = Moment(RecordIndex(record))
    relu = by_op(record, "relu")
    rows = flow_rows(moment, relu)
    text = rendered(FlowTable(rows, record.nodes), 46)
    lines = text.splitlines()
    assert all(len(line) <= 46 for line in lines)
    assert "node" in lines[0] and "shape" in lines[0] and "norm" in lines[0]
    mm2 = record.passes[0].order[3]  # the matmul that consumed the relu
    assert f"from matmul #{mm2}" in lines[1] and "4×5" in lines[1]
    norm = rows[0].grad.norm
    assert f"{norm:.4g}" in lines[1]
    assert "out →" in lines[2] and "to add #" in lines[2]


async def test_the_flow_tab_shows_each_consumer_and_the_sum():
    record = two_consumers()
    flow = GradFlow()
    async with WidgetApp(flow).run_test(size=(60, 10)) as pilot:
        flow.show(Moment(RecordIndex(record)), 1)
        await pilot.pause()
        shown = screen_text(pilot.app)
    assert "from mul ×3 #2" in shown and "from pow ² #3" in shown and "sum: its .grad" in shown


def test_a_grad_holding_nan_shows_nan_as_its_norm_and_counts_it_when_there_is_room():
    record = two_consumers()
    record.passes[0].steps[2].grad_inputs[0] = s(np.array([np.nan, 1.0], np.float32))
    rows = flow_rows(Moment(RecordIndex(record)), 1)
    narrow = rendered(FlowTable(rows, record.nodes), 46).splitlines()[1]
    assert narrow.split()[-1] == "nan"
    assert "1 nan 0 inf" in rendered(FlowTable(rows, record.nodes), 100)


def test_paused_at_a_node_its_outgoing_grads_are_not_shown_as_missing():
    """A live run paused at a node has recorded the grad it received, not yet those it passes on."""
    record = two_consumers()
    record.passes[0].steps[1].grad_inputs = []  # paused at the add
    record.passes[0].steps[2:] = []
    rows = flow_rows(Moment(RecordIndex(record)), 4)
    assert [(r.direction, r.node) for r in rows] == [("in ←", 5)]


async def test_paused_at_a_node_the_flow_tab_says_its_backward_is_next():
    record = two_consumers()
    record.passes[0].steps[1].grad_inputs = []
    record.passes[0].steps[2:] = []
    flow = GradFlow()
    async with WidgetApp(flow).run_test(size=(100, 10)) as pilot:
        flow.show(Moment(RecordIndex(record)), 4)
        await pilot.pause()
        shown = screen_text(pilot.app)
    assert "from sum #5" in shown and "no grad" not in shown
    assert "Its backward runs at the next step (n)" in shown


def test_a_consumer_paused_before_its_backward_has_not_contributed_yet():
    record = two_consumers()
    record.passes[0].steps[3].grad_inputs = []  # paused at the pow: the mul has given `a` its grad
    record.passes[0].steps[3].leaf_grads = []
    rows = flow_rows(Moment(RecordIndex(record)), 1)
    assert [(r.direction, r.node) for r in rows] == [("in ←", 2)]
