"""gs.nn.functional agrees with torch.nn.functional in value, dtype, shape and grads (float64 and float32)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphscope as gs
from graphscope.engine.backend import to_host
from graphscope.engine.nn import functional as F
from graphscope.engine.ops.unary import FUNCTIONAL
from tests.engine.torch_reference import check

RNG = np.random.default_rng(7)


def _targets(shape, classes, ignore=None, count=0):
    t = RNG.integers(0, classes, size=shape).astype(np.int64)
    if ignore is not None and count:
        t.reshape(-1)[:count] = ignore
    return t


def _lib(x):
    return F if isinstance(x, gs.Tensor) else TF


# --- layers -----------------------------------------------------------------------------------


@pytest.mark.parametrize("x_shape", [(5, 4), (2, 3, 4), (4,)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(x_shape, bias):
    specs = [x_shape, (3, 4)] + ([(3,)] if bias else [])
    check(lambda *a: _lib(a[0]).linear(*a), specs)


def test_linear_shape_mismatch_names_both_shapes():
    x, w = gs.randn(3, 5), gs.randn(4, 6)
    with pytest.raises(RuntimeError, match=r"\(3, 5\).*\(4, 6\)"):
        F.linear(x, w)


@pytest.mark.parametrize("name", ["relu", *FUNCTIONAL])
def test_elementwise_activations_match_torch(name):
    check(lambda x: getattr(_lib(x), name)(x), [(4, 5)])


@pytest.mark.parametrize("slope", [0.01, 0.2])
def test_leaky_relu_matches_torch(slope):
    check(lambda x: _lib(x).leaky_relu(x, slope), [(4, 5)])


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_torch(approximate):
    check(lambda x: _lib(x).gelu(x, approximate=approximate), [(6, 7)], low=-6, high=6)


def test_gelu_is_exact_far_into_the_tails():
    x = np.array([-40.0, -12.0, -6.0, -3.0, -1e-9, 0.0, 1e-9, 3.0, 6.0, 12.0, 40.0])
    check(lambda x: _lib(x).gelu(x), [x])


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_family_matches_torch(fn, dim):
    check(lambda x: getattr(_lib(x), fn)(x, dim=dim), [(3, 4, 5)])


def test_layer_norm_matches_torch():
    check(lambda x, w, b: _lib(x).layer_norm(x, (5,), w, b, 1e-5), [(3, 4, 5), (5,), (5,)])


def test_layer_norm_over_two_dims_without_affine_matches_torch():
    check(lambda x: _lib(x).layer_norm(x, (4, 5)), [(3, 4, 5)])


def test_embedding_matches_torch_with_repeated_indices():
    ids = np.array([[0, 2, 2], [4, 0, 2]])
    check(lambda w, i: _lib(w).embedding(i, w), [(5, 3), ids])


def test_embedding_padding_row_gets_no_grad():
    ids = np.array([[0, 2, 1], [1, 0, 2]])
    check(lambda w, i: _lib(w).embedding(i, w, padding_idx=1), [(5, 3), ids])


def test_embedding_index_out_of_range_names_index_and_size():
    with pytest.raises(IndexError, match="index 7 is out of range for 5 embeddings"):
        F.embedding(gs.tensor([1, 7]), gs.randn(5, 3))


def test_one_hot_matches_torch():
    t = np.array([[0, 3], [2, 1]])
    got = F.one_hot(gs.tensor(t), 5)
    expected = TF.one_hot(torch.tensor(t), 5)
    assert got.dtype == gs.int64
    np.testing.assert_array_equal(got.cpu().numpy(), expected.cpu().numpy())
    np.testing.assert_array_equal(F.one_hot(gs.tensor(t)).cpu().numpy(), TF.one_hot(torch.tensor(t)).cpu().numpy())


# --- dropout ----------------------------------------------------------------------------------


def test_dropout_in_eval_is_the_identity():
    x = gs.randn(10, 10, requires_grad=True)
    assert F.dropout(x, 0.5, training=False) is x


def test_dropout_zeroes_about_p_and_scales_the_rest():
    gs.manual_seed(0)
    x = gs.ones(200, 500, requires_grad=True)
    y = F.dropout(x, 0.3)
    values = y.detach().cpu().numpy()
    kept = np.unique(values[values != 0])
    np.testing.assert_allclose(kept, [1 / 0.7], rtol=1e-6)
    assert abs((values == 0).mean() - 0.3) < 0.01
    assert abs(values.mean() - 1.0) < 0.02


def test_dropout_backward_applies_the_same_mask():
    gs.manual_seed(1)
    x = gs.randn(50, 40, requires_grad=True)
    y = F.dropout(x, 0.5)
    mask = to_host(y.grad_fn.saved_arrays()["mask"])
    np.testing.assert_allclose(y.detach().cpu().numpy(), x.detach().cpu().numpy() * mask)
    cotangent = np.random.default_rng(0).standard_normal((50, 40)).astype(np.float32)
    y.backward(gs.tensor(cotangent))
    np.testing.assert_allclose(x.grad.cpu().numpy(), cotangent * mask, rtol=1e-6)


def test_dropout_is_reproducible_under_manual_seed():
    x = gs.ones(30, 30)
    gs.manual_seed(5)
    a = F.dropout(x, 0.5).cpu().numpy()
    gs.manual_seed(5)
    b = F.dropout(x, 0.5).cpu().numpy()
    np.testing.assert_array_equal(a, b)


def test_dropout_rejects_a_probability_outside_0_1():
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.dropout(gs.ones(3), 1.5)


# --- losses -----------------------------------------------------------------------------------

REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_regression_losses_match_torch(name, reduction):
    check(lambda x, y: getattr(_lib(x), name)(x, y, reduction=reduction), [(4, 3), (4, 3)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_matches_torch(reduction):
    check(lambda x, t: _lib(x).cross_entropy(x, t, reduction=reduction), [(6, 5), _targets(6, 5)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_with_ignore_index_matches_torch(reduction, smoothing):
    t = _targets(8, 5, ignore=-100, count=3)
    check(lambda x, t: _lib(x).cross_entropy(x, t, reduction=reduction, label_smoothing=smoothing), [(8, 5), t])


def test_cross_entropy_with_a_class_as_ignore_index_matches_torch():
    t = np.array([0, 1, 2, 0, 3, 0])
    check(lambda x, t: _lib(x).cross_entropy(x, t, ignore_index=0), [(6, 4), t])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.25])
def test_cross_entropy_label_smoothing_matches_torch(reduction, smoothing):
    check(
        lambda x, t: _lib(x).cross_entropy(x, t, reduction=reduction, label_smoothing=smoothing),
        [(7, 4), _targets(7, 4)],
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_with_class_weights_matches_torch(reduction, smoothing):
    t = _targets(9, 4, ignore=-100, count=2)
    w = RNG.uniform(0.5, 2.0, size=4)
    check(
        lambda x, t, w: _lib(x).cross_entropy(x, t, weight=w, reduction=reduction, label_smoothing=smoothing),
        [(9, 4), t, w],
        requires_grad=[True, False, False],
    )


INFINITE_LOGITS = np.array([[np.inf, 1.0, 0.0], [-np.inf, 1.0, 0.0], [-np.inf, 1.0, 0.0], [1.0, np.inf, np.inf]])


@pytest.mark.parametrize("reduction", ["none", "sum"])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_with_infinite_logits_matches_torch(reduction, smoothing):
    # An inf logit gives NaN (inf - inf), a -inf one a loss of inf only when it is the target.
    check(
        lambda x, t: _lib(x).cross_entropy(x, t, reduction=reduction, label_smoothing=smoothing),
        [INFINITE_LOGITS, np.array([0, 0, 1, 0])],
    )


def test_cross_entropy_with_infinite_logits_and_probability_targets_matches_torch():
    check(
        lambda x, t: _lib(x).cross_entropy(x, t, reduction="none"),
        [INFINITE_LOGITS, np.array([[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])],
        requires_grad=[True, False],
    )


def test_cross_entropy_over_spatial_dims_matches_torch():
    check(lambda x, t: _lib(x).cross_entropy(x, t, label_smoothing=0.1), [(2, 4, 3, 5), _targets((2, 3, 5), 4)])


def test_cross_entropy_unbatched_matches_torch():
    check(lambda x, t: _lib(x).cross_entropy(x, t), [(5,), np.array(3)])


@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_with_probability_targets_matches_torch(smoothing):
    p = RNG.dirichlet(np.ones(5), size=6)
    check(lambda x, p: _lib(x).cross_entropy(x, p, label_smoothing=smoothing), [(6, 5), p])


def test_cross_entropy_is_stable_for_huge_logits():
    x = np.array([[1000.0, -1000.0, 0.0], [-800.0, 800.0, 1.0]])
    check(lambda x, t: _lib(x).cross_entropy(x, t), [x, np.array([0, 2])])


def test_cross_entropy_target_out_of_range_names_value_and_classes():
    with pytest.raises(IndexError, match="target 5 is out of range for 5 classes"):
        F.cross_entropy(gs.randn(3, 5), gs.tensor([0, 5, 1]))
    with pytest.raises(IndexError, match="target -1 is out of range for 5 classes"):
        F.cross_entropy(gs.randn(3, 5), gs.tensor([0, -1, 1]))


def test_cross_entropy_rejects_a_float_class_target_of_the_wrong_shape():
    with pytest.raises(RuntimeError, match="probability targets must have the input's shape"):
        F.cross_entropy(gs.randn(3, 5), gs.tensor([0.0, 1.0, 2.0]))


def test_cross_entropy_rejects_a_bad_reduction():
    with pytest.raises(ValueError, match="reduction must be"):
        F.cross_entropy(gs.randn(3, 5), gs.tensor([0, 1, 2]), reduction="avg")


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_matches_torch(reduction):
    t = _targets(8, 5, ignore=-100, count=2)
    check(lambda x, t: _lib(x).nll_loss(_lib(x).log_softmax(x, 1), t, reduction=reduction), [(8, 5), t])


def test_nll_loss_with_weights_matches_torch():
    t = _targets(8, 5, ignore=-100, count=2)
    w = RNG.uniform(0.5, 2.0, size=5)
    check(lambda x, t, w: _lib(x).nll_loss(x, t, weight=w), [(8, 5), t, w], requires_grad=[True, False, False])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_matches_torch(reduction):
    y = RNG.uniform(0, 1, size=(4, 3))
    check(lambda p, y: _lib(p).binary_cross_entropy(p, y, reduction=reduction), [(4, 3), y], low=0.02, high=0.98)


def test_binary_cross_entropy_clamps_the_log_at_0_and_1_like_torch():
    p = np.array([0.0, 1.0, 0.5, 1e-50])
    y = np.array([1.0, 0.0, 1.0, 1.0])
    check(lambda p, y: _lib(p).binary_cross_entropy(p, y), [p, y], dtypes=("float64",), requires_grad=[False, False])


def test_binary_cross_entropy_rejects_values_outside_0_1():
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(gs.tensor([1.5]), gs.tensor([1.0]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits_matches_torch(reduction):
    y = RNG.uniform(0, 1, size=(4, 3))
    check(lambda x, y: _lib(x).binary_cross_entropy_with_logits(x, y, reduction=reduction), [(4, 3), y], low=-5, high=5)


def test_bce_with_logits_with_weight_and_pos_weight_matches_torch():
    y = (RNG.uniform(0, 1, size=(5, 3)) > 0.5).astype(np.float64)
    w = RNG.uniform(0.5, 2, size=(3,))
    pw = RNG.uniform(0.5, 3, size=(3,))
    check(
        lambda x, y, w, pw: _lib(x).binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw),
        [(5, 3), y, w, pw],
        requires_grad=[True, True, False, False],
    )


def test_bce_with_logits_is_stable_for_huge_logits():
    x = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0])
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    check(lambda x, y: _lib(x).binary_cross_entropy_with_logits(x, y), [x, y], requires_grad=[True, False])


def test_loss_shape_mismatch_names_both_shapes():
    with pytest.raises(RuntimeError, match=r"\(4, 1\).*\(4,\)"):
        F.mse_loss(gs.randn(4, 1), gs.randn(4))
