"""batch_norm and BatchNorm1d / BatchNorm2d agree with torch: outputs, grads, running stats, errors."""

import numpy as np
import pytest
import torch
import torch.nn as tnn
import torch.nn.functional as TF

import graphscope as gs
import graphscope.nn.functional as F
from graphscope import nn
from tests.engine.nn.cnn_reference import same_error
from tests.engine.nn.module_reference import DTYPES, TOL, compare_module
from tests.engine.nn.module_tables import BATCHNORM_MODULES
from tests.engine.torch_reference import check as reference


def check(fn, specs, requires_grad=None):
    """fn(F, *inputs) in graphscope against fn(torch.nn.functional, *inputs)."""
    reference(lambda *t: fn(F, *t), specs, lambda *t: fn(TF, *t), requires_grad=requires_grad)


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 6), (4, 3, 5, 2)])
def test_batch_norm_training_matches_torch(shape):
    check(lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True), [shape, (3,), (3,)])
    check(lambda F, x: F.batch_norm(x, None, None, training=True, eps=1e-3), [shape])


def test_batch_norm_with_weight_only_or_bias_only_matches_torch():
    check(lambda F, x, w: F.batch_norm(x, None, None, w, training=True), [(4, 3, 5), (3,)])
    check(lambda F, x, b: F.batch_norm(x, None, None, None, b, training=True), [(4, 3, 5), (3,)])


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 5, 2)])
def test_batch_norm_in_eval_uses_the_running_stats_as_torch(shape):
    var = np.random.default_rng(3).uniform(0.5, 2.0, 3)
    check(
        lambda F, x, w, b, m, v: F.batch_norm(x, m, v, w, b, training=False),
        [shape, (3,), (3,), (3,), var],
        requires_grad=[True, True, True, False, False],
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("momentum", [0.1, 0.3])
def test_batch_norm_moves_running_stats_with_the_unbiased_variance_as_torch(dtype, momentum):
    x = np.random.default_rng(0).standard_normal((6, 3, 4, 2)).astype(dtype)
    mean, var = np.linspace(-1, 1, 3).astype(dtype), np.linspace(0.5, 2, 3).astype(dtype)
    ours = gs.tensor(mean.copy()), gs.tensor(var.copy())
    theirs = torch.tensor(mean.copy()), torch.tensor(var.copy())
    F.batch_norm(gs.tensor(x), *ours, training=True, momentum=momentum)
    torch.nn.functional.batch_norm(torch.tensor(x), *theirs, training=True, momentum=momentum)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), **TOL[dtype])
        assert a.dtype == getattr(gs, dtype)


# --- modules -----------------------------------------------------------------------------------


def _buffers(module):
    return {k: v.detach().cpu().numpy() for k, v in module.named_buffers()}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, make, shape", BATCHNORM_MODULES, ids=[m[0] for m in BATCHNORM_MODULES])
def test_batch_norm_modules_train_then_evaluate_as_torch(name, make, shape, dtype):
    ours, theirs = make(nn), make(tnn)
    rng = np.random.default_rng(1)
    for step in range(3):  # training steps move the running stats; each is compared
        x = rng.uniform(-2, 2, size=shape) * (step + 1)
        compare_module(ours, theirs, [x], dtype, seed=step)
        expected = _buffers(theirs)
        got = _buffers(ours)
        assert got.keys() == expected.keys()
        for key in expected:
            assert got[key].dtype == expected[key].dtype, key
            np.testing.assert_allclose(got[key], expected[key], err_msg=key, **TOL[dtype])
    ours.eval(), theirs.eval()
    compare_module(ours, theirs, [rng.uniform(-2, 2, size=shape)], dtype)


@pytest.mark.parametrize("name, make, shape", BATCHNORM_MODULES, ids=[m[0] for m in BATCHNORM_MODULES])
def test_batch_norm_modules_have_torchs_state_and_repr(name, make, shape):
    ours, theirs = make(nn), make(tnn)
    assert [(k, tuple(v.shape), str(v.dtype).split(".")[-1]) for k, v in ours.state_dict().items()] == [
        (k, tuple(v.shape), str(v.dtype).split(".")[-1]) for k, v in theirs.state_dict().items()
    ]
    assert [k for k, _ in ours.named_parameters()] == [k for k, _ in theirs.named_parameters()]
    assert repr(ours) == repr(theirs)


def test_batch_norm_loads_a_trained_torch_state_dict():
    theirs = tnn.BatchNorm2d(3)
    x = torch.randn(4, 3, 5, 5) * 3 + 1
    theirs(x), theirs(x * 2)
    theirs.eval()
    ours = nn.BatchNorm2d(3)
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    ours.eval()
    assert int(ours.num_batches_tracked) == 2
    np.testing.assert_allclose(
        ours(gs.tensor(x.numpy())).detach().cpu().numpy(), theirs(x).detach().numpy(), rtol=1e-5, atol=1e-6
    )


def test_batch_norm_eval_without_running_stats_normalises_by_the_batch_as_torch():
    ours = nn.BatchNorm1d(3, track_running_stats=False).eval()
    theirs = tnn.BatchNorm1d(3, track_running_stats=False).eval()
    compare_module(ours, theirs, [np.random.default_rng(0).standard_normal((6, 3))], "float64")


# --- errors ------------------------------------------------------------------------------------

MODULE_ERRORS = [
    ("bn2d_3d_input", lambda nn: nn.BatchNorm2d(3), (2, 3, 4)),
    ("bn1d_4d_input", lambda nn: nn.BatchNorm1d(3), (2, 3, 4, 5)),
    ("one_value_per_channel", lambda nn: nn.BatchNorm1d(3), (1, 3)),
    ("wrong_channels", lambda nn: nn.BatchNorm2d(3), (2, 4, 4, 4)),
]


@pytest.mark.parametrize("name, make, shape", MODULE_ERRORS, ids=[e[0] for e in MODULE_ERRORS])
def test_batch_norm_module_errors_match_torch(name, make, shape):
    same_error(lambda F, x: make(tnn if F is torch.nn.functional else nn)(x), shape)


FUNCTIONAL_ERRORS = [
    ("eval_without_running_stats", lambda F, x: F.batch_norm(x, None, None, training=False), (2, 3, 4, 4)),
    ("running_mean_size", lambda F, x, m, v: F.batch_norm(x, m, v, training=False), (2, 3, 4, 4), (4,), (4,)),
    ("weight_size", lambda F, x, w: F.batch_norm(x, None, None, w, training=True), (2, 3, 4, 4), (4,)),
    ("eps_zero_in_training", lambda F, x: F.batch_norm(x, None, None, training=True, eps=0.0), (2, 3)),
    ("eps_negative", lambda F, x, m, v: F.batch_norm(x, m, v, eps=-1.0), (2, 3), (3,), (3,)),
    ("one_value_per_channel", lambda F, x: F.batch_norm(x, None, None, training=True), (1, 3, 1, 1)),
]


@pytest.mark.parametrize("case", FUNCTIONAL_ERRORS, ids=[e[0] for e in FUNCTIONAL_ERRORS])
def test_batch_norm_errors_match_torch(case):
    _, call, *shapes = case
    same_error(call, *shapes)
