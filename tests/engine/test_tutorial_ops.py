"""The names the tutorials' scan (and running them) found missing, against torch 2.13: asin, sin_, fmod,
bitwise_xor, dist, cross, contiguous, unique, index_add(_), linalg.solve, linalg.eigvalsh, Tensor.stride and
is_contiguous, nn.init.orthogonal_ and nn.DataParallel."""

import warnings

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.torch_reference import check


def test_asin_forward_and_backward_as_torch():
    check(lambda x: x.asin(), [(3, 4)], low=-0.95, high=0.95)
    check(lambda x: (x * 0.5).asin(), [(5,)], low=-1.9, high=1.9)


def test_asin_of_integers_is_a_float_tensor_as_torch():
    assert gs.asin(gs.tensor([0, 1])).dtype == gs.float32
    np.testing.assert_allclose(gs.asin(gs.tensor([0, 1])).numpy(), torch.asin(torch.tensor([0, 1])).numpy())


def test_sin_in_place_as_torch():
    x, t = gs.tensor([0.5, -1.0, 2.0]), torch.tensor([0.5, -1.0, 2.0])
    assert gs.sin_(x) is x and torch.sin_(t) is t
    np.testing.assert_allclose(x.numpy(), t.numpy(), rtol=1e-6)
    check(lambda a: (a * 1.0).sin_(), [(2, 3)])  # on a graph's intermediate: backward through it


def test_sin_in_place_of_integers_fails_as_torch():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.sin_(torch.tensor([1, 2]))
    with pytest.raises(RuntimeError, match=r"result type float32 can't be cast to the desired output type int64"):
        gs.sin_(gs.tensor([1, 2]))


def test_fmod_takes_the_dividends_sign_as_torch():
    values = np.array([-3.5, -2.0, 3.0, 5.5, 7.25])
    divisors = np.array([2.0, -1.5, -2.0, 2.5, 1.0])
    check(lambda a, b: a.fmod(b), [values, divisors])
    check(lambda a: a.fmod(1.5), [values])
    check(lambda a, b: a.fmod(b), [np.array([-7, 7, 5]), np.array([2, -3, 5])], forward_only=True)


def test_fmod_of_integers_by_zero_fails_as_torch():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.fmod(torch.tensor([3]), 0)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        gs.fmod(gs.tensor([3]), 0)


def test_bitwise_xor_as_torch():
    a, b = np.array([1, 2, 3, 12]), np.array([3, 3, 0, 10])
    assert (
        gs.bitwise_xor(gs.tensor(a), gs.tensor(b)).tolist()
        == torch.bitwise_xor(torch.tensor(a), torch.tensor(b)).tolist()
    )
    assert gs.tensor([True, False]).bitwise_xor(gs.tensor([True, True])).tolist() == [False, True]
    with pytest.raises(RuntimeError, match="\"bitwise_xor_cpu\" not implemented for 'Float'"):
        torch.bitwise_xor(torch.tensor([1.0]), torch.tensor([1.0]))
    with pytest.raises(NotImplementedError, match="bitwise_xor is not implemented for floating point operands"):
        gs.bitwise_xor(gs.tensor([1.0]), gs.tensor([1.0]))


@pytest.mark.parametrize("p", [2, 1, 3, float("inf")])
def test_dist_is_the_p_norm_of_the_difference_as_torch(p):
    check(lambda a, b: a.dist(b, p), [(3, 4), (4,)])


def test_cross_along_a_dim_with_broadcasting_as_torch():
    check(lambda a, b: a.cross(b, dim=1), [(1, 3), (4, 3)])
    check(lambda a, b: a.cross(b, dim=-1), [(2, 5, 3), (2, 5, 3)])


def test_cross_without_dim_takes_the_first_dim_of_size_3_and_warns_as_torch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(lambda a, b: a.cross(b), [(3, 4), (3, 4)], dtypes=("float64",))
    messages = [str(w.message) for w in caught if w.category is UserWarning]
    assert sum(m.startswith("Using torch.cross without specifying the dim arg is deprecated.") for m in messages) == 2


@pytest.mark.parametrize(
    "shapes, dim, message",
    [
        (((2, 4), (2, 4)), None, "no dimension of size 3 in input"),
        (((2, 3), (2, 3)), 0, "linalg.cross: inputs dimension 0 must have length 3. Got 2 and 2"),
    ],
)
def test_cross_without_a_dim_of_size_3_fails_as_torch(shapes, dim, message):
    for lib in (torch, gs):
        a, b = (lib.ones(*shape) for shape in shapes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError) as caught:
                lib.cross(a, b) if dim is None else lib.cross(a, b, dim=dim)
        assert str(caught.value).startswith(message), lib


def test_contiguous_copies_a_transposed_tensor_so_that_view_works_as_torch():
    check(lambda x: x.transpose(1, 2).contiguous().view(2, 4, 15), [(2, 3, 4, 5)])
    x, t = gs.ones(2, 3), torch.ones(2, 3)
    assert x.contiguous() is x and t.contiguous() is t  # already row-major: the tensor itself


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (6, 2, 2)])
def test_orthogonal_init_is_torchs_algorithm_on_the_drawn_matrix(shape):
    rows, cols = shape[0], int(np.prod(shape[1:]))
    gs.manual_seed(7)
    drawn = gs.empty(rows, cols).normal_(0, 1).numpy().astype(np.float64)
    gs.manual_seed(7)
    w = gs.nn.init.orthogonal_(gs.empty(*shape), gain=2.0)
    flat = torch.tensor(drawn.T if rows < cols else drawn)
    q, r = torch.linalg.qr(flat)
    q = q * torch.diag(r, 0).sign()
    expected = (q.T if rows < cols else q).reshape(shape) * 2.0
    np.testing.assert_allclose(w.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    assert w.dtype == gs.float32


def test_orthogonal_init_of_a_vector_fails_as_torch():
    for lib in (torch, gs):
        with pytest.raises(ValueError, match=r"^Only tensors with 2 or more dimensions are supported$"):
            lib.nn.init.orthogonal_(lib.empty(3))


def test_data_parallel_calls_its_module_with_torchs_names_and_numbers():
    torch.manual_seed(0)
    reference = torch.nn.Linear(3, 2)
    model = gs.nn.Linear(3, 2)
    model.load_state_dict({k: gs.tensor(v.detach().numpy()) for k, v in reference.state_dict().items()})
    wrapped, torch_wrapped = gs.nn.DataParallel(model), torch.nn.DataParallel(reference)
    assert list(wrapped.state_dict()) == list(torch_wrapped.state_dict()) == ["module.weight", "module.bias"]
    assert repr(wrapped) == repr(torch_wrapped)
    assert wrapped.device_ids == torch_wrapped.device_ids == []
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_allclose(
        wrapped(gs.tensor(x)).detach().numpy(), torch_wrapped(torch.tensor(x)).detach().numpy(), rtol=1e-6
    )
    assert [p is q for p, q in zip(wrapped.parameters(), model.parameters())] == [True, True]


@pytest.mark.parametrize(
    "values, options",
    [
        ([3.0, 1.0, 2.0, 3.0, 1.0], {}),
        ([3, 1, 2, 3, 1], {"return_inverse": True, "return_counts": True}),
        ([[1, 2], [1, 2], [0, 5]], {"return_inverse": True}),
        ([[1, 2], [1, 2], [0, 5]], {"dim": 0, "return_inverse": True, "return_counts": True}),
        ([[1, 2, 1], [3, 4, 3]], {"dim": -1, "return_counts": True}),
        ([float("nan"), 1.0, float("nan")], {"return_counts": True}),
        (7.0, {"return_inverse": True}),
        ([], {"return_inverse": True, "return_counts": True}),
    ],
)
def test_unique_as_torch(values, options):
    got, expected = gs.unique(gs.tensor(values), **options), torch.unique(torch.tensor(values), **options)
    got, expected = (got, expected) if isinstance(expected, tuple) else ((got,), (expected,))
    assert len(got) == len(expected)
    for g, t in zip(got, expected):
        assert tuple(g.shape) == tuple(t.shape) and str(g.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_array_equal(g.numpy(), t.numpy())


def test_unique_of_a_tensor_requiring_grad_has_no_derivative_as_torch():
    for lib in (torch, gs):
        x = lib.tensor([3.0, 1.0, 3.0], requires_grad=True)
        values = x.unique()
        assert values.requires_grad
        with pytest.raises(NotImplementedError, match=r"the derivative for '.*unique.*' is not implemented"):
            values.sum().backward()


def test_unique_along_a_dim_out_of_range_fails_as_torch():
    for lib in (torch, gs):
        with pytest.raises(
            IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$"
        ):
            lib.unique(lib.ones(2, 2), dim=2)


def _well_conditioned(*shape):
    """Random square matrices near the identity (uniform noise plus 3·I): solvable, and stable in float32."""
    rng = np.random.default_rng(1)
    return rng.uniform(-1, 1, size=shape) + 3 * np.eye(shape[-1])


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((3, 3), (3,)), ((3, 3), (3, 2)), ((4, 3, 3), (4, 3)), ((4, 3, 3), (3, 2)), ((2, 1, 3, 3), (5, 3, 1))],
    ids=["vector", "matrix", "batch-of-vectors", "broadcast-b", "broadcast-both"],
)
def test_linalg_solve_forward_and_backward_as_torch(a_shape, b_shape):
    check(lambda a, b: _lib(a).linalg.solve(a, b), [_well_conditioned(*a_shape), b_shape])


def _lib(t):
    return torch if isinstance(t, torch.Tensor) else gs


@pytest.mark.parametrize(
    "a, b, error, message",
    [
        (
            [[1.0, 2.0], [2.0, 4.0]],
            [1.0, 1.0],
            RuntimeError,
            "torch.linalg.solve: The solver failed because the input matrix is singular.",
        ),
        (
            [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
            [1.0, 1.0],
            RuntimeError,
            "linalg.solve: A must be batches of square matrices, but they are 2 by 3 matrices",
        ),
        (
            [[1.0, 0.0], [0.0, 1.0]],
            [1.0, 1.0, 1.0],
            RuntimeError,
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x1)",
        ),
    ],
    ids=["singular", "not-square", "incompatible"],
)
def test_linalg_solve_errors_as_torch(a, b, error, message):
    for lib in (torch, gs):
        with pytest.raises(error) as caught:
            lib.linalg.solve(lib.tensor(a), lib.tensor(b))
        assert str(caught.value).startswith(message), lib
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.solve(torch.zeros(2, 2), torch.ones(2))
    with pytest.raises(gs.linalg.LinAlgError):
        gs.linalg.solve(gs.zeros(2, 2), gs.ones(2))


def test_linalg_solve_of_two_dtypes_fails_as_torch():
    with pytest.raises(RuntimeError, match="Expected A and B to have the same dtype"):
        torch.linalg.solve(torch.eye(2), torch.ones(2, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="Expected A and B to have the same dtype, but found A of type float32"):
        gs.linalg.solve(gs.eye(2), gs.ones(2, dtype=gs.float64))


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_linalg_eigvalsh_reads_one_triangle_forward_and_backward_as_torch(shape, uplo):
    check(lambda a: _lib(a).linalg.eigvalsh(a, UPLO=uplo), [shape])


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda lib: lib.linalg.eigvalsh(lib.ones(2, 3)), RuntimeError, "linalg.eigh: A must be batches of square"),
        (lambda lib: lib.linalg.eigvalsh(lib.ones(2, 2), UPLO="X"), RuntimeError, "Expected UPLO argument to be"),
        (lambda lib: lib.linalg.eigvalsh(lib.ones(2, 2, dtype=lib.int64)), NotImplementedError, None),
    ],
    ids=["not-square", "uplo", "integers"],
)
def test_linalg_eigvalsh_errors_as_torch(make, error, message):
    for lib in (torch, gs):
        with pytest.raises(error) as caught:
            make(lib)
        assert message is None or str(caught.value).startswith(message), lib


def test_linalg_eigvalsh_of_integers_says_to_convert():
    with pytest.raises(NotImplementedError, match=r"^linalg.eigvalsh is not implemented for int64 tensors; convert"):
        gs.linalg.eigvalsh(gs.ones(2, 2, dtype=gs.int64))


@pytest.mark.parametrize(
    "view",
    [
        lambda x: x,
        lambda x: x.transpose(0, 2),
        lambda x: x[:, ::2],
        lambda x: x[0],
        lambda x: x[:1, :, 1:3].permute(2, 0, 1),
        lambda x: x.sum(0, keepdim=True),
        lambda x: x.transpose(1, 2).contiguous(),
        lambda x: x[..., :1].expand(2, 3, 5),
    ],
    ids=["fresh", "transpose", "step", "select", "slice-permute", "reduced", "contiguous", "expand"],
)
def test_stride_and_is_contiguous_as_torch(view):
    x, t = view(gs.ones(2, 3, 4)), view(torch.ones(2, 3, 4))
    assert x.stride() == t.stride() and [x.stride(d) for d in range(-x.ndim, x.ndim)] == [
        t.stride(d) for d in range(-t.ndim, t.ndim)
    ]
    assert x.is_contiguous() == t.is_contiguous()
    with pytest.raises(IndexError, match=r"^Dimension out of range"):
        x.stride(x.ndim)


def test_index_add_forward_and_backward_as_torch():
    index = np.array([0, 2, 0, 3])
    check(lambda x, s: x.index_add(1, _lib(x).tensor(index), s, alpha=2.0), [(3, 5), (3, 4)])
    check(lambda x, s: (x * 1.0).index_add_(0, _lib(x).tensor(index), s), [(4, 2), (4, 2)])  # in place, tracked


def test_index_add_in_place_untracked_accumulates_repeats_as_torch():
    x, t = gs.zeros(3, 2), torch.zeros(3, 2)
    source = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    assert x.index_add_(0, gs.tensor([0, 0, 2]), gs.tensor(source), alpha=2) is x
    t.index_add_(0, torch.tensor([0, 0, 2]), torch.tensor(source), alpha=2)
    np.testing.assert_array_equal(x.numpy(), t.numpy())


@pytest.mark.parametrize(
    "index, source, error, message",
    [
        ([0, 5], (2, 2), RuntimeError, "index 5 is out of bounds for dimension 0 with size 3"),
        ([-1], (1, 2), RuntimeError, "index -1 is out of bounds for dimension 0 with size 3"),
        ([[0]], (1, 2), IndexError, "index_add_(): Index is supposed to be a vector, but got dim: 2"),
        ([0, 1], (2, 3), RuntimeError, "source tensor shape must match self tensor shape, excluding the specified"),
    ],
    ids=["past-the-end", "negative", "not-a-vector", "source-shape"],
)
def test_index_add_errors_as_torch(index, source, error, message):
    for lib in (torch, gs):
        with pytest.raises(error) as caught:
            lib.zeros(3, 2).index_add_(0, lib.tensor(index), lib.ones(*source))
        assert str(caught.value).startswith(message), lib
