"""Tensor.norm, torch.norm and torch.linalg norms agree with PyTorch: values, grads, errors."""

import math

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.op_tables import VECTOR_ORDS
from tests.engine.torch_reference import check


@pytest.mark.parametrize("ord", VECTOR_ORDS, ids=str)
@pytest.mark.parametrize("dim, keepdim", [(None, False), (1, False), (0, True), ((0, 1), False)], ids=str)
def test_vector_norm(ord, dim, keepdim):
    check(
        lambda x: gs.linalg.vector_norm(x, ord, dim, keepdim),
        [(3, 4)],
        lambda x: torch.linalg.vector_norm(x, ord, dim, keepdim),
    )


@pytest.mark.parametrize("ord", [None, 2, 1, math.inf, -math.inf], ids=str)
def test_linalg_norm_of_a_vector(ord):
    check(lambda x: gs.linalg.norm(x, ord), [(5,)], lambda x: torch.linalg.norm(x, ord))


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf], ids=str)
def test_linalg_norm_of_a_matrix(ord):
    check(lambda x: gs.linalg.norm(x, ord), [(3, 4)], lambda x: torch.linalg.norm(x, ord))


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, 2, -math.inf], ids=str)
@pytest.mark.parametrize("dim", [(-2, -1), (1, 0), (0, 2)], ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm_over_dims(ord, dim, keepdim):
    check(
        lambda x: gs.linalg.matrix_norm(x, ord, dim, keepdim),
        [(2, 3, 4)],
        lambda x: torch.linalg.matrix_norm(x, ord, dim, keepdim),
    )


def test_linalg_norm_without_ord_flattens_any_shape():
    check(lambda x: gs.linalg.norm(x), [(2, 3, 4)], lambda x: torch.linalg.norm(x))
    check(
        lambda x: gs.linalg.norm(x, dim=1, keepdim=True),
        [(2, 3, 4)],
        lambda x: torch.linalg.norm(x, dim=1, keepdim=True),
    )
    check(lambda x: gs.linalg.norm(x, dim=(0, 2)), [(2, 3, 4)], lambda x: torch.linalg.norm(x, dim=(0, 2)))


@pytest.mark.parametrize(
    "p, dim, keepdim",
    [
        ("fro", None, False),
        (2, None, False),
        (3, 1, True),
        ("fro", 1, False),
        (1, (0, 1), False),
        (math.inf, None, False),
        (0, None, False),
        ("nuc", None, False),
        ("fro", (0, 1), True),
    ],
    ids=str,
)
def test_torch_norm_and_tensor_norm(p, dim, keepdim):
    check(lambda x: gs.norm(x, p, dim, keepdim), [(3, 4)], lambda x: torch.norm(x, p, dim, keepdim))
    check(lambda x: x.norm(p=p, dim=dim, keepdim=keepdim), [(3, 4)])


def test_norm_gradient_at_zero_is_zero():
    check(lambda x: x.norm(), [np.zeros(3)])
    check(
        lambda x: gs.linalg.vector_norm(x, 1.5),
        [np.array([0.0, 1.0, -2.0])],
        lambda x: torch.linalg.vector_norm(x, 1.5),
    )
    check(
        lambda x: gs.linalg.vector_norm(x, 0.5),
        [np.array([0.0, 1.0, -2.0])],
        lambda x: torch.linalg.vector_norm(x, 0.5),
    )


def test_norm_with_a_wider_dtype():
    check(
        lambda x: gs.linalg.vector_norm(x, dtype=gs.float64),
        [(3,)],
        lambda x: torch.linalg.vector_norm(x, dtype=torch.float64),
        dtypes=("float32",),
    )


NORM_ERRORS = [
    (lambda: gs.norm(gs.arange(3)), "Expected a floating point or complex tensor as input. Got int64"),
    (lambda: gs.linalg.norm(gs.ones(2, 3, 4), ord=1), "If dim is not specified but ord is, the input must be 1D or 2D"),
    (lambda: gs.linalg.norm(gs.ones(2, 3), ord="fro", dim=0), "Order fro is a matrix norm"),
    (lambda: gs.linalg.norm(gs.ones(2, 3), ord="abc"), "Order abc not supported"),
    (lambda: gs.linalg.matrix_norm(gs.ones(3)), "must have at least 2 dimensions"),
    (lambda: gs.norm(gs.ones(2, 3, 4), p="fro", dim=(0, 1, 2)), "dim must be a 2-tuple"),
    (lambda: gs.linalg.vector_norm(gs.ones(2, dtype=gs.float64), dtype=gs.float32), "without narrowing"),
]


@pytest.mark.parametrize("call, message", NORM_ERRORS, ids=range(len(NORM_ERRORS)))
def test_norm_errors(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_vector_norm_refuses_a_string_ord():
    with pytest.raises(TypeError, match="'ord' must be Number"):
        gs.linalg.vector_norm(gs.ones(2), "fro")
