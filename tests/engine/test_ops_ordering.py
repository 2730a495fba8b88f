"""sort, argsort and topk agree with PyTorch: values, indices, and grads through the permutation."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.torch_reference import check


@pytest.mark.parametrize("dim", [-1, 0, 1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_values_indices_and_grad(dim, descending):
    check(lambda x: x.sort(dim, descending=descending), [(4, 5, 3)])
    check(
        lambda x: gs.sort(x, dim=dim, descending=descending),
        [(4, 5)],
        lambda x: torch.sort(x, dim=dim, descending=descending),
    )


def test_stable_sort_keeps_the_order_of_equal_values():
    ties = np.array([[2.0, 1.0, 2.0, 1.0, 3.0, 2.0]])
    for descending in (False, True):
        check(
            lambda x, descending=descending: gs.sort(x, descending=descending, stable=True),
            [ties],
            lambda x, descending=descending: torch.sort(x, descending=descending, stable=True),
        )


NANS = np.array([[1.0, np.nan, -2.0, 3.0], [np.nan, 0.5, 4.0, -1.0], [2.0, 1.0, 0.0, np.nan]])


def test_sort_puts_nan_last_ascending_and_first_descending():
    for descending in (False, True):
        check(lambda x, descending=descending: x.sort(descending=descending), [NANS])


@pytest.mark.parametrize("largest", [True, False])
def test_topk_counts_nan_as_the_largest(largest):
    check(lambda x: x.topk(2, largest=largest), [NANS])


def test_sort_of_integers_and_a_scalar():
    check(lambda x: x.sort(descending=True), [np.array([3, 1, 2])])
    check(lambda x: x.sort(), [np.array(2.5)])


@pytest.mark.parametrize("descending", [False, True])
def test_argsort(descending):
    check(lambda x: x.argsort(dim=0, descending=descending), [(5, 3)], forward_only=True)
    check(
        lambda x: gs.argsort(x, descending=descending),
        [(5, 3)],
        lambda x: torch.argsort(x, descending=descending),
        forward_only=True,
    )


@pytest.mark.parametrize("k", [1, 3, 5])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_values_indices_and_grad(k, largest):
    check(lambda x: x.topk(k, largest=largest), [(4, 5)])
    check(lambda x: gs.topk(x, k, dim=0, largest=largest), [(6, 3)], lambda x: torch.topk(x, k, dim=0, largest=largest))


def test_topk_with_k_out_of_range_raises():
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        gs.arange(5.0).topk(6)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        gs.arange(5.0).topk(-1)


def test_sort_with_a_bad_dim_raises():
    with pytest.raises(IndexError, match="Dimension out of range"):
        gs.zeros(2, 3).sort(dim=2)
