"""gs.autograd: grad, custom Functions, gradcheck, detect_anomaly, and walking grad_fn like PyTorch."""

import inspect
import os
import re

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.op_tables import COMPOSITES, GS_FUNCTIONS, TORCH_FUNCTIONS
from tests.engine.torch_reference import check


def leaf(values, dtype=gs.float64):
    return gs.tensor(values, dtype=dtype, requires_grad=True)


# --- gs.autograd.grad ---------------------------------------------------------------------------


def test_autograd_grad_returns_grads_without_touching_dot_grad():
    x, w = leaf([1.0, 2.0]), leaf([3.0, -1.0])
    gx, gw = gs.autograd.grad((x * w).sum(), [x, w])
    np.testing.assert_allclose(gx.cpu().numpy(), [3.0, -1.0])
    np.testing.assert_allclose(gw.cpu().numpy(), [1.0, 2.0])
    assert x.grad is None and w.grad is None


def test_autograd_grad_with_single_input_returns_one_tuple():
    x = leaf([1.0, 2.0])
    grads = gs.autograd.grad((x**2).sum(), x)
    assert isinstance(grads, tuple) and len(grads) == 1
    np.testing.assert_allclose(grads[0].cpu().numpy(), [2.0, 4.0])


def test_autograd_grad_of_non_leaf_input():
    x = leaf([1.0, 2.0])
    y = x * 3
    (gy,) = gs.autograd.grad((y * y).sum(), [y])
    np.testing.assert_allclose(gy.cpu().numpy(), [6.0, 12.0])
    assert x.grad is None


def test_autograd_grad_with_grad_outputs():
    x = leaf([1.0, 2.0])
    (gx,) = gs.autograd.grad(x * x, [x], grad_outputs=[gs.tensor([1.0, -2.0], dtype=gs.float64)])
    np.testing.assert_allclose(gx.cpu().numpy(), [2.0, -8.0])


def test_autograd_grad_of_unused_input_raises_without_allow_unused():
    x, unused = leaf([1.0]), leaf([2.0])
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        gs.autograd.grad((x * 2).sum(), [x, unused])


def test_autograd_grad_of_unused_input_is_none_with_allow_unused():
    x, unused = leaf([1.0]), leaf([2.0])
    gx, gu = gs.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    np.testing.assert_allclose(gx.cpu().numpy(), [2.0])
    assert gu is None


def test_autograd_grad_frees_the_graph_unless_retained():
    x = leaf([1.0])
    z = (x * x).sum()
    gs.autograd.grad(z, [x], retain_graph=True)
    gs.autograd.grad(z, [x])
    with pytest.raises(RuntimeError, match=re.escape("retain_graph=True")):
        gs.autograd.grad(z, [x])


def test_autograd_grad_matches_torch_on_a_composite():
    def fn(lib, x, w):
        return lib.autograd.grad(((x @ w).tanh() ** 2).mean(), [x, w])

    rng = np.random.default_rng(0)
    xs, ws = rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
    got = fn(gs, leaf(xs), leaf(ws))
    expected = fn(torch, torch.tensor(xs, requires_grad=True), torch.tensor(ws, requires_grad=True))
    for g, t in zip(got, expected):
        np.testing.assert_allclose(g.cpu().numpy(), t.cpu().numpy(), rtol=1e-10)


# --- custom Functions ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["MyReLU", "LegendrePolynomial3"])
def test_custom_function_matches_torch(name):
    check(lambda x: GS_FUNCTIONS[name].apply(x).exp(), [(3, 4)], lambda x: TORCH_FUNCTIONS[name].apply(x).exp())


def test_custom_function_with_non_tensor_argument_returns_none_grad_for_it():
    check(
        lambda x: GS_FUNCTIONS["MulConstant"].apply(x, 2.5) * x,
        [(3,)],
        lambda x: TORCH_FUNCTIONS["MulConstant"].apply(x, 2.5) * x,
    )


def test_custom_function_with_several_tensor_inputs():
    check(
        lambda x, w, b: GS_FUNCTIONS["LinearFunction"].apply(x, w, b).tanh(),
        [(4, 3), (2, 3), (2,)],
        lambda x, w, b: TORCH_FUNCTIONS["LinearFunction"].apply(x, w, b).tanh(),
    )


def test_custom_function_output_has_grad_fn_and_forward_builds_no_graph_inside():
    inner = []

    class Probe(gs.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            inner.append(y.grad_fn)
            return y

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = leaf([1.0])
    out = Probe.apply(x)
    assert inner == [None]
    assert out.requires_grad and out.grad_fn is not None
    assert out.grad_fn.next_functions[0][0].variable is x


def test_custom_function_saved_tensors_are_the_saved_values():
    seen = []

    class Keep(gs.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            seen.append((a.tolist(), b.tolist()))
            return grad * b, grad * a

    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    Keep.apply(a, b).sum().backward()
    assert seen == [([1.0, 2.0], [3.0, 4.0])]
    np.testing.assert_allclose(a.grad.cpu().numpy(), [3.0, 4.0])
    np.testing.assert_allclose(b.grad.cpu().numpy(), [1.0, 2.0])


# --- gradcheck ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", COMPOSITES)
def test_gradcheck_passes_on_composite(name):
    fn, shapes = COMPOSITES[name]
    rng = np.random.default_rng(5)
    inputs = tuple(leaf(rng.uniform(-1, 1, size=s)) for s in shapes)
    assert gs.autograd.gradcheck(fn, inputs) is True


def test_gradcheck_passes_on_correct_custom_function():
    x = leaf(np.random.default_rng(6).uniform(-1, 1, size=(3, 2)))
    fn = GS_FUNCTIONS["LegendrePolynomial3"].apply
    assert gs.autograd.gradcheck(fn, (x,), eps=1e-6, atol=1e-5, rtol=1e-3) is True


def test_gradcheck_fails_on_wrong_custom_backward():
    class WrongSquare(gs.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * x  # should be 2 * x

    x = leaf([0.5, -1.5, 2.0])
    with pytest.raises(gs.autograd.GradcheckError, match=r"^Jacobian mismatch for output 0 with respect to input 0"):
        gs.autograd.gradcheck(WrongSquare.apply, (x,))


# --- detect_anomaly -----------------------------------------------------------------------------


def test_detect_anomaly_names_the_node_and_the_line_that_created_it():
    x = leaf([0.0, 1.0])
    with gs.autograd.detect_anomaly():
        y = x.log()
        line = inspect.currentframe().f_lineno - 1
        z = (y * 0).sum()  # log'(0) * 0 = inf * 0 = NaN in LogBackward0
        with pytest.raises(RuntimeError, match="LogBackward0") as excinfo:
            z.backward()
    message = str(excinfo.value)
    assert re.search(rf"{re.escape(os.path.basename(__file__))}\D+{line}\b", message), message


def test_detect_anomaly_catches_inf_in_backward():
    x = leaf([0.0, 4.0])
    with gs.autograd.detect_anomaly():
        y = x.sqrt()
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            y.sum().backward()


def test_without_detect_anomaly_nan_grads_pass_silently():
    x = leaf([0.0, 1.0])
    (x.log() * 0).sum().backward()
    assert np.isnan(x.grad.cpu().numpy()[0])


def test_detect_anomaly_is_off_after_the_block():
    x = leaf([0.0])
    with gs.autograd.detect_anomaly():
        pass
    (x.log() * 0).sum().backward()
    assert np.isnan(x.grad.cpu().numpy()[0])


# --- grad_fn structure --------------------------------------------------------------------------


def structure(node):
    """The graph below a grad_fn as nested (name, children); AccumulateGrad's torch prefix dropped."""
    if node is None:
        return None
    name = node.name().split("::")[-1]
    return name, tuple(structure(child) for child, _ in node.next_functions)


def _graph(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    c = lib.tensor([5.0, 6.0], requires_grad=True)
    d = lib.tensor([7.0, 8.0])
    out = (a * b + c.exp() * d).sum()
    return out, (a, b, c)


def test_grad_fn_structure_matches_torch():
    gs_out, _ = _graph(gs)
    torch_out, _ = _graph(torch)
    assert structure(gs_out.grad_fn) == structure(torch_out.grad_fn)


def test_grad_fn_names():
    a = leaf([1.0, 2.0])
    assert (a * a).grad_fn.name() == "MulBackward0"
    assert (a + a).grad_fn.name() == "AddBackward0"
    assert a.exp().grad_fn.name() == "ExpBackward0"
    assert a.sum().grad_fn.name() == "SumBackward0"


def test_next_functions_pairs_have_index_zero():
    a = leaf([1.0])
    pairs = (a * 2 + a).grad_fn.next_functions
    assert [(node.name().split("::")[-1], index) for node, index in pairs] == [
        ("MulBackward0", 0),
        ("AccumulateGrad", 0),
    ]


def test_accumulate_grad_variable_is_the_leaf():
    gs_out, (a, b, _c) = _graph(gs)
    add = gs_out.grad_fn.next_functions[0][0]
    mul = add.next_functions[0][0]
    assert mul.next_functions[0][0].variable is a
    assert mul.next_functions[1][0].variable is b
    assert type(mul.next_functions[0][0]).__name__ == "AccumulateGrad"


def test_leaf_used_twice_has_one_accumulate_grad_node():
    for lib in (gs, torch):
        a = lib.tensor([1.0], requires_grad=True)
        nodes = (a * a).grad_fn.next_functions
        assert nodes[0][0] is nodes[1][0]


def test_input_not_requiring_grad_has_none_in_next_functions():
    a, d = leaf([1.0]), gs.tensor([2.0], dtype=gs.float64)
    assert (a * d).grad_fn.next_functions[1] == (None, 0)


def test_leaf_has_no_grad_fn():
    assert leaf([1.0]).grad_fn is None
