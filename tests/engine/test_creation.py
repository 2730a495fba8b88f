"""Creation functions: shapes, dtypes, requires_grad and values, compared with PyTorch."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.torch_reference import dtype_name


def same(got, expected):
    """Shape, dtype and values of a graphscope tensor equal a torch tensor's."""
    assert got.shape == tuple(expected.shape)
    assert dtype_name(got.dtype) == dtype_name(expected.dtype)
    np.testing.assert_allclose(got.cpu().numpy(), expected.cpu().numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("args", [(2, 3), ((2, 3),), ([4],), ((),), (5,)], ids=str)
def test_filled_creation_shape_and_default_dtype(fn, args):
    got, expected = getattr(gs, fn)(*args), getattr(torch, fn)(*args)
    assert got.shape == tuple(expected.shape)
    assert got.dtype == gs.float32 and not got.requires_grad and got.is_leaf
    if fn != "empty":
        same(got, expected)


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "randn", "rand"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_creation_with_dtype_and_requires_grad(fn, dtype):
    t = getattr(gs, fn)(2, 3, dtype=getattr(gs, dtype), requires_grad=True)
    assert t.shape == (2, 3) and dtype_name(t.dtype) == dtype
    assert t.requires_grad and t.is_leaf and t.grad is None


@pytest.mark.parametrize("fn", ["zeros", "ones"])
def test_integer_dtype_creation(fn):
    same(getattr(gs, fn)(3, dtype=gs.int64), getattr(torch, fn)(3, dtype=torch.int64))
    same(getattr(gs, fn)(3, dtype=gs.bool), getattr(torch, fn)(3, dtype=torch.bool))


@pytest.mark.parametrize("fill", [7.5, 7, True, -0.25])
def test_full_infers_dtype_from_fill_value_like_torch(fill):
    same(gs.full((2, 3), fill), torch.full((2, 3), fill))


def test_full_with_dtype_and_requires_grad():
    t = gs.full((2,), 3, dtype=gs.float64, requires_grad=True)
    assert t.dtype == gs.float64 and t.requires_grad
    np.testing.assert_array_equal(t.detach().cpu().numpy(), [3.0, 3.0])


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_like_functions_keep_shape_and_dtype(fn, dtype):
    source = np.arange(6).reshape(2, 3).astype(dtype)
    same(getattr(gs, fn)(gs.tensor(source)), getattr(torch, fn)(torch.tensor(source)))


def test_like_functions_with_dtype_and_requires_grad():
    src = gs.tensor([[1, 2]])
    t = gs.zeros_like(src, dtype=gs.float64, requires_grad=True)
    assert t.shape == (1, 2) and t.dtype == gs.float64 and t.requires_grad


def test_like_functions_do_not_require_grad_by_default():
    assert not gs.ones_like(gs.tensor([1.0], requires_grad=True)).requires_grad


@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (1,)], ids=str)
def test_eye(args):
    same(gs.eye(*args), torch.eye(*args))


def test_eye_with_dtype():
    same(gs.eye(3, dtype=gs.int64), torch.eye(3, dtype=torch.int64))


@pytest.mark.parametrize(
    "args", [(5,), (2, 9), (1, 10, 3), (10, 0, -3), (5.0,), (0, 1, 0.1), (-1.5, 2.0, 0.5), (0, 1, 0.3), (3, 3)], ids=str
)
def test_arange_matches_torch(args):
    same(gs.arange(*args), torch.arange(*args))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_arange_with_dtype(dtype):
    same(gs.arange(0, 6, 2, dtype=getattr(gs, dtype)), torch.arange(0, 6, 2, dtype=getattr(torch, dtype)))


def test_arange_keywords_and_requires_grad():
    t = gs.arange(start=1.0, end=3.0, step=0.5, requires_grad=True)
    assert t.requires_grad and t.dtype == gs.float32
    np.testing.assert_array_equal(t.detach().cpu().numpy(), [1.0, 1.5, 2.0, 2.5])


@pytest.mark.parametrize("args", [(0, 1, 5), (-1, 1, 7), (2, 2, 3), (0, 10, 1), (1, -1, 4), (0, 1, 0)], ids=str)
def test_linspace_matches_torch(args):
    same(gs.linspace(*args), torch.linspace(*args))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_linspace_is_torchs_bit_for_bit(dtype):
    rng = np.random.default_rng(0)
    for _ in range(200):
        start, end, steps = rng.uniform(-10, 10), rng.uniform(-10, 10), int(rng.integers(0, 300))
        got = gs.linspace(start, end, steps, dtype=getattr(gs, dtype)).cpu().numpy()
        expected = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy()
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected, err_msg=f"linspace({start}, {end}, {steps})")


def test_linspace_refuses_negative_steps_as_torch():
    for lib in (gs, torch):
        with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
            lib.linspace(0, 1, -1)


def test_linspace_steps_keyword_and_dtype():
    same(gs.linspace(0, 1, steps=4, dtype=gs.float64), torch.linspace(0, 1, steps=4, dtype=torch.float64))


@pytest.mark.parametrize("args", [(2, 3), ((4,),), ((),), (1000,)], ids=str)
def test_randn_and_rand_shapes(args):
    for fn in ("randn", "rand"):
        t = getattr(gs, fn)(*args)
        assert t.shape == tuple(getattr(torch, fn)(*args).shape) and t.dtype == gs.float32


def test_rand_lies_in_unit_interval():
    values = gs.rand(10_000).cpu().numpy()
    assert values.min() >= 0.0 and values.max() < 1.0
    assert 0.45 < values.mean() < 0.55


def test_randn_is_standard_normal():
    gs.manual_seed(0)
    values = gs.randn(20_000).cpu().numpy()
    assert abs(values.mean()) < 0.05 and abs(values.std() - 1.0) < 0.05


def test_randint_range_shape_and_dtype():
    t = gs.randint(-3, 4, (50, 40))
    assert t.shape == (50, 40) and t.dtype == gs.int64
    values = t.cpu().numpy()
    assert values.min() == -3 and values.max() == 3


def test_randint_with_high_only():
    t = gs.randint(5, (1000,))
    assert t.dtype == gs.int64 and t.shape == (1000,)
    assert set(np.unique(t.cpu().numpy())) == {0, 1, 2, 3, 4}


def test_randint_with_dtype():
    assert gs.randint(0, 2, (3,), dtype=gs.int32).dtype == gs.int32


def test_manual_seed_makes_random_functions_reproducible():
    def draw():
        gs.manual_seed(1234)
        return gs.randn(3, 4).cpu().numpy(), gs.rand(5).cpu().numpy(), gs.randint(0, 100, (6,)).cpu().numpy()

    first, second = draw(), draw()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


def test_successive_draws_differ():
    gs.manual_seed(0)
    assert not np.array_equal(gs.randn(8).cpu().numpy(), gs.randn(8).cpu().numpy())


def test_different_seeds_give_different_draws():
    gs.manual_seed(1)
    a = gs.randn(8).cpu().numpy()
    gs.manual_seed(2)
    assert not np.array_equal(a, gs.randn(8).cpu().numpy())


def test_tensor_copies_its_numpy_data():
    source = np.array([1.0, 2.0])
    t = gs.tensor(source)
    source[0] = 100.0
    np.testing.assert_array_equal(t.cpu().numpy(), [1.0, 2.0])


@pytest.mark.parametrize("data", [[[1.0, 2.0], [3.0, 4.0]], 2.5, [], [[1, 2, 3]], [True, False]], ids=str)
def test_tensor_from_python_data_matches_torch(data):
    same(gs.tensor(data), torch.tensor(data))


def test_tensor_with_device_cpu():
    t = gs.tensor([1.0], device="cpu")
    assert str(t.device) == "cpu"


def test_tensor_requires_grad_makes_a_leaf():
    t = gs.tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad is None and t.grad_fn is None


def test_set_default_dtype_applies_to_creation_functions():
    before = gs.get_default_dtype()
    try:
        gs.set_default_dtype(gs.float64)
        for t in (
            gs.zeros(2),
            gs.ones(2),
            gs.randn(2),
            gs.rand(2),
            gs.arange(2.0),
            gs.linspace(0, 1, 3),
            gs.full((2,), 1.5),
            gs.eye(2),
            gs.empty(2),
        ):
            assert t.dtype == gs.float64
        assert gs.arange(2).dtype == gs.int64
    finally:
        gs.set_default_dtype(before)
