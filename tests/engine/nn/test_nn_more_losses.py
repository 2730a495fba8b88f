"""smooth_l1_loss, huber_loss, kl_div, cosine_embedding_loss and their modules agree with torch."""

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphscope as gs
from graphscope.engine import nn
from graphscope.engine.nn import functional as F
from tests.engine.nn.module_tables import LOSS_MODULES
from tests.engine.torch_reference import check

REDUCTIONS = ["mean", "sum", "none"]
# Differences on both sides of the quadratic zone's edges (beta / delta of 0.5, 1 and 2).
DIFFS = np.array([[-3.0, -1.2, -0.7, -0.3, 0.0], [0.2, 0.45, 0.8, 1.6, 2.5]])


def _lib(x):
    return F if isinstance(x, gs.Tensor) else TF


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("beta", [1.0, 0.5, 2.0, 0.0])
def test_smooth_l1_loss(reduction, beta):
    check(lambda x, y: _lib(x).smooth_l1_loss(x, y, reduction=reduction, beta=beta), [DIFFS, np.zeros((2, 5)) + 0.1])
    check(lambda x, y: _lib(x).smooth_l1_loss(x, y, reduction=reduction, beta=beta), [(4, 3), (4, 3)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("delta", [1.0, 0.5, 2.0])
def test_huber_loss(reduction, delta):
    check(lambda x, y: _lib(x).huber_loss(x, y, reduction=reduction, delta=delta), [DIFFS, np.zeros((2, 5)) + 0.1])
    check(lambda x, y: _lib(x).huber_loss(x, y, reduction=reduction, delta=delta), [(4, 3), (4, 3)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_huber_loss_with_weight(reduction):
    check(
        lambda x, y, w: _lib(x).huber_loss(x, y, reduction=reduction, weight=w),
        [(4, 3), (4, 3), (4, 3)],
        requires_grad=[True, True, False],
    )


def _log_probabilities(shape, seed):
    logits = np.random.default_rng(seed).standard_normal(shape)
    return logits - np.log(np.exp(logits).sum(-1, keepdims=True))


@pytest.mark.parametrize("reduction", ["batchmean", "sum", "none", "mean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    x, t = _log_probabilities((4, 5), 0), _log_probabilities((4, 5), 1)
    target = t if log_target else np.exp(t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 'mean' warns in both libraries
        check(lambda a, b: _lib(a).kl_div(a, b, reduction=reduction, log_target=log_target), [x, target])


def test_kl_div_with_zero_targets_gives_zero_loss_and_torchs_grads():
    check(
        lambda a, b: _lib(a).kl_div(a, b, reduction="sum"),
        [np.array([-1.0, -2.0, -0.5]), np.array([0.0, 0.5, 0.5])],
        requires_grad=[True, False],
    )
    x, t = gs.tensor([-1.0, -2.0]), gs.tensor([0.0, 0.5], requires_grad=True)
    F.kl_div(x, t, reduction="sum").backward()
    assert np.isnan(np.asarray(t.grad)[0])  # d/dt t log t at 0, as torch's xlogy: NaN


def test_kl_div_mean_warns_as_torch():
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(gs.zeros(2, 2), gs.ones(2, 2) / 2)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.3, -0.2])
def test_cosine_embedding_loss(reduction, margin):
    y = np.array([1, -1, 1, -1, -1])
    check(
        lambda a, b, t: _lib(a).cosine_embedding_loss(a, b, t, margin=margin, reduction=reduction), [(5, 4), (5, 4), y]
    )
    check(
        lambda a, b, t: _lib(a).cosine_embedding_loss(a, b, t, margin=margin, reduction=reduction),
        [(4,), (4,), np.array(-1)],
    )


@pytest.mark.parametrize("name, options, specs", LOSS_MODULES, ids=[m[0] for m in LOSS_MODULES])
def test_loss_modules(name, options, specs):
    check(
        lambda *a: (getattr(nn, name) if isinstance(a[0], gs.Tensor) else getattr(torch.nn, name))(**options)(*a), specs
    )


ERRORS = [
    (
        lambda: F.smooth_l1_loss(gs.zeros(2), gs.zeros(2), beta=-1),
        RuntimeError,
        "smooth_l1_loss does not support negative values for beta",
    ),
    (
        lambda: F.huber_loss(gs.zeros(2), gs.zeros(2), delta=0),
        RuntimeError,
        "huber_loss does not support non-positive values for delta",
    ),
    (lambda: F.kl_div(gs.zeros(2), gs.zeros(2), reduction="bad"), ValueError, "bad is not a valid value for reduction"),
    (lambda: F.smooth_l1_loss(gs.zeros(2), gs.zeros(2), reduction="bad"), ValueError, "reduction must be"),
    (lambda: F.huber_loss(gs.zeros(2), gs.zeros(3)), RuntimeError, "must have the same shape"),
    (
        lambda: F.cosine_embedding_loss(gs.ones(2, 3, 1), gs.ones(2, 3, 1), gs.ones(2)),
        RuntimeError,
        "1D target tensor expects 2D input tensors, but found inputs with sizes \\[2, 3, 1\\] and \\[2, 3, 1\\]",
    ),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=range(len(ERRORS)))
def test_loss_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
