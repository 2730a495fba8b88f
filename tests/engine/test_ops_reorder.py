"""flip, roll, tril, triu and cumsum agree with PyTorch, forward and backward."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.torch_reference import check


@pytest.mark.parametrize("dims", [(0,), (1,), (0, 2), (-1,)], ids=str)
def test_flip(dims):
    check(lambda x: gs.flip(x, dims), [(2, 3, 4)], lambda x: torch.flip(x, dims))
    check(lambda x: x.flip(*dims), [(2, 3, 4)])


@pytest.mark.parametrize("shifts, dims", [(1, None), (-2, None), (1, 0), (2, 1), ((1, -1), (0, 1)), (5, -1)], ids=str)
def test_roll(shifts, dims):
    check(lambda x: gs.roll(x, shifts, dims), [(3, 4)], lambda x: torch.roll(x, shifts, dims))
    check(lambda x: x.roll(shifts, dims), [(3, 4)])


def test_roll_with_misaligned_shifts_raises():
    with pytest.raises(RuntimeError, match="shifts and dimensions must align"):
        gs.zeros(2, 3).roll((1, 2), (0,))


@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("diagonal", [0, 1, -1, 3, -4])
def test_triangles(op, diagonal):
    check(lambda x: getattr(x, op)(diagonal), [(4, 5)])
    check(
        lambda x: getattr(gs, op)(x, diagonal=diagonal), [(2, 3, 3)], lambda x: getattr(torch, op)(x, diagonal=diagonal)
    )


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_triangles_of_ints_and_bools(op):
    check(lambda x: getattr(x, op)(), [np.arange(9).reshape(3, 3)])
    check(lambda x: getattr(x, op)(), [np.ones((3, 3), dtype=bool)])


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_triangles_need_two_dims(op):
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        getattr(gs.ones(3), op)()


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum(dim):
    check(lambda x: x.cumsum(dim), [(3, 4)])
    check(lambda x: gs.cumsum(x, dim=dim), [(3, 4)], lambda x: torch.cumsum(x, dim=dim))


def test_cumsum_of_ints_and_bools_is_int64():
    check(lambda x: x.cumsum(0), [np.array([1, 2, 3], dtype=np.int32)])
    check(lambda x: x.cumsum(0), [np.array([True, False, True])])
    check(lambda x: x.cumsum(0, dtype=gs.float64), [np.array([1, 2, 3])], lambda x: x.cumsum(0, dtype=torch.float64))
