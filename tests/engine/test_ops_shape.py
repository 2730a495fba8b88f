"""Shape ops and joining/splitting ops agree with PyTorch, grads included."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.op_tables import SHAPE_OPS
from tests.engine.torch_reference import check


@pytest.mark.parametrize("name", SHAPE_OPS)
def test_shape_op(name):
    shape, fn = SHAPE_OPS[name]
    check(fn, [shape])


def test_shape_ops_function_form():
    def fn(lib):
        return lambda x: (
            lib.reshape(x, (4, 6)),
            lib.flatten(lib.transpose(x, 0, 1), 1),
            lib.permute(x, (2, 0, 1)),
            lib.squeeze(lib.unsqueeze(x, 0), 0),
        )

    check(fn(gs), [(2, 3, 4)], fn(torch))


def test_size_and_shape_after_shape_ops():
    x = gs.zeros(2, 3, 4)
    assert x.reshape(4, -1).shape == (4, 6)
    assert x.permute(2, 0, 1).size() == (4, 2, 3)
    assert x.transpose(0, 1).size(0) == 3
    assert x.unsqueeze(1).shape == (2, 1, 3, 4)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat(dim):
    shapes = [(2, 3, 4), (2, 3, 4), (2, 3, 4)]
    shapes = [tuple(2 + i if d == dim % 3 else s for d, s in enumerate(shape)) for i, shape in enumerate(shapes)]
    check(lambda *xs: gs.cat(xs, dim=dim), shapes, lambda *xs: torch.cat(xs, dim=dim))


def test_cat_default_dim_and_list_argument():
    check(lambda a, b: gs.cat([a, b]), [(2, 3), (1, 3)], lambda a, b: torch.cat([a, b]))


def test_cat_with_input_not_requiring_grad():
    check(
        lambda a, b: gs.cat([a, b], 1), [(2, 3), (2, 2)], lambda a, b: torch.cat([a, b], 1), requires_grad=[False, True]
    )


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack(dim):
    check(lambda a, b, c: gs.stack([a, b, c], dim=dim), [(2, 3)] * 3, lambda a, b, c: torch.stack([a, b, c], dim=dim))


def test_stack_of_0d_tensors():
    check(lambda a, b: gs.stack((a, b)), [(), ()], lambda a, b: torch.stack((a, b)))


@pytest.mark.parametrize("size, dim", [(2, 0), (3, 0), (2, 1), ([1, 3, 3], 0), ([2, 2], -1)], ids=str)
def test_split(size, dim):
    check(lambda x: x.split(size, dim=dim), [(7, 4)])


def test_split_function_and_unused_pieces():
    # Only the first piece is used downstream; the others get no cotangent.
    check(lambda x: gs.split(x, 3)[0] * 2, [(7, 2)], lambda x: torch.split(x, 3)[0] * 2)


@pytest.mark.parametrize("chunks, dim", [(3, 0), (2, 1), (7, 0), (4, -1)], ids=str)
def test_chunk(chunks, dim):
    check(lambda x: x.chunk(chunks, dim=dim), [(7, 4)])


def test_chunk_function_form():
    check(lambda x: gs.chunk(x, 2, 1), [(3, 5)], lambda x: torch.chunk(x, 2, 1))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_with_repeated_indices(dim):
    rng = np.random.default_rng(3)
    index = rng.integers(0, 4, size=(4, 4)) if dim == 0 else rng.integers(0, 3, size=(4, 3))
    shape = (4, 4) if dim == 0 else (4, 3)
    check(lambda x, i: x.gather(dim, i), [shape, index])


def test_gather_function_form_with_smaller_index():
    index = np.array([[0, 0], [2, 1], [1, 1]])
    check(lambda x, i: gs.gather(x, 1, i), [(3, 4), index], lambda x, i: torch.gather(x, 1, i))
