"""isnan, isfinite, allclose, clip, from_numpy, as_tensor, *_like, one_hot, inference_mode,
accelerator, cuda seeds and backends flags behave as PyTorch's."""

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphscope as gs
from graphscope.engine.nn import functional as F
from tests.engine.torch_reference import check

SPECIAL = np.array([1.0, np.nan, np.inf, -np.inf, 0.0, -2.5])


@pytest.mark.parametrize("op", ["isnan", "isfinite"])
def test_isnan_isfinite(op):
    check(lambda x: getattr(gs, op)(x), [SPECIAL], lambda x: getattr(torch, op)(x), forward_only=True)
    check(lambda x: getattr(x, op)(), [SPECIAL], forward_only=True)
    check(lambda x: getattr(x, op)(), [np.array([1, 2])], forward_only=True)


@pytest.mark.parametrize(
    "values, other, options",
    [
        ([1.0, 2.0], [1.0, 2.0 + 1e-6], {}),
        ([1.0, 2.0], [1.0, 2.1], {}),
        ([1.0, 2.0], [1.0, 2.1], dict(atol=0.2)),
        ([1.0, np.nan], [1.0, np.nan], {}),
        ([1.0, np.nan], [1.0, np.nan], dict(equal_nan=True)),
        ([np.inf, 1.0], [np.inf, 1.0], {}),
        ([1.0, 100.0], [1.0, 101.0], dict(rtol=0.02)),
    ],
    ids=str,
)
def test_allclose(values, other, options):
    expected = torch.allclose(torch.tensor(values), torch.tensor(other), **options)
    assert gs.allclose(gs.tensor(values), gs.tensor(other), **options) is expected
    assert gs.tensor(values).allclose(gs.tensor(other), **options) is expected


def test_allclose_errors():
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        gs.allclose(gs.ones(2), gs.ones(3))
    with pytest.raises(RuntimeError, match="float32 did not match float64"):
        gs.allclose(gs.ones(2), gs.ones(2, dtype=gs.float64))


def test_clip_is_clamp():
    check(lambda x: gs.clip(x, -0.5, 0.5), [(3, 4)], lambda x: torch.clip(x, -0.5, 0.5))
    check(lambda x: x.clip(max=0.3), [(3, 4)])


@pytest.mark.cpu_only
def test_from_numpy_and_as_tensor_share_memory():
    for make in (gs.from_numpy, gs.as_tensor):
        a = np.array([1.0, 2.0])
        t = make(a)
        a[0] = 5.0
        assert t.tolist() == [5.0, 2.0] and t.dtype is gs.float64
    a = np.array([1.0, 2.0])
    copied = gs.as_tensor(a, dtype=gs.float32)
    a[0] = 5.0
    assert copied.tolist() == [1.0, 2.0] and copied.dtype is gs.float32


def test_as_tensor_of_data_and_of_a_tensor():
    t = gs.tensor([1.0, 2.0])
    assert gs.as_tensor(t) is t
    assert gs.as_tensor([1, 2]).dtype is gs.int64 and gs.as_tensor([1, 2], dtype=gs.float32).dtype is gs.float32


def test_from_numpy_errors():
    with pytest.raises(TypeError, match=r"from_numpy expects a numpy\.ndarray, got list"):
        gs.from_numpy([1, 2])
    with pytest.raises(TypeError, match="unsupported dtype"):
        gs.from_numpy(np.array([1, 2], dtype=np.uint16))


@pytest.mark.parametrize("fill, dtype", [(2.7, "int64"), (3, "float32"), (True, "float64"), (-1, "int32")])
def test_full_like(fill, dtype):
    got = gs.full_like(gs.ones(2, 3, dtype=getattr(gs, dtype)), fill)
    expected = torch.full_like(torch.ones(2, 3, dtype=getattr(torch, dtype)), fill)
    assert got.dtype.name == dtype and got.tolist() == expected.tolist()
    assert gs.full_like(gs.ones(2), 3, dtype=gs.int32).dtype is gs.int32


@pytest.mark.parametrize("name", ["rand_like", "randn_like"])
def test_random_like(name):
    for dtype in (gs.float32, gs.float64):
        out = getattr(gs, name)(gs.ones(3, 2, dtype=dtype))
        assert out.shape == (3, 2) and out.dtype is dtype and not out.requires_grad
    assert getattr(gs, name)(gs.ones(2), requires_grad=True).requires_grad
    assert getattr(gs, name)(gs.ones(2), dtype=gs.float64).dtype is gs.float64
    with pytest.raises(NotImplementedError, match="random floats can't be drawn in int64"):
        getattr(gs, name)(gs.ones(2, dtype=gs.int64))


def test_one_hot_matches_torch_and_its_errors():
    t = np.array([[0, 3], [2, 1]])
    assert F.one_hot(gs.tensor(t), 5).tolist() == TF.one_hot(torch.tensor(t), 5).tolist()
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(gs.tensor([0, 2]), 2)
    with pytest.raises(RuntimeError, match="Class values must be non-negative"):
        F.one_hot(gs.tensor([-1, 2]))
    for bad in (gs.tensor([0.0, 2.0]), gs.tensor([0, 2], dtype=gs.int32)):
        with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor of type LongTensor"):
            F.one_hot(bad)


# --- inference_mode ---------------------------------------------------------------------------------


def test_inference_mode_as_context_manager_and_decorator():
    x = gs.ones(2, requires_grad=True)
    with gs.inference_mode():
        assert not (x * 2).requires_grad and not gs.is_grad_enabled()
    assert gs.is_grad_enabled()
    with gs.inference_mode(False):
        assert (x * 2).requires_grad

    @gs.inference_mode
    def bare():
        return (x * 2).requires_grad

    @gs.inference_mode()
    def called():
        return (x * 2).requires_grad

    @gs.inference_mode(mode=False)
    def off():
        return (x * 2).requires_grad

    assert (bare(), called(), off()) == (False, False, True)
    assert bare.__name__ == "bare" and gs.is_grad_enabled()


def test_inference_mode_restores_grad_mode_after_an_error():
    with pytest.raises(ValueError, match=r"^inside$"), gs.inference_mode():
        raise ValueError("inside")
    assert gs.is_grad_enabled()


# --- accelerator, cuda seeds, backends ---------------------------------------------------------------


def test_accelerator_reports_cuda_only_when_a_gpu_is_usable():
    available = gs.cuda.is_available()
    assert gs.accelerator.is_available() is available
    assert gs.accelerator.current_accelerator() == (gs.device("cuda") if available else None)
    assert gs.accelerator.device_count() == (gs.cuda.device_count() if available else 0)


def test_cuda_manual_seed_all_seeds_the_cuda_generators_only():
    from graphscope.engine import random

    gs.manual_seed(1)
    first = gs.randn(3).tolist()
    gs.manual_seed(1)
    gs.cuda.manual_seed_all(7)
    gs.cuda.manual_seed(7)
    assert gs.randn(3).tolist() == first  # the CPU generator keeps torch.manual_seed's seed
    assert random._type_seeds == {"cuda": 7}
    gs.manual_seed(1)
    assert random._type_seeds == {}


def test_backends_flags_are_kept_and_say_once_that_they_do_nothing():
    from graphscope.engine import backends

    backends._said.clear()
    with pytest.warns(UserWarning, match="graphscope.backends.cudnn.benchmark has no effect in graphscope"):
        gs.backends.cudnn.benchmark = True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gs.backends.cudnn.benchmark = False  # said once already
    assert gs.backends.cudnn.benchmark is False
    with pytest.warns(UserWarning, match="backends.cuda.matmul.allow_tf32 has no effect"):
        gs.backends.cuda.matmul.allow_tf32 = True
    with pytest.warns(UserWarning, match="backends.cudnn.deterministic has no effect"):
        gs.backends.cudnn.deterministic = True
    gs.backends.cudnn.deterministic = False
    assert not gs.backends.mps.is_available() and not gs.backends.mps.is_built()
    assert not gs.backends.cudnn.is_available()
