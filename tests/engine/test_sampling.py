"""multinomial, normal, bernoulli and poisson: shapes, dtypes, grads and errors as torch's; statistics of the draws."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.torch_reference import dtype_name


def gs_tensor(values, dtype="float32", **kwargs):
    return gs.tensor(np.asarray(values, dtype=dtype), **kwargs)


def torch_tensor(values, dtype="float32", **kwargs):
    return torch.tensor(np.asarray(values, dtype=dtype), **kwargs)


def same_kind(got, expected):
    """Shape, dtype and requires_grad of a graphscope tensor equal a torch tensor's."""
    assert got.shape == tuple(expected.shape)
    assert dtype_name(got.dtype) == dtype_name(expected.dtype)
    assert got.requires_grad == expected.requires_grad


def torch_error(call) -> tuple:
    """(type, message without torch's trailing remarks) of the error a torch call raises."""
    with pytest.raises(Exception) as caught:
        call()
    message = str(caught.value).splitlines()[0].split("  (Could this")[0]
    return type(caught.value), message


def raises_as_torch(gs_call, torch_call):
    """graphscope raises torch's error type, with torch's message at the start of its own."""
    kind, message = torch_error(torch_call)
    with pytest.raises(kind) as caught:
        gs_call()
    assert str(caught.value).startswith(message), f"{caught.value!r} does not start with {message!r}"


def values(t) -> np.ndarray:
    return t.detach().cpu().numpy()


# --- multinomial -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "probs,n,replacement",
    [
        ([0.2, 0.3, 0.5], 2, False),
        ([0.2, 0.3, 0.5], 7, True),
        ([[1.0, 2.0, 0.0, 3.0], [0.0, 0.0, 1.0, 1.0]], 2, False),
        ([[1.0, 2.0], [3.0, 4.0], [5.0, 0.0]], 5, True),
        (np.ones((0, 3)), 2, False),
    ],
    ids=str,
)
def test_multinomial_shape_and_dtype_as_torch(probs, n, replacement, dtype):
    got = gs.multinomial(gs_tensor(probs, dtype), n, replacement)
    same_kind(got, torch.multinomial(torch_tensor(probs, dtype), n, replacement))
    assert ((values(got) >= 0) & (values(got) < np.shape(probs)[-1])).all()


def test_multinomial_method_and_requires_grad_input():
    probs = gs.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    same_kind(probs.multinomial(2), torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True).multinomial(2))


def test_multinomial_without_replacement_never_repeats_a_category():
    draws = values(gs.multinomial(gs.ones(200, 6), 6))
    assert (np.sort(draws, axis=1) == np.arange(6)).all()


def test_multinomial_never_draws_a_zero_probability_category():
    gs.manual_seed(0)
    probs = gs.tensor([[0.0, 1.0, 0.0, 2.0, 0.0], [3.0, 0.0, 0.0, 0.0, 0.5]])
    with_replacement = values(gs.multinomial(probs, 5000, replacement=True))
    assert set(with_replacement[0]) == {1, 3} and set(with_replacement[1]) == {0, 4}
    without = values(gs.multinomial(probs.repeat(500, 1), 2))
    assert set(without[0::2].ravel()) == {1, 3} and set(without[1::2].ravel()) == {0, 4}


def test_multinomial_without_replacement_draws_zero_probability_categories_last_as_torch():
    # torch on the CPU draws them rather than fail when a row has too few positive categories.
    probs = [[0.0, 1.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]]
    expected = torch.multinomial(torch.tensor(probs), 4).numpy()
    for _ in range(20):
        got = values(gs.multinomial(gs.tensor(probs), 4))
        for row, torch_row, positive in zip(got, expected, ({1, 3}, {4})):
            assert set(row[: len(positive)]) == set(torch_row[: len(positive)]) == positive
            assert len(set(row)) == 4 and not set(row[len(positive) :]) & positive


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_multinomial_with_replacement_follows_the_probabilities(dtype):
    gs.manual_seed(0)
    weights = np.array([[1.0, 0.0, 3.0, 6.0], [5.0, 5.0, 0.0, 0.0]])  # unnormalised, as torch accepts
    n = 40_000
    draws = values(gs.multinomial(gs_tensor(weights, dtype), n, replacement=True))
    for row, w in zip(draws, weights):
        p = w / w.sum()
        frequencies = np.bincount(row, minlength=4) / n
        np.testing.assert_allclose(frequencies, p, atol=5 * np.sqrt(0.25 / n))


def test_multinomial_without_replacement_draws_in_order_of_probability():
    # The first draw follows p; the second follows p renormalised without the first category.
    gs.manual_seed(1)
    p = np.array([0.5, 0.3, 0.2])
    n = 30_000
    draws = values(gs.multinomial(gs_tensor(np.tile(p, (n, 1))), 2))
    np.testing.assert_allclose(np.bincount(draws[:, 0], minlength=3) / n, p, atol=0.015)
    second_given_first_0 = draws[draws[:, 0] == 0, 1]
    np.testing.assert_allclose(
        np.bincount(second_given_first_0, minlength=3)[1:] / len(second_given_first_0), [0.6, 0.4], atol=0.02
    )


@pytest.mark.parametrize(
    "probs,args",
    [
        ([0.2, 0.3, 0.5], (4,)),
        ([0.2, 0.3, 0.5], (0,)),
        ([0.2, 0.3, 0.5], (-1,)),
        (np.ones((2, 3, 4)), (1,)),
        (1.0, (1,)),
        ([-1.0, 2.0], (1,)),
        ([float("nan"), 2.0], (1,)),
        ([float("inf"), 2.0], (1,)),
        ([0.0, 0.0], (1, True)),
        ([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], (1, True)),
        (np.ones((2, 0)), (2,)),
        ([0.2, 0.8], (2.0,)),
    ],
    ids=str,
)
def test_multinomial_errors_as_torch(probs, args):
    raises_as_torch(
        lambda: gs.multinomial(gs_tensor(probs), *args), lambda: torch.multinomial(torch_tensor(probs), *args)
    )


def test_multinomial_of_integers_is_refused_as_torch():
    with pytest.raises(RuntimeError, match="multinomial only supports floating-point dtypes for input, got: int64"):
        gs.multinomial(gs.tensor([1, 2]), 1)
    torch_error(lambda: torch.multinomial(torch.tensor([1, 2]), 1))


def test_multinomial_needs_a_tensor():
    with pytest.raises(TypeError, match=r"multinomial\(\): argument 'input' must be a Tensor, not list"):
        gs.multinomial([0.5, 0.5], 1)


# --- normal ----------------------------------------------------------------------------------------

OVERLOADS = {
    "tensor mean, tensor std": lambda lib, t: lib.normal(t([[1.0], [2.0]], requires_grad=True), t([1.0, 2.0, 3.0])),
    "tensor mean, float std": lambda lib, t: lib.normal(t([1.0, 2.0], requires_grad=True), 2.0),
    "tensor mean only": lambda lib, t: lib.normal(t([1.0, 2.0])),
    "float mean, tensor std": lambda lib, t: lib.normal(0.5, t([[1.0, 2.0]], requires_grad=True)),
    "float mean, float std, size": lambda lib, t: lib.normal(0.0, 1.0, (2, 3)),
    "ints and size=": lambda lib, t: lib.normal(0, 1, size=(4,)),
    "requires_grad=": lambda lib, t: lib.normal(0.0, 1.0, (2,), requires_grad=True),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("overload", OVERLOADS)
def test_normal_overloads_shape_dtype_and_requires_grad_as_torch(overload, dtype):
    got = OVERLOADS[overload](gs, lambda v, **kw: gs_tensor(v, dtype, **kw))
    same_kind(got, OVERLOADS[overload](torch, lambda v, **kw: torch_tensor(v, dtype, **kw)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_float_mean_and_std_take_dtype(dtype):
    same_kind(
        gs.normal(1.0, 2.0, (3,), dtype=getattr(gs, dtype)), torch.normal(1.0, 2.0, (3,), dtype=getattr(torch, dtype))
    )


def test_normal_result_takes_the_mean_dtype():
    same_kind(
        gs.normal(gs.zeros(2, dtype=gs.float64), gs.ones(2)),
        torch.normal(torch.zeros(2, dtype=torch.float64), torch.ones(2)),
    )
    same_kind(
        gs.normal(gs.zeros(2), gs.ones(2, dtype=gs.float64)),
        torch.normal(torch.zeros(2), torch.ones(2, dtype=torch.float64)),
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_grads_are_zero_as_torch(dtype):
    def run(lib, t):
        mean, std = t([[1.0], [2.0]], dtype, requires_grad=True), t([1.0, 2.0, 3.0], dtype, requires_grad=True)
        (lib.normal(mean, std) * 3).sum().backward()
        return mean.grad, std.grad

    for got, expected in zip(run(gs, gs_tensor), run(torch, torch_tensor)):
        same_kind(got, expected)
        np.testing.assert_array_equal(values(got), expected.numpy())


def test_normal_draws_have_the_asked_mean_and_std():
    gs.manual_seed(0)
    n = 100_000
    mean, std = gs.tensor([-3.0, 0.0, 5.0]), gs.tensor([0.5, 1.0, 4.0])
    draws = values(gs.normal(mean.expand(n, 3), std))
    np.testing.assert_allclose(draws.mean(0), [-3.0, 0.0, 5.0], atol=5 * 4.0 / np.sqrt(n))
    np.testing.assert_allclose(draws.std(0), [0.5, 1.0, 4.0], rtol=0.02)
    scalar = values(gs.normal(2.0, 3.0, (n,), dtype=gs.float64))
    assert abs(scalar.mean() - 2.0) < 5 * 3.0 / np.sqrt(n) and abs(scalar.std() - 3.0) < 0.05


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.normal(lib.tensor([1.0, 2.0]), -1.0),
        lambda lib: lib.normal(lib.tensor([1.0, 2.0]), lib.tensor([-1.0, 1.0])),
        lambda lib: lib.normal(0.0, lib.tensor(-1.0)),
        lambda lib: lib.normal(0.0, -1.0, (2,)),
    ],
    ids=["negative float std", "negative tensor std", "negative 0-d std", "negative std with size"],
)
def test_normal_errors_as_torch(call):
    raises_as_torch(lambda: call(gs), lambda: call(torch))


def test_normal_refuses_what_torch_refuses():
    torch_error(lambda: torch.normal(0.0, 1.0))
    with pytest.raises(TypeError, match=r"with a number for both mean and std, pass size="):
        gs.normal(0.0, 1.0)
    torch_error(lambda: torch.normal(torch.zeros(2), 1.0, (3,)))
    with pytest.raises(TypeError, match="size, dtype and device go with a number for both mean and std"):
        gs.normal(gs.zeros(2), 1.0, (3,))
    torch_error(lambda: torch.normal(torch.zeros(2, dtype=torch.int64), 1.0))
    with pytest.raises(NotImplementedError, match=r"normal\(\) is not implemented for int64 tensors; use a floating"):
        gs.normal(gs.zeros(2, dtype=gs.int64), 1.0)
    with pytest.raises(NotImplementedError, match=r"normal\(\) is not implemented for int64; ask for a floating"):
        gs.normal(0.0, 1.0, (2,), dtype=gs.int64)
    with pytest.raises(TypeError, match=r"normal\(\): mean must be a tensor or a number, not list"):
        gs.normal([0.0], 1.0)
    with pytest.raises(RuntimeError, match=r"normal: shapes \(2, 3\) and \(4,\) cannot be broadcast together"):
        gs.normal(gs.zeros(2, 3), gs.ones(4))


# --- bernoulli -------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "call",
    [
        lambda lib, t: lib.bernoulli(t([[0.2, 0.9], [0.0, 1.0]])),
        lambda lib, t: lib.bernoulli(t([0.2, 0.9], requires_grad=True)),
        lambda lib, t: lib.bernoulli(t([5.0, 7.0]), 0.5),
        lambda lib, t: t([0.3, 0.6]).bernoulli(),
        lambda lib, t: t([0.3, 0.6]).bernoulli(0.4),
        lambda lib, t: t([[0.0, 0.0, 0.0]]).bernoulli_(0.5),
        lambda lib, t: t([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]).bernoulli_(t([0.1, 0.5, 1.0])),
    ],
    ids=["probabilities", "requires grad", "float p", "method", "method with p", "in place", "in place, tensor p"],
)
def test_bernoulli_shape_and_dtype_as_torch(call, dtype):
    got = call(gs, lambda v, **kw: gs_tensor(v, dtype, **kw))
    same_kind(got, call(torch, lambda v, **kw: torch_tensor(v, dtype, **kw)))
    assert set(np.unique(values(got))) <= {0.0, 1.0}


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_bernoulli_with_float_p_keeps_an_integer_or_bool_dtype(dtype):
    same_kind(
        gs.bernoulli(gs.zeros(4, dtype=getattr(gs, dtype)), 0.5),
        torch.bernoulli(torch.zeros(4, dtype=getattr(torch, dtype)), 0.5),
    )
    same_kind(
        gs.zeros(4, dtype=getattr(gs, dtype)).bernoulli_(0.5),
        torch.zeros(4, dtype=getattr(torch, dtype)).bernoulli_(0.5),
    )


def test_bernoulli_grad_is_zero_as_torch():
    p = gs.tensor([0.2, 0.7], requires_grad=True)
    gs.bernoulli(p).sum().backward()
    tp = torch.tensor([0.2, 0.7], requires_grad=True)
    torch.bernoulli(tp).sum().backward()
    np.testing.assert_array_equal(values(p.grad), tp.grad.numpy())


def test_bernoulli_certain_probabilities_are_exact():
    np.testing.assert_array_equal(
        values(gs.bernoulli(gs.tensor([0.0, 1.0]).expand(1000, 2))), np.tile([0.0, 1.0], (1000, 1))
    )


def test_bernoulli_draws_have_the_asked_frequency():
    gs.manual_seed(0)
    n = 100_000
    draws = values(gs.bernoulli(gs.tensor([0.1, 0.5, 0.85]).expand(n, 3)))
    np.testing.assert_allclose(draws.mean(0), [0.1, 0.5, 0.85], atol=5 * 0.5 / np.sqrt(n))
    assert abs(values(gs.zeros(n).bernoulli_(0.3)).mean() - 0.3) < 5 * 0.5 / np.sqrt(n)
    assert abs(values(gs.zeros(n, dtype=gs.float64).bernoulli(0.7)).mean() - 0.7) < 5 * 0.5 / np.sqrt(n)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.bernoulli(lib.tensor([0.2, 1.5])),
        lambda lib: lib.bernoulli(lib.tensor([0.2, -0.5])),
        lambda lib: lib.bernoulli(lib.tensor([0.2, float("nan")])),
        lambda lib: lib.bernoulli(lib.zeros(3), p=1.5),
        lambda lib: lib.zeros(3).bernoulli_(2),
        lambda lib: lib.zeros(3).bernoulli_(lib.tensor([0.1, 1.5, 0.1])),
        lambda lib: lib.zeros(3, requires_grad=True).bernoulli_(0.5),
    ],
    ids=["p > 1", "p < 0", "nan", "float p > 1", "in place p > 1", "in place tensor p > 1", "leaf"],
)
def test_bernoulli_errors_as_torch(call):
    raises_as_torch(lambda: call(gs), lambda: call(torch))


def test_bernoulli_refuses_integer_probabilities_and_unfit_p():
    torch_error(lambda: torch.bernoulli(torch.tensor([0, 1])))
    with pytest.raises(NotImplementedError, match=r"bernoulli\(\) is not implemented for int64 tensors"):
        gs.bernoulli(gs.tensor([0, 1]))
    torch_error(lambda: torch.zeros(3).bernoulli_(torch.tensor([0.1, 0.5])))
    with pytest.raises(
        RuntimeError, match=r"bernoulli_: output with shape \[3\] doesn't match the broadcast shape \[2\]"
    ):
        gs.zeros(3).bernoulli_(gs.tensor([0.1, 0.5]))


# --- poisson ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_poisson_shape_dtype_and_zero_grad_as_torch(dtype):
    rates = [[1.0, 4.0], [0.0, 30.0]]
    got, expected = gs_tensor(rates, dtype, requires_grad=True), torch_tensor(rates, dtype, requires_grad=True)
    out, torch_out = gs.poisson(got), torch.poisson(expected)
    same_kind(out, torch_out)
    out.sum().backward()
    torch_out.sum().backward()
    np.testing.assert_array_equal(values(got.grad), expected.grad.numpy())
    assert values(out)[1, 0] == 0.0 and (values(out) == np.round(values(out))).all()


def test_poisson_draws_have_mean_and_variance_of_the_rate():
    gs.manual_seed(0)
    n = 100_000
    draws = values(gs.poisson(gs.tensor([0.5, 3.0, 50.0]).expand(n, 3)))
    np.testing.assert_allclose(draws.mean(0), [0.5, 3.0, 50.0], rtol=0.02)
    np.testing.assert_allclose(draws.var(0), [0.5, 3.0, 50.0], rtol=0.05)


@pytest.mark.parametrize("rates", [[1.0, -4.0], [1.0, float("nan")]], ids=["negative", "nan"])
def test_poisson_errors_as_torch(rates):
    raises_as_torch(lambda: gs.poisson(gs.tensor(rates)), lambda: torch.poisson(torch.tensor(rates)))


def test_poisson_refuses_integer_rates():
    torch_error(lambda: torch.poisson(torch.tensor([1, 4])))
    with pytest.raises(NotImplementedError, match=r"poisson\(\) is not implemented for int64 tensors"):
        gs.poisson(gs.tensor([1, 4]))
