"""The Saved tab names what a node saved as the user knows it.

Its inputs by their names, its output, its arguments; the engine's arrays apart.
"""

import numpy as np

from graphscope.trace.record.model import Node
from graphscope.tui.node_details import saved_text
from tests.hand_records import mlp_record, s


def cube_of_a():
    """y = a ** 3 with `a` a leaf the script called `a`; and a relu of a matmul's output."""
    nodes = {
        1: Node(1, "parameter", "", (), 0, s(np.array([2.0, 3.0], np.float32)), True, True, "a"),
        2: Node(
            2,
            "pow",
            "PowBackward0",
            (1,),
            0,
            s(np.array([8.0, 27.0], np.float32)),
            True,
            saved=("input:0", "output"),
            args=(("exponent", "3"),),
        ),
        3: Node(3, "matmul", "MmBackward0", (1, 1), 0, s(np.ones((4, 5), np.float32)), True),
        4: Node(4, "relu", "ReluBackward0", (3,), 0, s(np.ones((4, 5), np.float32)), True, saved=("input:0", "mask")),
    }
    return nodes


def lines(text):
    return [line.strip() for line in text.plain.splitlines()]


def test_a_saved_input_is_shown_by_its_variable_name_with_its_value():
    nodes = cube_of_a()
    shown = lines(saved_text(nodes[2], nodes))
    assert "• a  input 0  2 f32  [2, 3]" in shown
    assert "• output (its own value)  2 f32  [8, 27]" in shown
    assert "• exponent 3" in shown


def test_an_unnamed_input_is_shown_by_its_position_and_op():
    nodes = cube_of_a()
    shown = lines(saved_text(nodes[4], nodes))
    assert "• input 0 (matmul #3)  4×5 f32  1 … 1" in shown


def test_the_engines_own_arrays_are_shown_apart_as_internals():
    nodes = cube_of_a()
    text = saved_text(nodes[4], nodes).plain
    before, _, after = text.partition("Kept by the engine (its names, not your script's):")
    assert "mask" in after and "mask" not in before


def test_engine_argument_names_never_pass_for_the_scripts_variables():
    """An old snapshot saved `a` and `b` (the engine's operand names): the script's `a` is another tensor."""
    record = mlp_record(passes=1)
    mul = next(n for n in record.nodes.values() if n.op == "mul")
    mul.saved = ("a", "b")
    text = saved_text(mul, record.nodes).plain
    assert "Saved for backward" not in text
    assert text.startswith("Kept by the engine (its names, not your script's):")


def test_a_node_that_saved_nothing_says_so():
    nodes = cube_of_a()
    assert "Nothing saved for backward." in saved_text(nodes[3], nodes).plain
