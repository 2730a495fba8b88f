"""dot, mv, mm, bmm and einsum agree with PyTorch, with its shape and dtype errors."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.torch_reference import check


def test_dot_mv_mm_bmm():
    check(lambda a, b: gs.dot(a, b), [(5,), (5,)], lambda a, b: torch.dot(a, b))
    check(lambda a, b: a.dot(b), [(5,), (5,)])
    check(lambda a, b: gs.mv(a, b), [(3, 5), (5,)], lambda a, b: torch.mv(a, b))
    check(lambda a, b: a.mv(b), [(3, 5), (5,)])
    check(lambda a, b: gs.mm(a, b), [(3, 5), (5, 2)], lambda a, b: torch.mm(a, b))
    check(lambda a, b: a.mm(b), [(3, 5), (5, 2)])
    check(lambda a, b: gs.bmm(a, b), [(4, 3, 5), (4, 5, 2)], lambda a, b: torch.bmm(a, b))
    check(lambda a, b: a.bmm(b), [(4, 3, 5), (4, 5, 2)])


def test_dot_of_integers():
    check(lambda a, b: gs.dot(a, b), [np.arange(3), np.arange(3)], lambda a, b: torch.dot(a, b))


ERRORS = [
    (lambda: gs.dot(gs.zeros(3), gs.zeros(4)), "inconsistent tensor size, expected tensor \\[3\\] and src \\[4\\]"),
    (lambda: gs.dot(gs.zeros(3), gs.zeros(3, dtype=gs.float64)), "same dtype"),
    (lambda: gs.dot(gs.zeros(3, 1), gs.zeros(3)), "1D tensors expected, but got 2D and 1D tensors"),
    (lambda: gs.mv(gs.zeros(2, 3), gs.zeros(4)), "size mismatch, got input \\(2\\), mat \\(2x3\\), vec \\(4\\)"),
    (lambda: gs.mv(gs.zeros(2, 3), gs.zeros(3, 1)), "vector \\+ matrix @ vector expected, got 1, 2, 2"),
    (lambda: gs.mm(gs.zeros(2, 3), gs.zeros(4, 5)), "mat1 and mat2 shapes cannot be multiplied \\(2x3 and 4x5\\)"),
    (lambda: gs.mm(gs.zeros(2, 3, 1), gs.zeros(4, 5)), "self must be a matrix"),
    (lambda: gs.bmm(gs.zeros(3, 4), gs.zeros(2, 4, 5)), "batch1 must be a 3D tensor"),
    (
        lambda: gs.bmm(gs.zeros(2, 3, 4), gs.zeros(2, 5, 5)),
        "Expected size for first two dimensions of batch2 tensor to be: \\[2, 4\\] but got: \\[2, 5\\]",
    ),
    (lambda: gs.bmm(gs.zeros(2, 3, 4), gs.zeros(2, 4, 5, dtype=gs.float64)), "same dtype"),
]


@pytest.mark.parametrize("call, message", ERRORS, ids=range(len(ERRORS)))
def test_product_errors(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij->ji", [(3, 4)]),
    ("ji", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,), (5,)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij->...ji", [(2, 2, 3, 4)]),
    ("b i d, b j d -> b i j", [(2, 3, 4), (2, 5, 4)]),
    ("ij,ij->ij", [(3, 1), (3, 4)]),
]


@pytest.mark.parametrize("equation, shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum(equation, shapes):
    check(lambda *xs: gs.einsum(equation, *xs), shapes, lambda *xs: torch.einsum(equation, *xs))


def test_einsum_takes_a_list_of_operands():
    check(lambda a, b: gs.einsum("ij,j->i", [a, b]), [(3, 4), (4,)], lambda a, b: torch.einsum("ij,j->i", [a, b]))


EINSUM_ERRORS = [
    ("ij,jk", [(2, 3)], "fewer operands were provided than specified in the equation"),
    ("ij", [(2, 3), (3,)], "more operands were provided than specified in the equation"),
    ("ij->k", [(2, 3)], "output subscript k does not appear in the equation for any input operand"),
    ("ij->ii", [(2, 2)], "output subscript i appears more than once in the output"),
    (
        "ij,jk",
        [(2, 3), (4, 5)],
        "subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3",
    ),
    ("ii", [(2, 3)], "subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"),
    (
        "ijk",
        [(2, 3)],
        "the number of subscripts in the equation \\(3\\) does not match the number of dimensions \\(2\\)",
    ),
    ("i1", [(2, 3)], "invalid subscript given in the equation"),
]


@pytest.mark.parametrize("equation, shapes, message", EINSUM_ERRORS, ids=[e for e, _, _ in EINSUM_ERRORS])
def test_einsum_errors(equation, shapes, message):
    with pytest.raises(RuntimeError, match=message):
        gs.einsum(equation, *[gs.zeros(*s) for s in shapes])


def test_einsum_needs_one_dtype():
    with pytest.raises(RuntimeError, match="same dtype"):
        gs.einsum("i,i", gs.ones(2), gs.ones(2, dtype=gs.float64))
