"""conv1d / conv2d and Conv1d / Conv2d agree with torch: values, grads, parameters, init, errors."""

import math

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
from tests.engine.nn.module_tables import CONV_MODULES

CONV2D = [
    ("plain", (2, 3, 7, 6), (4, 3, 3, 3), {}),
    ("stride_padding", (2, 3, 9, 8), (4, 3, 3, 3), dict(stride=2, padding=1)),
    ("per_axis", (2, 3, 9, 8), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 2), dilation=(2, 1))),
    ("dilation", (1, 2, 9, 9), (3, 2, 3, 3), dict(dilation=2)),
    ("groups", (2, 4, 6, 6), (6, 2, 3, 3), dict(groups=2)),
    ("depthwise", (2, 3, 5, 5), (3, 1, 3, 3), dict(groups=3, padding=1)),
    ("same_odd", (2, 3, 6, 5), (4, 3, 3, 3), dict(padding="same")),
    ("same_even_dilated", (2, 3, 9, 8), (4, 3, 2, 4), dict(padding="same", dilation=(1, 2))),
    ("valid", (2, 3, 6, 5), (4, 3, 3, 3), dict(padding="valid")),
    ("one_by_one", (2, 3, 4, 5), (4, 3, 1, 1), {}),
    ("stride_past_the_edge", (1, 2, 8, 7), (2, 2, 3, 2), dict(stride=3)),
    ("unbatched", (3, 7, 6), (4, 3, 3, 3), dict(padding=1)),
]

CONV1D = [
    ("plain", (2, 3, 10), (4, 3, 3), {}),
    ("stride_padding_dilation", (2, 3, 10), (4, 3, 3), dict(stride=2, padding=1, dilation=2)),
    ("groups", (2, 4, 9), (6, 2, 2), dict(groups=2)),
    ("same_even", (2, 3, 8), (4, 3, 4), dict(padding="same")),
    ("unbatched", (3, 10), (4, 3, 3), dict(padding=2)),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("name, x, w, kwargs", CONV2D, ids=[c[0] for c in CONV2D])
def test_conv2d_matches_torch(name, x, w, kwargs, bias):
    specs = [x, w] + ([(w[0],)] if bias else [])
    check_functional("conv2d", specs, **kwargs)


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("name, x, w, kwargs", CONV1D, ids=[c[0] for c in CONV1D])
def test_conv1d_matches_torch(name, x, w, kwargs, bias):
    specs = [x, w] + ([(w[0],)] if bias else [])
    check_functional("conv1d", specs, **kwargs)


def test_conv2d_grads_only_what_is_asked_for():
    check_functional("conv2d", [(2, 3, 6, 6), (4, 3, 3, 3), (4,)], requires_grad=[False, True, False])
    check_functional("conv2d", [(2, 3, 6, 6), (4, 3, 3, 3), (4,)], requires_grad=[True, False, False])


def test_conv2d_of_an_empty_batch_matches_torch():
    check_functional("conv2d", [(0, 3, 5, 5), (4, 3, 3, 3), (4,)], padding=1)


def test_conv2d_of_integers_stays_integer_as_torch():
    x, w = np.arange(2 * 3 * 5 * 5).reshape(2, 3, 5, 5) % 7, np.arange(4 * 3 * 3 * 3).reshape(4, 3, 3, 3) % 5 - 2
    ours, theirs = F.conv2d(gs.tensor(x), gs.tensor(w), stride=2), TF.conv2d(torch.tensor(x), torch.tensor(w), stride=2)
    assert ours.dtype == gs.int64
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


def test_conv2d_output_is_a_new_tensor_whose_grad_fn_names_the_op():
    x = gs.randn(1, 2, 5, 5, requires_grad=True)
    y = F.conv2d(x, gs.randn(3, 2, 3, 3))
    assert y.grad_fn.name() == "ConvolutionBackward0"
    assert y.shape == (1, 3, 3, 3)


# --- errors: torch's message, word for word, unless torch's own is misleading ------------------

SAME_ERRORS = [
    ("input_2d", lambda F, x, w: F.conv2d(x, w), (2, 3), (8, 3, 3, 3)),
    ("wrong_channels", lambda F, x, w: F.conv2d(x, w), (2, 4, 10, 10), (8, 3, 3, 3)),
    ("kernel_too_big", lambda F, x, w: F.conv2d(x, w), (2, 3, 2, 2), (8, 3, 3, 3)),
    ("dilated_kernel_too_big", lambda F, x, w: F.conv2d(x, w, dilation=3), (1, 1, 5, 5), (1, 1, 3, 3)),
    ("bad_padding_string", lambda F, x, w: F.conv2d(x, w, padding="foo"), (2, 3, 10, 10), (8, 3, 3, 3)),
    ("same_strided", lambda F, x, w: F.conv2d(x, w, padding="same", stride=2), (2, 3, 10, 10), (8, 3, 3, 3)),
    ("zero_stride", lambda F, x, w: F.conv2d(x, w, stride=0), (2, 3, 10, 10), (8, 3, 3, 3)),
    ("negative_padding", lambda F, x, w: F.conv2d(x, w, padding=-1), (2, 3, 10, 10), (8, 3, 3, 3)),
    ("zero_dilation", lambda F, x, w: F.conv2d(x, w, dilation=0), (2, 3, 10, 10), (8, 3, 3, 3)),
    ("zero_groups", lambda F, x, w: F.conv2d(x, w, groups=0), (2, 3, 10, 10), (8, 3, 3, 3)),
    ("stride_of_three", lambda F, x, w: F.conv2d(x, w, stride=(1, 2, 3)), (2, 3, 10, 10), (8, 3, 3, 3)),
    ("groups_not_dividing_out", lambda F, x, w: F.conv2d(x, w, groups=3), (2, 3, 10, 10), (7, 1, 3, 3)),
    ("bias_size", lambda F, x, w, b: F.conv2d(x, w, b), (2, 3, 10, 10), (8, 3, 3, 3), (7,)),
    ("conv1d_input_4d", lambda F, x, w: F.conv1d(x, w), (2, 3, 10, 10), (8, 3, 3)),
    ("conv1d_wrong_channels", lambda F, x, w: F.conv1d(x, w), (2, 4, 10), (8, 3, 3)),
]


@pytest.mark.parametrize("case", SAME_ERRORS, ids=[e[0] for e in SAME_ERRORS])
def test_conv_errors_match_torch(case):
    _, call, *shapes = case
    same_error(call, *shapes)


def test_conv2d_dtype_mismatch_names_both_dtypes():
    message = r"Input type \(\S*float32\) and weight type \(\S*float64\) should be the same"
    with pytest.raises(RuntimeError, match=message):
        F.conv2d(gs.randn(1, 3, 5, 5), gs.randn(2, 3, 3, 3, dtype=gs.float64))


def test_conv2d_weight_of_the_wrong_rank_says_what_it_should_be():
    with pytest.raises(
        RuntimeError,
        match=r"Expected 4D weight \(out_channels, in_channels / groups, kH, kW\) "
        r"for conv2d, but got weight of size: \[8, 3, 3\]",
    ):
        F.conv2d(gs.randn(1, 3, 5, 5), gs.randn(8, 3, 3))


def test_conv2d_rejects_a_non_tensor_input():
    with pytest.raises(TypeError, match="conv2d\\(\\): argument 'input' must be Tensor, not list"):
        F.conv2d([[1.0]], gs.randn(1, 1, 1, 1))


# --- modules -----------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, make, shape", CONV_MODULES, ids=[m[0] for m in CONV_MODULES])
def test_conv_modules_match_torch(name, make, shape, dtype):
    x = np.random.default_rng(1).uniform(-2, 2, size=shape)
    compare_module(make(nn), make(tnn), [x], dtype)


@pytest.mark.parametrize("name, make, shape", CONV_MODULES, ids=[m[0] for m in CONV_MODULES])
def test_conv_modules_have_torchs_parameters_and_repr(name, make, shape):
    ours, theirs = make(nn), make(tnn)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in theirs.state_dict().items()
    ]
    assert repr(ours) == repr(theirs)


def test_conv2d_init_draws_within_torchs_kaiming_bounds():
    gs.manual_seed(0)
    conv = nn.Conv2d(16, 32, 3)
    fan_in = 16 * 9
    weight, bias = conv.weight.detach().cpu().numpy(), conv.bias.detach().cpu().numpy()
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)) and the bias both give 1/sqrt(fan_in)
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.9 * bound
    assert np.abs(bias).max() <= bound and np.abs(bias).max() > 0.5 * bound
    assert abs(weight.std() - bound / math.sqrt(3)) < 0.1 * bound


def test_conv2d_loads_a_torch_state_dict_and_computes_the_same():
    theirs = tnn.Conv2d(3, 5, 3, padding=1)
    ours = nn.Conv2d(3, 5, 3, padding=1)
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32)
    np.testing.assert_allclose(
        ours(gs.tensor(x)).detach().cpu().numpy(), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6
    )


MODULE_ERRORS = [
    ("groups_in", lambda nn: nn.Conv2d(3, 8, 3, groups=2)),
    ("groups_out", lambda nn: nn.Conv2d(4, 9, 3, groups=2)),
    ("groups_zero", lambda nn: nn.Conv2d(4, 8, 3, groups=0)),
    ("same_strided", lambda nn: nn.Conv2d(4, 8, 3, padding="same", stride=2)),
]


@pytest.mark.parametrize("name, make", MODULE_ERRORS, ids=[e[0] for e in MODULE_ERRORS])
def test_conv_module_errors_match_torch(name, make):
    with pytest.raises(ValueError) as expected:
        make(tnn)
    with pytest.raises(ValueError) as got:
        make(nn)
    assert str(got.value) == str(expected.value)


def test_conv_module_rejects_an_unknown_padding_mode_listing_the_valid_ones():
    with pytest.raises(
        ValueError,
        match=r"padding_mode must be one of \{'zeros', 'reflect', 'replicate', "
        r"'circular'\}, but got padding_mode='foo'",
    ):
        nn.Conv2d(4, 8, 3, padding_mode="foo")


def test_conv_module_rejects_an_unknown_padding_string():
    with pytest.raises(ValueError, match=r"Invalid padding string 'foo', should be one of \{'valid', 'same'\}"):
        nn.Conv2d(4, 8, 3, padding="foo")
