"""In-place ops and augmented operators agree with PyTorch, on non-leaves and on leaves under no_grad."""

import operator

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.op_tables import INPLACE
from tests.engine.torch_reference import check


@pytest.mark.parametrize("name", INPLACE)
@pytest.mark.parametrize("b_shape", [(3, 4), (4,), ()], ids=str)
def test_inplace_on_non_leaf(name, b_shape):
    # y = x * 2 is a non-leaf; the in-place op rewrites it and the grad flows through both.
    check(lambda x, b: INPLACE[name](x * 2, b), [(3, 4), b_shape], low=0.5, high=2.0)


@pytest.mark.parametrize("name", ["add_", "mul_", "+=", "*="])
def test_inplace_returns_the_same_tensor(name):
    x = gs.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = {
        "add_": lambda: y.add_(1.0),
        "mul_": lambda: y.mul_(2.0),
        "+=": lambda: operator.iadd(y, 1.0),
        "*=": lambda: operator.imul(y, 2.0),
    }[name]()
    assert z is y
    assert not y.is_leaf


def test_inplace_changes_grad_fn_of_non_leaf():
    x = gs.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.add_(1.0)
    assert y.grad_fn.name() == "AddBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"


def test_inplace_sequence_matches_torch_twice_modified():
    def fn(x, b):
        y = x * b
        y += 1
        z = y * y
        y2 = z.clone()
        y2.mul_(b)
        return y2 + z

    check(fn, [(3, 4), (3, 4)])


def _sgd_step(lib, lr):
    """The PyTorch tutorial pattern: an update of leaf weights under no_grad with -=, then zero the grad."""
    w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    x = lib.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    w0 = w
    loss = ((x @ w) ** 2).mean()
    loss.backward()
    grad = w.grad.clone()
    with lib.no_grad():
        w -= lr * w.grad
    after_update = w.detach().clone()
    w.grad.zero_()
    return w0, w, grad, after_update


def test_augmented_update_of_leaf_under_no_grad_like_pytorch_tutorial():
    g0, g, g_grad, g_after = _sgd_step(gs, 0.1)
    _t0, _t, t_grad, t_after = _sgd_step(torch, 0.1)
    assert g is g0 and g.is_leaf and g.requires_grad and g.grad_fn is None
    np.testing.assert_allclose(g_grad.cpu().numpy(), t_grad.cpu().numpy(), rtol=1e-6)
    np.testing.assert_allclose(g_after.cpu().numpy(), t_after.cpu().numpy(), rtol=1e-6)
    np.testing.assert_array_equal(g.grad.cpu().numpy(), np.zeros((2, 2)))


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_"])
def test_inplace_method_on_leaf_under_no_grad(op):
    w = gs.tensor([1.0, 2.0, 4.0], requires_grad=True)
    with gs.no_grad():
        out = getattr(w, op)(gs.tensor([2.0, 2.0, 2.0]))
    expected = getattr(torch.tensor([1.0, 2.0, 4.0]), op)(torch.tensor([2.0, 2.0, 2.0])).cpu().numpy()
    assert out is w and w.is_leaf and w.requires_grad and w.grad_fn is None
    np.testing.assert_allclose(w.detach().cpu().numpy(), expected)


def test_leaf_updated_under_no_grad_then_used_again_gives_new_grads():
    w = gs.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    with gs.no_grad():
        w -= 0.5 * w.grad
    w.grad = None
    (w * w).sum().backward()
    np.testing.assert_allclose(w.grad.cpu().numpy(), [0.0, 0.0])


def test_zero_and_fill_on_plain_tensor():
    x = gs.ones(2, 3)
    assert x.zero_() is x
    np.testing.assert_array_equal(x.cpu().numpy(), np.zeros((2, 3)))
    x.fill_(7)
    np.testing.assert_array_equal(x.cpu().numpy(), np.full((2, 3), 7.0))
    assert x.dtype == gs.float32


def test_clamp_in_place_on_plain_tensor():
    x = gs.tensor([-2.0, 0.0, 3.0])
    x.clamp_(-1.0, 1.0)
    np.testing.assert_array_equal(x.cpu().numpy(), [-1.0, 0.0, 1.0])
