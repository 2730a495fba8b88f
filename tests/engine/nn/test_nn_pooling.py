"""max_pool2d, avg_pool2d, adaptive_avg_pool2d and their modules agree with torch, errors included."""

import numpy as np
import pytest
import torch
import torch.nn as tnn
import torch.nn.functional as TF

import graphscope as gs
import graphscope.nn.functional as F
from graphscope import nn
from tests.engine.nn.cnn_reference import check_functional, same_error
from tests.engine.nn.module_reference import DTYPES, compare_module
from tests.engine.nn.module_tables import POOLING_MODULES

MAX_POOL = [
    ("kernel_2", (2, 3, 8, 8), (2,), {}),
    ("kernel_2_odd_size", (2, 3, 9, 7), (2,), {}),
    ("kernel_3_stride_2_pad_1", (2, 3, 9, 8), (3, 2, 1), {}),
    ("per_axis", (2, 3, 9, 8), ((2, 3), (1, 2), (1, 1)), {}),
    ("dilation", (2, 3, 9, 8), (2,), dict(stride=1, dilation=(2, 3))),
    ("ceil_mode", (2, 3, 9, 8), (3, 2, 1), dict(ceil_mode=True)),
    ("ceil_mode_no_padding", (1, 2, 7, 6), (2,), dict(ceil_mode=True)),
    ("one_by_one", (2, 3, 4, 4), (1,), {}),
    ("unbatched", (3, 8, 7), (2,), {}),
    ("large_kernel", (1, 1, 13, 13), (12, 1), {}),
    ("empty_batch", (0, 3, 4, 4), (2,), {}),
    ("wide_dilation", (1, 2, 30, 30), (3,), dict(stride=1, dilation=14)),
]


@pytest.mark.parametrize("name, x, args, kwargs", MAX_POOL, ids=[c[0] for c in MAX_POOL])
def test_max_pool2d_matches_torch(name, x, args, kwargs):
    check_functional("max_pool2d", [x], *args, **kwargs)


@pytest.mark.parametrize("name, x, args, kwargs", MAX_POOL, ids=[c[0] for c in MAX_POOL])
def test_max_pool2d_indices_match_torch(name, x, args, kwargs):
    check_functional("max_pool2d", [x], *args, return_indices=True, requires_grad=[False], **kwargs)


def test_max_pool2d_sends_the_grad_of_a_tie_to_the_first_max_as_torch():
    x = np.zeros((1, 1, 4, 4))
    x[0, 0, 1, 1] = x[0, 0, 1, 0] = 1.0  # a tie inside the first window, and all-zero windows
    check_functional("max_pool2d", [x], 2)
    check_functional("max_pool2d", [x], 3, 1, 1)


def test_max_pool2d_propagates_nan_as_torch():
    x = np.random.default_rng(0).standard_normal((1, 2, 6, 6))
    x[0, 0, 1, 1] = x[0, 1, 4, 5] = x[0, 1, 5, 5] = np.nan
    for kwargs in ({}, dict(stride=1, padding=1)):
        ours = F.max_pool2d(gs.tensor(x), 2 if not kwargs else 3, **kwargs)
        theirs = TF.max_pool2d(torch.tensor(x), 2 if not kwargs else 3, **kwargs)
        np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


def test_max_pool2d_keeps_integer_dtypes():
    x = np.arange(2 * 3 * 6 * 6).reshape(2, 3, 6, 6) % 7
    ours, theirs = F.max_pool2d(gs.tensor(x), 3, 2, 1), TF.max_pool2d(torch.tensor(x), 3, 2, 1)
    assert ours.dtype == gs.int64
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


AVG_POOL = [
    ("kernel_2", (2, 3, 8, 8), (2,), {}),
    ("kernel_3_stride_2_pad_1", (2, 3, 9, 8), (3, 2, 1), {}),
    ("excluding_padding", (2, 3, 9, 8), (3, 2, 1), dict(count_include_pad=False)),
    ("per_axis", (2, 3, 9, 8), ((2, 3), (1, 2), (1, 1)), {}),
    ("ceil_mode", (2, 3, 9, 8), (3, 2, 1), dict(ceil_mode=True)),
    ("ceil_mode_excluding_padding", (2, 3, 9, 8), (3, 2, 1), dict(ceil_mode=True, count_include_pad=False)),
    ("ceil_mode_no_padding", (1, 2, 7, 6), (2,), dict(ceil_mode=True)),
    ("divisor_override", (2, 3, 8, 8), (2,), dict(divisor_override=3)),
    ("overlapping", (2, 3, 8, 8), (3, 1), {}),
    ("unbatched", (3, 8, 7), (2,), {}),
]


@pytest.mark.parametrize("name, x, args, kwargs", AVG_POOL, ids=[c[0] for c in AVG_POOL])
def test_avg_pool2d_matches_torch(name, x, args, kwargs):
    check_functional("avg_pool2d", [x], *args, **kwargs)


ADAPTIVE = [
    ("global", (2, 3, 7, 5), 1),
    ("divisible", (2, 3, 8, 6), (4, 3)),
    ("uneven_bins", (2, 3, 7, 5), (3, 2)),
    ("larger_than_input", (1, 2, 3, 4), (5, 6)),
    ("none_keeps_a_size", (2, 3, 7, 5), (None, 2)),
    ("same_size", (2, 3, 4, 5), (4, 5)),
    ("unbatched", (3, 7, 5), (2, 4)),
]


@pytest.mark.parametrize("name, x, size", ADAPTIVE, ids=[c[0] for c in ADAPTIVE])
def test_adaptive_avg_pool2d_matches_torch(name, x, size):
    check_functional("adaptive_avg_pool2d", [x], size)


def test_adaptive_avg_pool2d_keeps_an_inf_to_its_bins_as_torch():
    x = np.random.default_rng(0).standard_normal((1, 1, 5, 7))
    x[0, 0, 0, 0] = np.inf
    ours = F.adaptive_avg_pool2d(gs.tensor(x), (3, 4)).cpu().numpy()
    np.testing.assert_allclose(ours, TF.adaptive_avg_pool2d(torch.tensor(x), (3, 4)).numpy())


SAME_ERRORS = [
    ("max_pad_over_half", lambda F, x: F.max_pool2d(x, 3, padding=2), (2, 3, 10, 10)),
    ("max_zero_stride", lambda F, x: F.max_pool2d(x, 2, stride=0), (2, 3, 10, 10)),
    ("max_2d_input", lambda F, x: F.max_pool2d(x, 2), (3, 10)),
    ("max_output_too_small", lambda F, x: F.max_pool2d(x, 2), (1, 1, 1, 1)),
    ("max_dilated_output_too_small", lambda F, x: F.max_pool2d(x, 3, dilation=3), (1, 2, 5, 5)),
    ("max_kernel_of_three", lambda F, x: F.max_pool2d(x, (1, 2, 3)), (1, 2, 5, 5)),
    ("max_zero_dilation", lambda F, x: F.max_pool2d(x, 2, dilation=0), (1, 2, 5, 5)),
    ("avg_pad_over_half", lambda F, x: F.avg_pool2d(x, 3, padding=2), (2, 3, 10, 10)),
    ("avg_output_too_small", lambda F, x: F.avg_pool2d(x, 2), (1, 1, 1, 1)),
    ("avg_zero_stride", lambda F, x: F.avg_pool2d(x, 2, stride=0), (2, 3, 10, 10)),
    ("avg_zero_divisor", lambda F, x: F.avg_pool2d(x, 2, divisor_override=0), (2, 3, 10, 10)),
    ("adaptive_1d_input", lambda F, x: F.adaptive_avg_pool2d(x, 2), (3,)),
    ("adaptive_three_sizes", lambda F, x: F.adaptive_avg_pool2d(x, (2, 2, 2)), (2, 3, 10, 10)),
]


@pytest.mark.parametrize("case", SAME_ERRORS, ids=[e[0] for e in SAME_ERRORS])
def test_pooling_errors_match_torch(case):
    _, call, *shapes = case
    same_error(call, *shapes)


def test_avg_pool2d_of_a_2d_input_says_what_it_needs():
    with pytest.raises(RuntimeError, match=r"non-empty 3D or 4D \(batch mode\) tensor expected for input"):
        F.avg_pool2d(gs.randn(3, 10), 2)


def test_avg_pool2d_of_integers_asks_for_a_float_input():
    with pytest.raises(NotImplementedError, match=r"avg_pool2d: integer input .* convert it with .float\(\)"):
        F.avg_pool2d(gs.zeros(1, 1, 4, 4, dtype=gs.int64), 2)


# --- modules -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, make, shape", POOLING_MODULES, ids=[m[0] for m in POOLING_MODULES])
def test_pooling_modules_match_torch(name, make, shape, dtype):
    x = np.random.default_rng(1).uniform(-2, 2, size=shape)
    compare_module(make(nn), make(tnn), [x], dtype)


@pytest.mark.parametrize("name, make, shape", POOLING_MODULES, ids=[m[0] for m in POOLING_MODULES])
def test_pooling_modules_print_as_torch(name, make, shape):
    assert repr(make(nn)) == repr(make(tnn))


def test_max_pool_module_returns_indices_when_asked():
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6))
    out, indices = nn.MaxPool2d(2, return_indices=True)(gs.tensor(x))
    expected_out, expected_indices = tnn.MaxPool2d(2, return_indices=True)(torch.tensor(x))
    np.testing.assert_array_equal(out.cpu().numpy(), expected_out.numpy())
    np.testing.assert_array_equal(indices.cpu().numpy(), expected_indices.numpy())
    assert indices.dtype == gs.int64
