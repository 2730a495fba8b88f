"""Reductions, max/min with ties, arg-reductions and the softmax family agree with PyTorch."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.op_tables import DIMS
from tests.engine.torch_reference import check


def _reduce(op, dim, keepdim, **kwargs):
    """x.op(), or x.op(dim=..., keepdim=...) when a dim is given."""
    if dim is None:
        return lambda x: getattr(x, op)(**kwargs)
    return lambda x: getattr(x, op)(dim=dim, keepdim=keepdim, **kwargs)


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin"])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_reduction_over_dims(op, dim, keepdim):
    check(_reduce(op, dim, keepdim), [(2, 3, 4)])


@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reduction_over_every_dim_kept_as_ones(op):
    """dim=None with keepdim=True: a (1, 1, 1) result whose grad is spread back (a ValueError once)."""
    check(lambda x: getattr(x, op)(dim=None, keepdim=True), [(2, 3, 4)])


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "prod", "max", "min"])
def test_reduction_of_0d_tensor(op):
    check(lambda x: getattr(x, op)(), [()])


@pytest.mark.parametrize("op", ["sum", "mean", "var", "std", "prod", "amax", "logsumexp", "softmax"])
def test_reduction_of_0d_tensor_over_dim_0(op):
    kwargs = {"correction": 0} if op in ("var", "std") else {}
    check(lambda x: getattr(x, op)(dim=0, **kwargs), [()])


@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reduction_function_form(op):
    check(
        lambda x: getattr(gs, op)(x, dim=1) + getattr(gs, op)(x),
        [(3, 4)],
        lambda x: getattr(torch, op)(x, dim=1) + getattr(torch, op)(x),
    )


def test_sum_with_positional_dim():
    check(lambda x: x.sum(1) + x.mean(0, True).sum(), [(3, 4)])


@pytest.mark.parametrize("op", ["var", "std"])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_var_std_default_correction(op, dim, keepdim):
    check(_reduce(op, dim, keepdim), [(2, 3, 4)])


@pytest.mark.parametrize("op", ["var", "std"])
@pytest.mark.parametrize("correction", [0, 1, 2])
@pytest.mark.parametrize("dim", [None, 1, (0, 2)], ids=str)
def test_var_std_with_correction(op, correction, dim):
    check(lambda x: getattr(x, op)(dim=dim, correction=correction), [(2, 3, 4)])


def test_var_std_function_form():
    check(
        lambda x: gs.var(x, dim=0) + gs.std(x, dim=0, correction=0),
        [(3, 4)],
        lambda x: torch.var(x, dim=0) + torch.std(x, dim=0, correction=0),
    )


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_prod(dim, keepdim):
    check(_reduce("prod", dim, keepdim), [(3, 4)], low=0.5, high=1.5)


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_prod_with_zeros(dim):
    # One zero in row 0 (grad nonzero only there), two zeros in row 1 (grad all zero), none in row 2.
    values = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 4.0], [1.5, -2.0, 0.5]])
    check(_reduce("prod", dim, False), [values])


def test_prod_with_negative_values():
    check(lambda x: x.prod(dim=1), [np.array([[-2.0, 0.5, -3.0], [1.0, -1.0, 4.0]])])


TIES = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, -1.0], [-5.0, 4.0, -5.0, 4.0]])


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_over_dim_return_values_and_indices(op, dim, keepdim):
    check(lambda x: getattr(x, op)(dim=dim, keepdim=keepdim), [(3, 4, 5)])


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1])
def test_max_min_over_dim_send_tied_grad_to_returned_index(op, dim):
    check(lambda x: getattr(x, op)(dim), [TIES])


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_over_dim_unpack_as_values_indices(op):
    def fn(x):
        values, indices = getattr(x, op)(dim=1)
        return values * 2, indices

    check(fn, [TIES])


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_over_all_split_tied_grad_evenly(op):
    check(lambda x: getattr(x, op)(), [TIES])
    check(lambda x: getattr(x, op)(), [np.array([[3.0, 3.0], [3.0, 3.0]])])


@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)], ids=str)
def test_amax_amin_split_tied_grad_evenly(op, dim):
    check(_reduce(op, dim, False), [TIES])


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_argmax_argmin_pick_first_of_ties(op, dim, keepdim):
    fn = (lambda x: getattr(x, op)()) if dim is None else (lambda x: getattr(x, op)(dim=dim, keepdim=keepdim))
    check(fn, [TIES])


@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_argmax_argmin_function_form(op):
    check(lambda x: getattr(gs, op)(x, dim=1), [(3, 4)], lambda x: getattr(torch, op)(x, dim=1))


@pytest.mark.parametrize("op", ["max", "min", "amax", "amin"])
def test_max_min_function_form(op):
    check(lambda x: getattr(gs, op)(x), [(3, 4)], lambda x: getattr(torch, op)(x))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_family(op, dim):
    check(lambda x: getattr(x, op)(dim=dim), [(3, 4, 5)])


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_family_function_form(op):
    check(
        lambda x: getattr(gs, op)(x, dim=1) + getattr(gs, op)(x, 0),
        [(3, 4)],
        lambda x: getattr(torch, op)(x, dim=1) + getattr(torch, op)(x, 0),
    )


@pytest.mark.parametrize("dim", [0, 1, -1, (0, 1)], ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_logsumexp(dim, keepdim):
    check(lambda x: x.logsumexp(dim=dim, keepdim=keepdim), [(3, 4)])


def test_logsumexp_function_form():
    check(lambda x: gs.logsumexp(x, dim=1), [(3, 4)], lambda x: torch.logsumexp(x, dim=1))


LARGE_LOGITS = np.array([[1000.0, 0.0, -1000.0], [1000.0, 1000.0, 999.0], [-1000.0, -1000.0, -1001.0]])


@pytest.mark.parametrize("op", ["softmax", "log_softmax", "logsumexp"])
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_family_with_logits_of_1000_has_no_nan(op, dim):
    check(lambda x: getattr(x, op)(dim=dim), [LARGE_LOGITS])


def test_log_softmax_grad_with_large_logits_is_finite():
    x = gs.tensor(LARGE_LOGITS, requires_grad=True)
    x.log_softmax(dim=1)[:, 0].sum().backward()
    assert np.isfinite(x.grad.cpu().numpy()).all()


# NaN and infinity: torch's rules, which differ by op (see each test).
NAN, INF = np.nan, np.inf
NANS = np.array([[1.0, NAN, 3.0, 0.0], [2.0, 5.0, 5.0, -1.0], [NAN, 4.0, NAN, 4.0]])


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_over_all_send_the_grad_to_the_nans(op):
    # max() is NaN when one element is; the grad goes to it (the NaNs share it), not NaN everywhere.
    check(lambda x: getattr(x, op)(), [NANS])
    check(lambda x: getattr(x, op)(), [np.array([1.0, NAN, 3.0])])


@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)], ids=str)
def test_amax_amin_with_nan_give_nan_grads_where_the_result_is_nan(op, dim):
    check(_reduce(op, dim, False), [NANS])


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1])
def test_max_min_over_dim_return_the_first_nan_and_send_it_the_grad(op, dim):
    check(lambda x: getattr(x, op)(dim), [NANS])


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_argmax_argmin_pick_the_first_nan(op, dim):
    check(lambda x: getattr(x, op)(dim), [NANS])


INFINITE_LOGITS = np.array(
    [[INF, 1.0, 0.0], [-INF, 1.0, 0.0], [-INF, -INF, -INF], [INF, INF, 1.0], [NAN, 1.0, 0.0], [INF, -INF, 0.0]]
)


@pytest.mark.parametrize("op", ["softmax", "log_softmax", "logsumexp"])
def test_softmax_family_with_infinite_logits(op):
    # softmax([inf, 1]) is [nan, nan] in torch (inf - max is nan), but logsumexp([inf, 1]) is inf.
    check(lambda x: getattr(x, op)(dim=1), [INFINITE_LOGITS])
    check(lambda x: getattr(x, op)(dim=0), [INFINITE_LOGITS[1:4].T])
