"""Higher-order gradients (create_graph=True) against PyTorch: each covered op's grad of grad, a
gradient penalty, a Hessian-vector product, retain_graph's default, `.grad` with a grad_fn, and the
error of an op whose backward graphscope cannot differentiate."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
import torch

import graphscope as gs

TOL = dict(rtol=1e-7, atol=1e-9)
# torch's note that backward(create_graph=True) makes a reference cycle: true of its reference runs
pytestmark = pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")


def _both(arrays):
    """The same float64 values as graphscope and torch leaves that require grad (integer arrays as
    plain tensors: class targets)."""
    gs_inputs, torch_inputs = [], []
    for a in arrays:
        wants = a.dtype.kind == "f"
        gs_inputs.append(gs.tensor(a, requires_grad=wants))
        torch_inputs.append(torch.tensor(a, requires_grad=wants))
    return gs_inputs, torch_inputs


def _close(got, expected, what):
    assert (got is None) == (expected is None), f"{what}: {got} against torch's {expected}"
    if got is not None:
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), **TOL, err_msg=what)


def _grad_of_grad(lib, fn, inputs, cotangent_seed=0):
    """d(loss)/d(inputs) with create_graph, then d(Σ grad·v)/d(inputs): the grads and the second grads."""
    leaves = [x for x in inputs if x.requires_grad]
    loss = fn(lib, *inputs)
    grads = lib.autograd.grad(loss, leaves, create_graph=True)
    rng = np.random.default_rng(cotangent_seed)
    total = sum((g * lib.tensor(rng.uniform(-1, 1, tuple(g.shape)))).sum() for g in grads)
    seconds = lib.autograd.grad(total, leaves, allow_unused=True)
    return grads, seconds


class Positive(NamedTuple):
    """Inputs of this shape away from zero (for log, sqrt, divisors and bounds)."""

    shape: tuple


def F(lib):
    return lib.nn.functional


# name, the loss of the op (cubed, or through a curve, so its second derivative is not zero), inputs
CASES = [
    ("add", lambda L, a, b: ((a + b) ** 3).sum(), [(3, 4), (4,)]),
    ("sub", lambda L, a, b: ((a - b) ** 3).sum(), [(3, 4), (3, 1)]),
    ("mul", lambda L, a, b: (a * b * a).sum(), [(3, 4), (4,)]),
    ("mul by a number", lambda L, a: ((2.5 * a) ** 3).sum(), [(5,)]),
    ("div", lambda L, a, b: (a / b).sum(), [(3, 4), Positive((4,))]),
    ("div of a number", lambda L, b: (3.0 / b).sum(), [Positive((4,))]),
    ("neg", lambda L, a: ((-a) ** 3).sum(), [(5,)]),
    ("pow by a number", lambda L, a: (a**3).sum(), [(5,)]),
    ("pow by 2", lambda L, a: (a**2 * a).sum(), [(5,)]),
    ("pow by a tensor", lambda L, a, b: (a**b).sum(), [Positive((4,)), (4,)]),
    ("pow of a number", lambda L, b: (2.0**b).sum(), [(4,)]),
    ("exp", lambda L, a: a.exp().sum(), [(3, 2)]),
    ("log", lambda L, a: a.log().sum(), [Positive((5,))]),
    ("log10", lambda L, a: a.log10().sum(), [Positive((5,))]),
    ("sqrt", lambda L, a: a.sqrt().sum(), [Positive((5,))]),
    ("tanh", lambda L, a: a.tanh().sum(), [(5,)]),
    ("sigmoid", lambda L, a: a.sigmoid().sum(), [(5,)]),
    ("relu", lambda L, a: (a.relu() ** 3).sum(), [(6,)]),
    ("sin", lambda L, a: a.sin().sum(), [(5,)]),
    ("cos", lambda L, a: a.cos().sum(), [(5,)]),
    ("abs", lambda L, a: (a.abs() ** 3).sum(), [(6,)]),
    ("leaky_relu", lambda L, a: (F(L).leaky_relu(a, 0.2) ** 3).sum(), [(6,)]),
    ("clamp", lambda L, a: (a.clamp(-0.5, 0.7) ** 3).sum(), [(6,)]),
    ("clamp by tensors", lambda L, a, lo, hi: (a.clamp(lo, hi) ** 3).sum(), [(6,), (6,), Positive((6,))]),
    ("maximum", lambda L, a, b: (L.maximum(a, b) ** 3).sum(), [(6,), (6,)]),
    ("minimum", lambda L, a, b: (L.minimum(a, b * b) ** 3).sum(), [(6,), (6,)]),
    ("where", lambda L, a, b: (L.where(a > 0, a * a, b) ** 3).sum(), [(6,), (6,)]),
    ("masked_fill", lambda L, a: (a.masked_fill(a > 0.5, 2.0) ** 3).sum(), [(6,)]),
    ("var", lambda L, a: (a.var(1) ** 2).sum(), [(3, 4)]),
    ("var of all, biased", lambda L, a: a.var(unbiased=False) ** 2, [(3, 4)]),
    ("std", lambda L, a: (a.std(0, keepdim=True) ** 3 * a).sum(), [(3, 4)]),
    ("2-norm over a dim", lambda L, a: (a.norm(2, dim=1) ** 3).sum(), [(3, 4)]),
    ("2-norm of all", lambda L, a: a.norm() ** 3, [(3, 4)]),
    ("1-norm", lambda L, a: (a.norm(1, dim=0, keepdim=True) ** 3 * a).sum(), [(3, 4)]),
    ("3-norm", lambda L, a: (a.norm(3, dim=1) ** 2).sum(), [(3, 4)]),
    ("sum over a dim", lambda L, a: (a.sum(1) ** 3).sum(), [(3, 4)]),
    ("sum keepdim", lambda L, a: (a.sum(0, keepdim=True) ** 3 * a).sum(), [(3, 4)]),
    ("sum of all", lambda L, a: a.sum() ** 3, [(3, 4)]),
    ("mean over a dim", lambda L, a: (a.mean(0) ** 3).sum(), [(3, 4)]),
    ("mean of all", lambda L, a: a.mean() ** 3, [(3, 4)]),
    ("matmul", lambda L, a, b: ((a @ b) ** 3).sum(), [(3, 4), (4, 2)]),
    ("mm", lambda L, a, b: (L.mm(a, b) ** 3).sum(), [(3, 4), (4, 2)]),
    ("matmul 1-D by 2-D", lambda L, a, b: ((a @ b) ** 3).sum(), [(4,), (4, 2)]),
    ("matmul 2-D by 1-D", lambda L, a, b: ((a @ b) ** 3).sum(), [(3, 4), (4,)]),
    ("matmul 1-D by 1-D", lambda L, a, b: (a @ b) ** 3, [(4,), (4,)]),
    ("matmul batched", lambda L, a, b: ((a @ b) ** 3).sum(), [(2, 3, 4), (4, 2)]),
    ("linear", lambda L, x, w, b: (F(L).linear(x, w, b) ** 3).sum(), [(5, 3), (2, 3), (2,)]),
    ("linear without bias", lambda L, x, w: (F(L).linear(x, w).tanh()).sum(), [(2, 5, 3), (2, 3)]),
    ("reshape", lambda L, a: (a.reshape(2, 6) ** 3 * L.arange(6.0)).sum(), [(3, 4)]),
    ("view", lambda L, a: (a.view(-1) ** 3 * L.arange(12.0)).sum(), [(3, 4)]),
    ("transpose", lambda L, a: (a.transpose(0, 1) ** 3 * L.arange(3.0)).sum(), [(3, 4)]),
    ("permute", lambda L, a: (a.permute(2, 0, 1) ** 3 * L.arange(3.0)).sum(), [(2, 3, 3)]),
    ("expand", lambda L, a: (a.expand(3, 4) ** 3 * L.arange(4.0)).sum(), [(3, 1)]),
    ("unsqueeze and flatten", lambda L, a: (a.unsqueeze(0).flatten() ** 3).sum(), [(3, 2)]),
    ("index by slices", lambda L, a: (a[1:, ::2] ** 3).sum(), [(3, 4)]),
    ("index by a repeated list", lambda L, a: (a[[0, 0, 2]] ** 3).sum(), [(3, 4)]),
    ("index with a new axis", lambda L, a: (a[None, 1] ** 3).sum(), [(3, 4)]),
    ("narrow", lambda L, a: (L.narrow(a, 1, 1, 2) ** 3).sum(), [(3, 4)]),
    ("gather", lambda L, a: (a.gather(1, L.tensor([[0, 0], [2, 1], [3, 3]])) ** 3).sum(), [(3, 4)]),
    ("repeat", lambda L, a: (a.repeat(2, 3) ** 3 * L.arange(6.0)).sum(), [(2, 2)]),
    ("flip", lambda L, a: (a.flip(0) ** 3 * L.arange(4.0)).sum(), [(3, 4)]),
    ("roll", lambda L, a: (a.roll(1, 1) ** 3 * L.arange(4.0)).sum(), [(3, 4)]),
    ("tril", lambda L, a: (a.tril() ** 3).sum(), [(3, 4)]),
    ("cumsum", lambda L, a: (a.cumsum(1) ** 3).sum(), [(3, 4)]),
    ("cat", lambda L, a, b: (L.cat([a, b], 1) ** 3 * L.arange(5.0)).sum(), [(2, 3), (2, 2)]),
    ("stack", lambda L, a, b: (L.stack([a, b], 0) ** 3).sum() * 2, [(2, 3), (2, 3)]),
    ("softmax", lambda L, a: (a.softmax(1) * L.arange(4.0)).sum(), [(3, 4)]),
    ("logsumexp", lambda L, a: (a.logsumexp(1) ** 2).sum(), [(3, 4)]),
    ("logsumexp keepdim", lambda L, a: (L.logsumexp(a, (0, 1), keepdim=True) ** 2 * a).sum(), [(3, 4)]),
    ("log_softmax", lambda L, a: (a.log_softmax(-1) ** 2).sum(), [(3, 4)]),
    ("mse_loss", lambda L, x, y: F(L).mse_loss(x.tanh(), y), [(3, 4), (3, 4)]),
    ("mse_loss summed", lambda L, x, y: F(L).mse_loss(x * x, y, reduction="sum"), [(3, 4), (3, 4)]),
    (
        "cross_entropy",
        lambda L, x, t: F(L).cross_entropy(x, t),
        [(4, 3), np.array([0, 2, 1, 2])],
    ),
    (
        "cross_entropy smoothed and weighted",
        lambda L, x, t: F(L).cross_entropy(x * x, t, weight=L.tensor([0.5, 1.0, 2.0]).double(), label_smoothing=0.1),
        [(4, 3), np.array([0, 2, 1, 2])],
    ),
    (
        "cross_entropy summed over (N, C, d)",
        lambda L, x, t: F(L).cross_entropy(x, t, reduction="sum") ** 2,
        [(2, 3, 2), np.array([[0, 2], [1, 1]])],
    ),
    (
        "cross_entropy ignoring a target",
        lambda L, x, t: F(L).cross_entropy(x, t, ignore_index=1),
        [(4, 3), np.array([0, 1, 1, 2])],
    ),
    (
        "nll_loss of log_softmax",
        lambda L, x, t: F(L).nll_loss(F(L).log_softmax(x * x, 1), t, weight=L.tensor([0.5, 1.0, 2.0]).double()),
        [(4, 3), np.array([0, 2, 1, 2])],
    ),
    (
        "nll_loss summed, ignoring a target",
        lambda L, x, t: F(L).nll_loss(x.tanh(), t, ignore_index=0, reduction="sum"),
        [(2, 3, 2), np.array([[0, 2], [1, 1]])],
    ),
    (
        "nll_loss unreduced",
        lambda L, x, t: (F(L).nll_loss(x, t, reduction="none") ** 3).sum(),
        [(3, 4), np.array([3, 0, 1])],
    ),
    ("sign, floor, ceil, round", lambda L, a: (a * (a.sign() + a.floor() + a.ceil() + a.round())).sum(), [(6,)]),
    ("cross_entropy with probabilities", lambda L, x, p: F(L).cross_entropy(x, p.softmax(1)), [(4, 3), (4, 3)]),
    (
        "cross_entropy with smoothed, weighted probabilities",
        lambda L, x, p: F(L).cross_entropy(
            x, p.softmax(1), weight=L.tensor([0.5, 1.0, 2.0]).double(), label_smoothing=0.2, reduction="sum"
        ),
        [(4, 3), (4, 3)],
    ),
]


def _arrays(specs, rng):
    arrays = []
    for spec in specs:
        if isinstance(spec, np.ndarray):
            arrays.append(spec)
        elif isinstance(spec, Positive):
            arrays.append(rng.uniform(0.5, 2.0, spec.shape))
        else:
            arrays.append(rng.uniform(-1.5, 1.5, spec))
    return arrays


@pytest.mark.parametrize(("name", "fn", "specs"), CASES, ids=[c[0] for c in CASES])
def test_the_grad_of_a_grad_matches_torch(name, fn, specs):
    gs_inputs, torch_inputs = _both(_arrays(specs, np.random.default_rng(len(name))))
    grads, seconds = _grad_of_grad(gs, fn, gs_inputs)
    expected_grads, expected_seconds = _grad_of_grad(torch, fn, torch_inputs)
    for i, (got, expected) in enumerate(zip(grads, expected_grads)):
        _close(got, expected, f"{name}: grad {i}")
        assert (got.grad_fn is None) == (expected.grad_fn is None), f"{name}: grad {i} has a grad_fn"
    for i, (got, expected) in enumerate(zip(seconds, expected_seconds)):
        _close(got, expected, f"{name}: second grad {i}")


def _mlp(lib, seed=0):
    rng = np.random.default_rng(seed)
    w1, b1 = rng.normal(size=(8, 3)), rng.normal(size=8)
    w2, b2 = rng.normal(size=(1, 8)), rng.normal(size=1)
    return [lib.tensor(a, requires_grad=True) for a in (w1, b1, w2, b2)]


def _penalized_loss(lib, params, x):
    """A critic's loss with a gradient penalty: (|d out/d x| − 1)² added to the mean output."""
    w1, b1, w2, b2 = params
    functional = lib.nn.functional
    out = functional.linear(functional.linear(x, w1, b1).tanh(), w2, b2)
    (slope,) = lib.autograd.grad(out.sum(), x, create_graph=True)
    norm = ((slope**2).sum(1) + 1e-12).sqrt()
    return out.mean() + 10 * ((norm - 1) ** 2).mean()


def test_a_gradient_penalty_trains_the_weights_as_torch():
    x = np.random.default_rng(1).normal(size=(5, 3))
    params, expected_params = _mlp(gs), _mlp(torch)
    _penalized_loss(gs, params, gs.tensor(x, requires_grad=True)).backward()
    _penalized_loss(torch, expected_params, torch.tensor(x, requires_grad=True)).backward()
    for i, (p, q) in enumerate(zip(params, expected_params)):
        _close(p.grad, q.grad, f"param {i}'s grad")


def _hessian_vector_product(lib, w, x, y, v):
    loss = lib.nn.functional.mse_loss((x @ w).sigmoid(), y)
    (g,) = lib.autograd.grad(loss, w, create_graph=True)
    (hv,) = lib.autograd.grad(g, w, grad_outputs=v)
    return hv


def test_a_hessian_vector_product_matches_torch():
    rng = np.random.default_rng(2)
    w, x, y, v = rng.normal(size=(3, 2)), rng.normal(size=(6, 3)), rng.normal(size=(6, 2)), rng.normal(size=(3, 2))
    got = _hessian_vector_product(gs, *(gs.tensor(a, requires_grad=i == 0) for i, a in enumerate((w, x, y, v))))
    expected = _hessian_vector_product(
        torch, *(torch.tensor(a, requires_grad=i == 0) for i, a in enumerate((w, x, y, v)))
    )
    _close(got, expected, "H·v")
    reference = torch.autograd.functional.hvp(
        lambda w: torch.nn.functional.mse_loss((torch.tensor(x) @ w).sigmoid(), torch.tensor(y)),
        torch.tensor(w),
        torch.tensor(v),
    )[1]
    _close(got, reference, "H·v against torch.autograd.functional.hvp")


def test_backward_with_create_graph_leaves_a_grad_with_a_grad_fn():
    x = gs.tensor([0.5, -1.0, 2.0], requires_grad=True)
    (x**3).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    assert x.grad.grad_fn is not None
    np.testing.assert_allclose(x.grad.detach().numpy(), 3 * np.array([0.5, -1.0, 2.0]) ** 2)
    x.grad.sum().backward(inputs=[x])  # .grad was 3x², so this adds 6x
    np.testing.assert_allclose(x.grad.detach().numpy(), [0.75 + 3, 3 - 6, 12 + 12])


def test_backward_with_create_graph_twice_adds_out_of_place_as_torch():
    def run(lib):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward(create_graph=True)
        first = x.grad
        y.backward(create_graph=True)  # retain_graph defaults to create_graph: the graph is still there
        return x, first

    (x, first), (expected_x, expected_first) = run(gs), run(torch)
    _close(x.grad, expected_x.grad, "the summed grad")
    _close(first, expected_first, "the first grad, not written into")
    assert x.grad.grad_fn is not None


def test_create_graph_keeps_the_graph_unless_retain_graph_is_false():
    messages = []
    for lib in (gs, torch):
        x = lib.tensor([0.5, -1.0], requires_grad=True)
        x.exp().sum().backward(create_graph=True, retain_graph=False)
        with pytest.raises(RuntimeError) as caught:
            x.grad.sum().backward()  # back through exp, whose saved output was freed
        messages.append(str(caught.value))
    assert messages[0].startswith("Trying to backward through the graph a second time")
    assert messages[1].startswith("Trying to backward through the graph a second time")


def test_autograd_grad_with_create_graph_keeps_the_graph_for_a_second_grad():
    x = gs.tensor([0.5, -1.0], requires_grad=True)
    y = (x.sin() * x).sum()
    (g,) = gs.autograd.grad(y, x, create_graph=True)
    (again,) = gs.autograd.grad(y, x)  # the graph was kept by default
    np.testing.assert_allclose(again.numpy(), g.detach().numpy())
    assert again.grad_fn is None  # without create_graph, plain grads


UNCOVERED = [
    ("prod", "prod", "ProdBackward0", lambda x: x.prod()),
    ("a norm of p < 1", "vectornorm", "LinalgVectorNormBackward0", lambda x: x.norm(0.5)),
]


@pytest.mark.parametrize(("case", "op", "node", "fn"), UNCOVERED, ids=[c[0] for c in UNCOVERED])
def test_an_op_without_a_differentiable_backward_is_named_when_differentiated_again(case, op, node, fn):
    x = gs.tensor([0.5, -1.0, 2.0], requires_grad=True)
    expected = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    (g,) = gs.autograd.grad(fn(x), x, create_graph=True)
    (expected_g,) = torch.autograd.grad(fn(expected), expected, create_graph=True)
    _close(g, expected_g, "the first grad is still right")
    assert g.grad_fn is not None
    with pytest.raises(
        RuntimeError,
        match=rf"^create_graph=True: the backward of {op} \({node}\) is not differentiable in graphscope yet",
    ):
        g.sum().backward()


def test_dropouts_grad_of_grad_uses_the_mask_it_drew():
    gs.manual_seed(0)
    x = gs.tensor([0.5, -1.0, 2.0, 1.5, -0.5, 0.25], requires_grad=True)
    y = gs.nn.functional.dropout(x, 0.5, training=True)
    mask = (y / x).detach().numpy()  # 0 or 2 per element
    (g,) = gs.autograd.grad((y**3).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * y.detach().numpy() ** 2 * mask)
    (second,) = gs.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(second.numpy(), 6 * y.detach().numpy() * mask**2)


def test_a_tensor_hook_sees_and_may_replace_a_grad_with_a_grad_fn():
    x = gs.tensor([0.5, -1.0], requires_grad=True)
    y = x * x
    seen = []
    y.register_hook(lambda g: seen.append(g.grad_fn is not None) or g * x)
    (g,) = gs.autograd.grad(y.sum(), x, create_graph=True)  # (x·1)·2x = 2x²
    np.testing.assert_allclose(g.detach().numpy(), [0.5, 2.0])
    (second,) = gs.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(second.numpy(), [2.0, -4.0])
    assert seen == [False]  # the seed is a plain tensor


def _cube(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x**2

    return Cube


def test_a_custom_functions_backward_is_differentiated_when_built_from_ops():
    case = lambda L, a: (_cube(L).apply(a) * a).sum()  # noqa: E731 (a case as the table's)
    gs_inputs, torch_inputs = _both([np.array([0.5, -1.0, 2.0])])
    grads, seconds = _grad_of_grad(gs, case, gs_inputs)
    expected_grads, expected_seconds = _grad_of_grad(torch, case, torch_inputs)
    _close(grads[0], expected_grads[0], "grad")
    _close(seconds[0], expected_seconds[0], "second grad")


def test_a_third_derivative_through_an_index_matches_torch():
    def third(lib):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = (x[[0, 0, 2]] ** 4).sum()
        (first,) = lib.autograd.grad(y, x, create_graph=True)
        (second,) = lib.autograd.grad(first[[2, 0]].sum(), x, create_graph=True)
        (third,) = lib.autograd.grad((second * second).sum(), x)
        return first, second, third

    for n, (got, expected) in enumerate(zip(third(gs), third(torch)), 1):
        _close(got, expected, f"derivative {n}")
