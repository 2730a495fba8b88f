"""F.pad and F.interpolate agree with torch: values, grads, and errors."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphscope as gs
import graphscope.nn.functional as F
from tests.engine.nn.cnn_reference import check_functional, same_error
from tests.engine.op_tables import INTERPOLATE, PAD


@pytest.mark.parametrize("name, x, pad, kwargs", PAD, ids=[c[0] for c in PAD])
def test_pad_matches_torch(name, x, pad, kwargs):
    check_functional("pad", [x], pad, **kwargs)


def test_pad_of_an_integer_tensor_casts_the_value_as_torch():
    x = np.arange(12).reshape(3, 4)
    ours, theirs = F.pad(gs.tensor(x), (1, 1), value=3.5), TF.pad(torch.tensor(x), (1, 1), value=3.5)
    assert ours.dtype == gs.int64
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


PAD_ERRORS = [
    ("odd_length", lambda F, x: F.pad(x, (1, 2, 3)), (2, 3, 4, 5)),
    ("too_long", lambda F, x: F.pad(x, (1,) * 10), (2, 3, 4, 5)),
    ("unknown_mode", lambda F, x: F.pad(x, (1, 1), mode="foo"), (2, 3, 4, 5)),
    ("reflect_one_dim_of_4d", lambda F, x: F.pad(x, (1, 1), mode="reflect"), (2, 3, 4, 5)),
    ("reflect_1d_input", lambda F, x: F.pad(x, (1, 1), mode="reflect"), (3,)),
    ("reflect_too_wide", lambda F, x: F.pad(x, (4, 4), mode="reflect"), (2, 3, 4)),
    ("reflect_too_wide_2nd_dim", lambda F, x: F.pad(x, (1, 1, 3, 3), mode="reflect"), (2, 3, 4)),
    ("circular_wraps_twice", lambda F, x: F.pad(x, (5, 2), mode="circular"), (2, 3, 4)),
    ("reflect_with_value", lambda F, x: F.pad(x, (1, 1), mode="reflect", value=2.0), (2, 3, 4)),
    ("float_padding", lambda F, x: F.pad(x, (1.5, 1)), (2, 3, 4)),
    ("crop_below_zero", lambda F, x: F.pad(x, (-3, -3)), (2, 3, 4)),
]


@pytest.mark.parametrize("case", PAD_ERRORS, ids=[e[0] for e in PAD_ERRORS])
def test_pad_errors_match_torch(case):
    _, call, *shapes = case
    same_error(call, *shapes)


@pytest.mark.parametrize("name, x, kwargs", INTERPOLATE, ids=[c[0] for c in INTERPOLATE])
def test_interpolate_matches_torch(name, x, kwargs):
    check_functional("interpolate", [x], **kwargs)


def test_interpolate_keeps_a_nan_to_its_neighbours_as_torch():
    x = np.random.default_rng(0).standard_normal((1, 1, 6, 6))
    x[0, 0, 2, 3] = np.nan
    for kwargs in (dict(scale_factor=2), dict(scale_factor=1.5, mode="bilinear")):
        ours = F.interpolate(gs.tensor(x), **kwargs).cpu().numpy()
        theirs = TF.interpolate(torch.tensor(x), **kwargs).numpy()
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
        np.testing.assert_allclose(ours, theirs)


INTERPOLATE_ERRORS = [
    ("neither_size_nor_scale", lambda F, x: F.interpolate(x), (2, 3, 4, 5)),
    ("both_size_and_scale", lambda F, x: F.interpolate(x, size=3, scale_factor=2), (2, 3, 4, 5)),
    ("size_of_three", lambda F, x: F.interpolate(x, size=(3, 4, 5)), (2, 3, 4, 5)),
    ("scale_of_three", lambda F, x: F.interpolate(x, scale_factor=(2, 2, 2)), (2, 3, 4, 5)),
    ("align_corners_with_nearest", lambda F, x: F.interpolate(x, size=8, align_corners=True), (2, 3, 4, 5)),
    ("bilinear_on_3d", lambda F, x: F.interpolate(x, size=8, mode="bilinear"), (2, 3, 4)),
    ("linear_on_4d", lambda F, x: F.interpolate(x, size=8, mode="linear"), (2, 3, 4, 5)),
    ("unknown_mode", lambda F, x: F.interpolate(x, size=8, mode="foo"), (2, 3, 4, 5)),
    ("size_zero", lambda F, x: F.interpolate(x, size=0), (2, 3, 4, 5)),
    ("scale_to_zero", lambda F, x: F.interpolate(x, scale_factor=0.1), (2, 3, 4, 5)),
    ("scale_to_zero_1d", lambda F, x: F.interpolate(x, scale_factor=0.1), (2, 3, 4)),
    ("input_1d", lambda F, x: F.interpolate(x, size=3), (3,)),
]


@pytest.mark.parametrize("case", INTERPOLATE_ERRORS, ids=[e[0] for e in INTERPOLATE_ERRORS])
def test_interpolate_errors_match_torch(case):
    _, call, *shapes = case
    same_error(call, *shapes)


@pytest.mark.parametrize("mode", ["bicubic", "trilinear"])
def test_interpolate_modes_graphscope_lacks_say_so(mode):
    x = gs.randn(1, 1, 4, 4, 4) if mode == "trilinear" else gs.randn(1, 1, 4, 4)
    with pytest.raises(NotImplementedError, match=f"interpolate: mode '{mode}' on [45]D input is not supported"):
        F.interpolate(x, scale_factor=2, mode=mode)


def test_interpolate_of_integers_asks_for_a_float_input():
    with pytest.raises(
        NotImplementedError,
        match=r"interpolate: .*int64 input is not supported; convert it with "
        r"\.float\(\)",
    ):
        F.interpolate(gs.zeros(1, 1, 4, 4, dtype=gs.int64), size=8)
