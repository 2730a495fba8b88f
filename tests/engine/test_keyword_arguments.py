"""keepdims= (an alias of keepdim=) and out= on creation and elementwise functions, as PyTorch."""

import warnings

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.torch_reference import check

REDUCTIONS = ["sum", "mean", "var", "std", "prod", "amax", "amin", "argmax", "argmin", "logsumexp"]


@pytest.mark.parametrize("op", REDUCTIONS)
def test_keepdims_is_keepdim_for_methods_and_functions(op):
    check(lambda x: getattr(x, op)(1, keepdims=True), [(3, 4)], forward_only=op.startswith("arg"))
    check(
        lambda x: getattr(gs, op)(x, 0, keepdims=True),
        [(3, 4)],
        lambda x: getattr(torch, op)(x, 0, keepdims=True),
        forward_only=op.startswith("arg"),
    )


@pytest.mark.parametrize("op", ["max", "min"])
def test_keepdims_on_max_and_min_along_a_dim(op):
    check(lambda x: getattr(x, op)(1, keepdims=True), [(3, 4)])
    check(
        lambda x: getattr(gs, op)(x, dim=0, keepdims=True),
        [(3, 4)],
        lambda x: getattr(torch, op)(x, dim=0, keepdims=True),
    )


def test_keepdims_on_all_any_and_linalg_norms():
    check(lambda x: (x > 0).all(1, keepdims=True), [(3, 4)], forward_only=True)
    check(
        lambda x: gs.any(x > 0, 0, keepdims=True),
        [(3, 4)],
        lambda x: torch.any(x > 0, 0, keepdims=True),
        forward_only=True,
    )
    check(
        lambda x: gs.linalg.norm(x, dim=1, keepdims=True),
        [(3, 4)],
        lambda x: torch.linalg.norm(x, dim=1, keepdims=True),
    )
    check(
        lambda x: gs.linalg.vector_norm(x, 1, 0, keepdims=True),
        [(3, 4)],
        lambda x: torch.linalg.vector_norm(x, 1, 0, keepdims=True),
    )


def test_keepdim_and_keepdims_together_is_an_error():
    with pytest.raises(TypeError, match="both 'keepdim' and its alias 'keepdims'"):
        gs.ones(2, 3).sum(1, keepdim=True, keepdims=True)


OPS = [
    ("add", lambda lib, a, b: (a, b)),
    ("mul", lambda lib, a, b: (a, b)),
    ("div", lambda lib, a, b: (a, b)),
    ("maximum", lambda lib, a, b: (a, b)),
    ("exp", lambda lib, a, b: (a,)),
    ("tanh", lambda lib, a, b: (a,)),
    ("floor", lambda lib, a, b: (a,)),
    ("remainder", lambda lib, a, b: (a, b)),
    ("matmul", lambda lib, a, b: (a, b.T)),
    ("clamp", lambda lib, a, b: (a, -0.5, 0.5)),
    ("cumsum", lambda lib, a, b: (a, 1)),
    ("cat", lambda lib, a, b: ([a, b],)),
    ("gt", lambda lib, a, b: (a, b)),
]


@pytest.mark.parametrize("op, arguments", OPS, ids=[o for o, _ in OPS])
def test_out_writes_the_result_into_the_given_tensor(op, arguments):
    rng = np.random.default_rng(0)
    a, b = rng.uniform(-2, 2, (3, 4)), rng.uniform(0.5, 2, (3, 4))
    expected = getattr(torch, op)(*arguments(torch, torch.tensor(a), torch.tensor(b)))
    out = gs.empty(*expected.shape, dtype=getattr(gs, str(expected.dtype).split(".")[-1]))
    version = out._version
    result = getattr(gs, op)(*arguments(gs, gs.tensor(a), gs.tensor(b)), out=out)
    assert result is out and out._version > version
    np.testing.assert_allclose(np.asarray(out), expected.numpy(), rtol=1e-12)


def test_out_takes_a_wider_dtype_or_a_float_for_an_integer_result():
    out = gs.empty(2)
    gs.add(gs.tensor([1, 2]), 1, out=out)
    assert out.dtype is gs.float32 and out.tolist() == [2.0, 3.0]
    gs.add(gs.ones(2, dtype=gs.float64), 1, out=out)
    assert out.dtype is gs.float32 and out.tolist() == [2.0, 2.0]


def test_out_refuses_a_float_result_into_an_integer_tensor():
    with pytest.raises(RuntimeError, match="result type float32 can't be cast to the desired output type int64"):
        gs.exp(gs.ones(2), out=gs.empty(2, dtype=gs.int64))


def test_out_refuses_inputs_that_require_grad_while_recording():
    a = gs.ones(2, requires_grad=True)
    message = "add\\(\\): functions with out=... arguments don't support automatic differentiation"
    with pytest.raises(RuntimeError, match=message):
        gs.add(a, 1, out=gs.empty(2))
    with pytest.raises(RuntimeError, match=message):
        gs.add(gs.ones(2), 1, out=gs.empty(2, requires_grad=True))
    with gs.no_grad():
        assert gs.add(a, 1, out=gs.empty(2)).tolist() == [2.0, 2.0]


def test_out_of_another_shape_is_resized_with_torchs_warning():
    out = gs.empty(2)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        gs.add(gs.ones(3), 1, out=out)
    assert out.shape == (3,) and out.tolist() == [2.0, 2.0, 2.0]
    empty = gs.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gs.mul(gs.ones(2, 2), 3, out=empty)
    assert empty.shape == (2, 2)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, out: lib.zeros(2, 3, out=out),
        lambda lib, out: lib.ones(4, out=out),
        lambda lib, out: lib.full((2,), 7, out=out),
        lambda lib, out: lib.arange(5, out=out),
        lambda lib, out: lib.linspace(0, 1, 5, out=out),
        lambda lib, out: lib.eye(3, out=out),
    ],
    ids=["zeros", "ones", "full", "arange", "linspace", "eye"],
)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_creation_with_out_takes_its_dtype(make, dtype):
    out = gs.empty(0, dtype=getattr(gs, dtype))
    expected = make(torch, torch.empty(0, dtype=getattr(torch, dtype)))
    assert make(gs, out) is out
    assert out.dtype is getattr(gs, dtype) and tuple(out.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(np.asarray(out), expected.numpy())


def test_random_creation_with_out():
    out = gs.empty(3, 2, dtype=gs.float64)
    assert gs.randn(3, 2, out=out) is out and out.dtype is gs.float64
    assert gs.randint(0, 5, (4,), out=gs.empty(4, dtype=gs.int64)).dtype is gs.int64


def test_creation_with_out_and_another_dtype_raises():
    with pytest.raises(RuntimeError, match="dtype float64 does not match dtype of out parameter \\(float32\\)"):
        gs.zeros(2, dtype=gs.float64, out=gs.empty(2))


def test_out_must_be_a_tensor():
    with pytest.raises(TypeError, match="argument 'out' must be a Tensor, not list"):
        gs.add(gs.ones(2), 1, out=[0, 0])
