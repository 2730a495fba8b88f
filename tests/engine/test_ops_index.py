"""Indexing, __setitem__, comparisons and masked_fill agree with PyTorch."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.op_tables import BASIC_INDEXES, SETITEMS, set_item
from tests.engine.torch_reference import check


@pytest.mark.parametrize("name", BASIC_INDEXES)
def test_indexing(name):
    check(BASIC_INDEXES[name], [(3, 4, 5)])


def test_indexing_of_1d():
    check(lambda x: x[2] + x[-1] + x[1:3].sum() + x[[0, 0]].sum(), [(5,)])


@pytest.mark.parametrize(
    "index", [np.array([0, 2, 2, 1, 0]), np.array([[1, 1], [0, 2]]), np.array(1)], ids=["1-d", "2-d", "0-d"]
)
def test_indexing_with_integer_tensor_accumulates_repeated_indices(index):
    check(lambda x, i: x[i], [(3, 4), index])


def test_indexing_with_integer_tensor_on_second_dim():
    check(lambda x, i: x[:, i], [(3, 4), np.array([3, 3, 0])])


def test_indexing_with_boolean_mask_tensor():
    mask = np.array([[True, False, True, False], [False, False, False, False], [True, True, True, True]])
    check(lambda x, m: x[m], [(3, 4), mask])


def test_indexing_with_boolean_row_mask():
    check(lambda x, m: x[m], [(3, 4), np.array([True, False, True])])


def test_indexing_with_mask_from_comparison():
    check(lambda x: x[x > 0], [(4, 5)])


def test_indexing_of_integer_tensor():
    check(lambda x: x[1:, [0, 0]], [np.arange(12).reshape(3, 4)])


BOOL_INDEXES = {
    "True": lambda x: x[True],
    "False": lambda x: x[False],
    "True then an int": lambda x: x[True, 1],
    "an int then True": lambda x: x[1, True],
    "ellipsis then True": lambda x: x[..., True],
    "True twice": lambda x: x[True, True],
    "True with a list": lambda x: x[True, [2, 0]],
    "a slice, True and a list": lambda x: x[:, True, [1, 0, 1]],
    "None then False": lambda x: x[None, False],
    "a 0-d bool tensor": lambda x: x[(x > 100).any()],
}


@pytest.mark.parametrize("name", BOOL_INDEXES)
def test_indexing_with_a_python_bool_adds_a_dim_of_size_1_or_0(name):
    check(BOOL_INDEXES[name], [(3, 4, 5)])


def test_indexing_a_0d_tensor_with_a_python_bool():
    check(lambda x: x[True] * 2 + x[False].sum(), [()])


@pytest.mark.parametrize("index", [True, False, (False,), (0, True), (0, False)], ids=str)
def test_setitem_with_a_python_bool(index):
    check(set_item(index), [(3, 4), (4,)])
    check(set_item(index, 2.5), [(3, 4)])


@pytest.mark.parametrize(
    "index", [slice(None, None, -1), (0, slice(3, 0, -2)), (Ellipsis, slice(None, None, -1))], ids=str
)
def test_a_negative_slice_step_is_refused_as_in_torch(index):
    for lib in (torch, gs):
        with pytest.raises(ValueError, match=r"^step must be greater than zero$"):
            lib.zeros(4, 4)[index]
        with pytest.raises(ValueError, match=r"^step must be greater than zero$"):
            lib.zeros(4, 4)[index] = 1.0


@pytest.mark.parametrize("name", SETITEMS)
def test_setitem(name):
    fn, shapes = SETITEMS[name]
    check(fn, shapes)


def test_setitem_with_boolean_mask():
    def fn(x):
        y = x * 2
        y[y > 0] = 0.0
        return y

    check(fn, [(4, 5)])


def test_setitem_with_integer_tensor_index():
    def fn(x, i, v):
        y = x + 0
        y[i] = v
        return y

    check(fn, [(4, 3), np.array([3, 0]), (2, 3)])


def test_setitem_into_tensor_not_requiring_grad_makes_it_require_grad():
    def fn(x, v):
        y = x * 1
        y[1:] = v
        return y

    check(fn, [(3, 2), (2, 2)], requires_grad=[False, True])


def test_setitem_on_plain_tensor_changes_its_values():
    x = gs.zeros(2, 3)
    x[0, 1] = 5.0
    x[1] = gs.tensor([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(x.cpu().numpy(), [[0.0, 5.0, 0.0], [1.0, 2.0, 3.0]])
    assert x.dtype == gs.float32


COMPARISONS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


@pytest.mark.parametrize("op", COMPARISONS)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (3,))], ids=str)
def test_comparison_gives_bool_without_grad(op, shapes):
    rng = np.random.default_rng(2)
    # Small integers as floats, so equal pairs occur.
    a, b = (rng.integers(0, 3, size=s).astype(np.float64) for s in shapes)
    check(COMPARISONS[op], [a, b])


@pytest.mark.parametrize("op", COMPARISONS)
def test_comparison_with_python_scalar(op):
    values = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    check(lambda a: COMPARISONS[op](a, 0.5), [values])
    check(lambda a: COMPARISONS[op](1, a), [values])


@pytest.mark.parametrize("op", COMPARISONS)
def test_comparison_of_integer_tensors(op):
    check(COMPARISONS[op], [np.array([1, 2, 3]), np.array([3, 2, 1])])


@pytest.mark.parametrize("mask_shape", [(3, 4), (4,), (3, 1)], ids=str)
def test_masked_fill(mask_shape):
    mask = np.random.default_rng(4).random(mask_shape) > 0.5
    check(lambda x, m: x.masked_fill(m, -3.5), [(3, 4), mask])


def test_masked_fill_with_minus_inf_before_softmax():
    mask = np.array([[False, True, False, True], [True, False, False, False], [False, False, False, False]])
    check(lambda x, m: x.masked_fill(m, float("-inf")).softmax(dim=-1), [(3, 4), mask])


def test_masked_fill_function_form():
    mask = np.array([True, False, True])
    check(lambda x, m: gs.masked_fill(x, m, 0.0), [(2, 3), mask], lambda x, m: torch.masked_fill(x, m, 0.0))


INT_AND_ARRAY_INDEXES = {  # torch selects the ints first, then indexes what is left with the arrays
    "int, slice, list": (0, slice(None), [0, 1]),
    "list, slice, int": ([0, 1], slice(None), 0),
    "None, int, slice, list": (None, 0, slice(None), [0, 1]),
    "int, ..., list": (1, Ellipsis, [0, 2]),
    "list, int, list": ([0, 1], 0, [1, 2]),
    "slice, int, list": (slice(None), 0, [3, 1]),
    "2-d list, int, list": ([[0], [1]], 0, [0, 1, 2]),
}


@pytest.mark.parametrize("name", INT_AND_ARRAY_INDEXES)
def test_ints_with_index_arrays_select_first_as_in_torch(name):
    index = INT_AND_ARRAY_INDEXES[name]
    check(lambda x: x[index], [(2, 3, 4)])


@pytest.mark.parametrize("name", INT_AND_ARRAY_INDEXES)
def test_setitem_with_ints_and_index_arrays_writes_where_torch_does(name):
    index = INT_AND_ARRAY_INDEXES[name]

    def written(x, v):
        y = x * 1
        y[index] = v
        return y

    shape = tuple(torch.zeros(2, 3, 4)[index].shape)
    check(written, [(2, 3, 4), shape])


RANGE_INDEXES = {  # a Python range indexes as the list of its numbers, as in torch
    "range, list": (range(3), [1, 0, 3]),
    "rows": range(2),
    "stepped columns": (slice(None), range(1, 4, 2)),
    "counting down": range(2, 0, -1),
    "two ranges": (range(2), range(1, 3)),
    "empty range": range(0),
    "empty list": [],
}


@pytest.mark.parametrize("name", RANGE_INDEXES)
def test_indexing_with_a_range_as_torch(name):
    index = RANGE_INDEXES[name]
    check(lambda x: x[index], [(3, 4)])


def test_a_range_beside_an_index_tensor_picks_one_element_per_row_as_torch():
    check(lambda x, y: x[range(3), y], [(3, 4), np.array([1, 0, 3])])  # the backprop lecture's logits[range(n), y]


@pytest.mark.parametrize("name", RANGE_INDEXES)
def test_setitem_with_a_range_writes_where_torch_does(name):
    index = RANGE_INDEXES[name]

    def written(x, v):
        y = x * 1
        y[index] = v
        return y

    check(written, [(3, 4), tuple(torch.zeros(3, 4)[index].shape)])


def test_a_range_past_the_end_is_an_index_error_naming_it():
    for lib in (gs, torch):
        with pytest.raises(IndexError, match=r"index 3 is out of bounds for (dimension|axis) 0 with size 3"):
            lib.zeros(3, 4)[range(5)]
