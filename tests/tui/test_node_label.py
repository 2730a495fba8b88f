"""Nodes are told apart: tree rows show the distinguishing argument and a long parameter name's tail.

The header names every argument.
"""

import numpy as np
import pytest

from graphscope.trace.record.model import Node
from graphscope.tui.graph_tree import GraphTree
from graphscope.tui.moment import Moment
from graphscope.tui.node_args import args_row, args_words
from graphscope.tui.node_details import saved_text
from graphscope.tui.node_header import NodeHeader
from graphscope.tui.node_label import node_text
from graphscope.tui.record_index import RecordIndex
from tests.hand_records import mlp_record, s, site
from tests.tui.tui_pilot import wait_for, wait_for_text
from tests.tui.tui_screen import screen_text
from tests.tui.tui_widget import WidgetApp

X = s(np.ones((2, 3), np.float32))


def op(name, *args, inputs=(1,)):
    return Node(9, name, name.title() + "Backward0", inputs, 0, X, True, args=args)


@pytest.mark.parametrize(
    ("node", "row"),
    [
        (op("pow", ("exponent", "3")), "pow ³ 2×3 f32"),
        (op("pow", ("exponent", "-1")), "pow ⁻¹ 2×3 f32"),
        (op("pow", ("exponent", "0.5")), "pow ^0.5 2×3 f32"),
        (op("pow", ("exponent", "0.3333333333333333")), "pow ^0.333333 2×3 f32"),
        (op("mul", ("b", "1234.5678")), "mul ×1234.57 2×3 f32"),
        (op("mul", ("b", "3")), "mul ×3 2×3 f32"),
        (op("sub", ("a", "1.0")), "sub 1.0− 2×3 f32"),
        (op("div", ("b", "2")), "div ÷2 2×3 f32"),
        (op("sum", ("axes", "(1,)"), ("keepdim", "True")), "sum dim=1 keepdim 2×3 f32"),
        (op("sum", ("axes", "(0, 1)"), ("keepdim", "False")), "sum dim=(0, 1) 2×3 f32"),
        (op("mean", ("axes", "None"), ("keepdim", "False")), "mean 2×3 f32"),
        (op("transpose", ("dim0", "0"), ("dim1", "1")), "transpose dim0=0 dim1=1 2×3 f32"),
        (op("mul"), "mul 2×3 f32"),
    ],
)
def test_a_tree_row_shows_the_distinguishing_argument(node, row):
    assert node_text(node).plain == row


@pytest.mark.parametrize(
    ("node", "words"),
    [
        (op("pow", ("exponent", "3")), ["exponent 3"]),
        (op("sum", ("axes", "(1,)"), ("keepdim", "True")), ["dim=1", "keepdim"]),
        (op("sum", ("axes", "(1,)"), ("keepdim", "False")), ["dim=1"]),
        (op("mul", ("b", "3")), ["input × 3"]),
        (op("sub", ("a", "1.0")), ["1.0 − input"]),
    ],
)
def test_the_header_words_name_every_argument(node, words):
    assert args_words(node) == words


def test_an_old_snapshots_constant_inputs_are_read_as_arguments():
    """Snapshots from before `Node.args` kept Python values as `constant` input nodes."""
    nodes = {1: Node(1, "tensor", "", (), 0, X), 2: Node(2, "constant", "3", (), 0, s(np.int64(3)), is_leaf=True)}
    power = op("pow", inputs=(1, 2))
    scaled = Node(10, "mul", "MulBackward0", (2, 1), 0, X, True)
    assert args_row(power, nodes) == "³" and args_words(power, nodes) == ["exponent 3"]
    assert args_row(scaled, nodes) == "3×"


def test_a_truncated_parameter_name_keeps_its_tail():
    weight = Node(1, "parameter", "", (), 0, s(np.ones((32, 16), np.float32)), True, True, "linear_relu_stack.0.weight")
    bias = Node(2, "parameter", "", (), 0, s(np.ones(32, np.float32)), True, True, "linear_relu_stack.0.bias")
    assert node_text(weight, width=17).plain == "◆ …stack.0.weight"
    assert node_text(bias, width=15).plain == "◆ …stack.0.bias"
    assert node_text(bias, width=40).plain == "◆ linear_relu_stack.0.bias 32 f32"
    assert node_text(bias, width=30).plain == "◆ linear_relu_stack.0.bias 32"


async def test_the_graph_view_tells_two_parameters_apart_in_a_narrow_pane():
    record = mlp_record(passes=1)
    for node in record.nodes.values():
        if node.parameter:
            node.parameter = "linear_relu_stack.0." + node.parameter.split(".")[-1]
    tree = GraphTree()
    async with WidgetApp(tree).run_test(size=(36, 20)) as pilot:
        index = RecordIndex(record)
        tree.show_roots(Moment(index), index.roots())
        tree.reveal_node(next(n.id for n in record.nodes.values() if n.parameter and n.parameter.endswith("bias")))
        await wait_for_text(pilot, "_stack.0.bias")  # cut on the left: the names' ends stay
        await wait_for_text(pilot, "_stack.0.weight")
        assert "linear_relu_stack.0.bias" not in screen_text(pilot.app)


async def test_a_row_beside_the_scrollbar_keeps_its_tail_whole():
    record = mlp_record(passes=1)
    bias = next(n for n in record.nodes.values() if n.parameter == "fc1.bias")
    bias.parameter = "linear_relu_stack.0.bias"
    tree = GraphTree()
    tree.styles.height = "1fr"  # as in the app: the screen's height, its rows scrolled
    async with WidgetApp(tree).run_test(size=(36, 6)) as pilot:  # more rows than lines: a scrollbar
        index = RecordIndex(record)
        tree.show_roots(Moment(index), index.roots())
        tree.reveal_node(bias.id)
        await wait_for(pilot, lambda: tree.show_vertical_scrollbar, what="a scrollbar")
        await wait_for_text(pilot, "_stack.0.bias")
        free = tree.scrollable_content_region.width  # the columns left of the scrollbar
        rows = [tree.render_line(y).text for y in range(tree.size.height)]
        assert all(len(row) <= free for row in rows)
        assert any(row.rstrip().endswith("_stack.0.bias") for row in rows)


async def test_the_header_shows_the_arguments_and_wraps_the_source_line():
    line = "y = torch.nn.functional.some_long_function(x, weight) ** 3 + bias.sum(dim=1, keepdim=True)"
    node = Node(9, "pow", "PowBackward0", (1,), 0, X, True, site=site(30, line), args=(("exponent", "3"),))
    record = mlp_record(passes=1)
    record.nodes[9] = node
    header = NodeHeader()
    async with WidgetApp(header).run_test(size=(50, 10)) as pilot:
        header.show(Moment(RecordIndex(record)), node)
        await pilot.pause()
        shown = screen_text(pilot.app)
    assert "pow  exponent 3" in shown
    # Every word of the line is on screen: it wraps, it is not cut at the edge.
    assert "keepdim=True)" in shown and "bias.sum(dim=1," in shown


async def test_the_header_takes_its_new_height_when_shown_while_a_layout_is_pending():
    """Textual counts a widget's layout request only when none is pending and keeps its box per
    count: a header shown again while its last request waited, with a layout landing between
    (another widget's), kept the shorter text's height and cut the source line."""
    line = "y = torch.nn.functional.some_long_function(x, weight) ** 3 + bias.sum(dim=1, keepdim=True)"
    short = Node(8, "neg", "NegBackward0", (1,), 0, X, True, site=site(29, "y = -x"))
    node = Node(9, "pow", "PowBackward0", (1,), 0, X, True, site=site(30, line), args=(("exponent", "3"),))
    record = mlp_record(passes=1)
    record.nodes[8], record.nodes[9] = short, node
    header = NodeHeader()
    async with WidgetApp(header).run_test(size=(50, 10)) as pilot:
        moment = Moment(RecordIndex(record))
        header.show(moment, short)
        pilot.app.screen._clear_arrangement_cache()  # another widget asked for a layout,
        pilot.app.screen._refresh_layout()  # which lands while the header's request waits
        header.show(moment, node)
        await wait_for(
            pilot,
            lambda: header.size.height == header.visual.get_height(header.styles, header.content_region.width),
            what="the header's height to fit its text",
        )
        assert header.size.height > 3
        assert "keepdim=True)" in screen_text(pilot.app)


async def test_arguments_and_saved_names_from_the_script_stay_literal():
    """A string argument or a variable name full of markup is shown as typed, never parsed."""
    hostile = "[bold]x[/bold][@click=app.quit]"
    record = mlp_record(passes=1)
    leaf = next(n for n in record.nodes.values() if n.parameter)
    leaf.parameter = hostile
    node = Node(9, "pad", "PadBackward0", (leaf.id,), 0, X, True, args=(("mode", repr(hostile)),), saved=("input:0",))
    record.nodes[9] = node
    assert hostile in node_text(node).plain
    header = NodeHeader()
    async with WidgetApp(header).run_test(size=(120, 10)) as pilot:
        header.show(Moment(RecordIndex(record)), node)
        await wait_for_text(pilot, "mode='[bold]x[/bold][@click=app.quit]'")
    assert hostile in saved_text(node, record.nodes).plain


async def test_a_parameters_header_names_it_in_full_and_wraps_its_module_path():
    weight = Node(
        1,
        "parameter",
        "",
        (),
        0,
        s(np.ones((4, 32), np.float32)),
        True,
        True,
        "linear_relu_stack.4.weight",
        "model.linear_relu_stack.4",
    )
    record = mlp_record(passes=1)
    record.nodes[1] = weight
    header = NodeHeader()
    async with WidgetApp(header).run_test(size=(48, 10)) as pilot:
        header.show(Moment(RecordIndex(record)), weight)
        await wait_for_text(pilot, "◆ linear_relu_stack.4.weight  #1")
        await wait_for_text(pilot, "model.linear_relu_stack.4")
