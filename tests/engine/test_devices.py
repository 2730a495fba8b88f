"""The device model, with PyTorch's names: devices, moving tensors, cross-device errors, no GPU.

Most tests use the `strict` test device (array-api-strict, tests/engine/strict_device.py) as
the GPU stand-in: a second device whose arrays NumPy can't read. tests/engine/test_cuda.py runs
the same kind of checks on a real GPU where there is one.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import graphscope as gs
from graphscope.engine import backend

pytest.importorskip("array_api_strict", reason="the strict test device needs array-api-strict (the test extra)")
from tests.engine import strict_device

ROOT = Path(__file__).resolve().parents[2]
HAS_CUPY = importlib.util.find_spec("cupy") is not None

strict_device.register()


@pytest.fixture(autouse=True)
def default_cpu():
    """These tests name their devices; they start from the CPU whatever the suite's device is."""
    previous = gs.get_default_device()
    gs.set_default_device("cpu")
    yield
    gs.set_default_device(previous)


@pytest.fixture
def default_strict():
    previous = gs.get_default_device()
    gs.set_default_device("strict")
    yield
    gs.set_default_device(previous)


# --- devices --------------------------------------------------------------------------------------


def test_device_names_follow_torch():
    assert str(gs.device("cuda:1")) == "cuda:1" and gs.device("cuda:1").index == 1
    assert gs.device("cuda").type == "cuda" and gs.device("cuda").index is None
    assert repr(gs.device("cpu")) == "device(type='cpu')"
    assert repr(gs.device("cuda", 0)) == "device(type='cuda', index=0)"
    assert gs.device("cuda") == "cuda:0" and gs.device("cpu") == "cpu" and gs.device("cpu") != "cuda"


def test_unknown_device_names_what_is_supported():
    with pytest.raises(RuntimeError, match=r"unknown device 'tpu'.*'cpu'"):
        gs.device("tpu")


def test_cpu_tensors_report_the_cpu():
    x = gs.tensor([1.0])
    assert x.device == gs.device("cpu") and not x.is_cuda and x.get_device() == -1


# --- asking for CUDA where there is none -----------------------------------------------------------


@pytest.mark.skipif(HAS_CUPY, reason="CuPy is installed here: test_cuda.py covers CUDA")
@pytest.mark.parametrize(
    "ask",
    [
        lambda: gs.zeros(2, device="cuda"),
        lambda: gs.tensor([1.0], device="cuda:0"),
        lambda: gs.randn(3, device="cuda"),
        lambda: gs.tensor([1.0]).cuda(),
        lambda: gs.tensor([1.0]).to("cuda"),
        lambda: gs.set_default_device("cuda"),
    ],
    ids=["zeros", "tensor", "randn", ".cuda()", ".to('cuda')", "set_default_device"],
)
def test_cuda_without_cupy_raises_one_clear_error(ask):
    with pytest.raises(RuntimeError, match=r"CuPy is not installed.*pip install 'graphscope\[gpu\]'"):
        ask()
    assert gs.get_default_device() == "cpu"


@pytest.mark.skipif(not HAS_CUPY or gs.cuda.is_available(), reason="needs CuPy without a usable GPU")
def test_cuda_with_cupy_but_no_gpu_says_which_is_missing():
    with pytest.raises(RuntimeError, match=r"no CUDA GPU is visible.*graphscope\[gpu\]"):
        gs.zeros(2, device="cuda")


@pytest.mark.skipif(HAS_CUPY, reason="CuPy is installed here")
def test_cuda_is_unavailable_without_cupy():
    assert gs.cuda.is_available() is False and gs.cuda.device_count() == 0


def test_importing_graphscope_never_imports_cupy():
    code = "import sys, graphscope; assert 'cupy' not in sys.modules, 'cupy imported'"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# --- a second device: creation and moves ------------------------------------------------------------

CREATIONS = {
    "tensor": lambda d: gs.tensor([[1.0, 2.0]], device=d),
    "as_tensor": lambda d: gs.as_tensor([1, 2], device=d),
    "zeros": lambda d: gs.zeros(2, 3, device=d),
    "ones": lambda d: gs.ones((2,), device=d),
    "empty": lambda d: gs.empty(4, device=d),
    "full": lambda d: gs.full((2, 2), 7, device=d),
    "eye": lambda d: gs.eye(3, device=d),
    "arange": lambda d: gs.arange(0, 1, 0.25, device=d),
    "linspace": lambda d: gs.linspace(0, 1, 5, device=d),
    "randn": lambda d: gs.randn(3, device=d),
    "rand": lambda d: gs.rand(3, device=d),
    "randint": lambda d: gs.randint(0, 5, (4,), device=d),
    "randperm": lambda d: gs.randperm(6, device=d),
    "zeros_like": lambda d: gs.zeros_like(gs.ones(2), device=d),
    "full_like": lambda d: gs.full_like(gs.ones(2), 3.0, device=d),
    "randn_like": lambda d: gs.randn_like(gs.ones(2), device=d),
}


@pytest.mark.parametrize("create", CREATIONS.values(), ids=CREATIONS.keys())
def test_every_creation_function_takes_device(create):
    made = create("strict")
    assert made.device == "strict" and str(made.device) == "strict:0"
    reference = create("cpu")
    assert made.shape == reference.shape and made.dtype is reference.dtype


def test_to_and_cpu_move_values_and_keep_dtype():
    x = gs.tensor([[1.5, -2.0]], dtype=gs.float64)
    y = x.to("strict")
    assert y.device == "strict" and y.dtype is gs.float64 and x.device == "cpu"
    back = y.cpu()
    assert back.device == "cpu" and back.tolist() == [[1.5, -2.0]]
    assert y.to("strict") is y and x.cpu() is x  # no copy when already there
    assert x.to(gs.device("strict"), gs.float32).dtype is gs.float32


def test_to_another_tensor_takes_its_device_and_dtype():
    target = gs.zeros(1, dtype=gs.float64, device="strict")
    moved = gs.tensor([1, 2]).to(target)
    assert moved.device == "strict" and moved.dtype is gs.float64


def test_grads_flow_back_across_a_move():
    x = gs.tensor([1.0, 2.0], requires_grad=True)
    y = (x.to("strict") * 3).sum()
    y.backward()
    assert x.grad.device == "cpu" and x.grad.tolist() == [3.0, 3.0]
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"


def test_item_and_tolist_work_off_the_cpu():
    x = gs.tensor([[1.0, 2.0]], device="strict")
    assert x.tolist() == [[1.0, 2.0]] and x.sum().item() == 3.0 and float(x[0, 1]) == 2.0


def test_numpy_off_the_cpu_says_to_call_cpu_first():
    x = gs.tensor([1.0], device="strict")
    with pytest.raises(TypeError, match=r"can't convert strict:0 device type tensor to numpy.*\.cpu\(\)"):
        x.numpy()
    np.testing.assert_array_equal(x.cpu().numpy(), [1.0])


def test_repr_names_the_device():
    assert repr(gs.tensor([1.0], device="strict")) == "tensor([1.], device='strict:0')"


@pytest.mark.parametrize(
    "op",
    [
        lambda a, b: a + b,
        lambda a, b: a @ b,
        lambda a, b: gs.cat([a, b]),
        lambda a, b: gs.where(a > 0, a, b),
        lambda a, b: a.masked_fill(b > 0, 0.0),
    ],
    ids=["add", "matmul", "cat", "where", "masked_fill"],
)
def test_ops_across_devices_raise_like_torch(op):
    a, b = gs.ones(2, 2), gs.ones(2, 2, device="strict")
    with pytest.raises(
        RuntimeError,
        match=r"Expected all tensors to be on the same device, but found at "
        r"least two devices, (cpu and strict:0|strict:0 and cpu)! "
        r"\(when checking arguments for \w+\)",
    ):
        op(a, b)


def test_in_place_op_across_devices_raises():
    a = gs.ones(2)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        a += gs.ones(2, device="strict")


def test_copy_moves_values_across_devices_as_torch():
    a = gs.zeros(2)
    a.copy_(gs.tensor([1.0, 2.0], device="strict"))
    assert a.device == "cpu" and a.tolist() == [1.0, 2.0]


def test_set_default_device_places_new_tensors(default_strict):
    assert gs.get_default_device() == "strict"
    assert gs.tensor([1.0]).device == "strict" and gs.zeros(2).device == "strict"
    assert gs.randn(2).device == "strict" and gs.arange(3).device == "strict"
    assert gs.from_numpy(np.ones(2)).device == "cpu"  # from_numpy shares host memory, as torch


def test_manual_seed_reproduces_draws_on_the_device():
    gs.manual_seed(3)
    first = gs.randn(4, device="strict").tolist()
    gs.manual_seed(3)
    assert gs.randn(4, device="strict").tolist() == first


def test_bincount_counts_on_the_device():
    values = [3, 0, 3, 1, 3, 0]
    cpu = backend.bincount(gs.tensor(values).array, 5)
    strict = backend.bincount(gs.tensor(values, device="strict").array, 5)
    assert backend.to_host(cpu).tolist() == backend.to_host(strict).tolist() == [2, 1, 0, 3, 0]
    assert backend.device_of(strict) == "strict"


# --- modules and optimizers ---------------------------------------------------------------------


def test_module_to_moves_parameters_and_trains_there():
    model = gs.nn.Sequential(gs.nn.Linear(3, 4), gs.nn.ReLU(), gs.nn.Linear(4, 1))
    assert model.to("strict") is model
    assert {str(p.device) for p in model.parameters()} == {"strict:0"}
    optimizer = gs.optim.Adam(model.parameters(), lr=0.1)
    x, y = gs.randn(8, 3, device="strict"), gs.randn(8, 1, device="strict")
    for _ in range(2):
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert {str(p.grad.device) for p in model.parameters()} == {"strict:0"}
    for state in optimizer.state.values():
        for value in state.values():
            if isinstance(value, gs.Tensor):
                assert value.device == "strict"
    assert model.cpu() is model and {str(p.device) for p in model.parameters()} == {"cpu"}


def test_input_on_another_device_than_the_module_raises():
    model = gs.nn.Linear(3, 1).to("strict")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        model(gs.ones(2, 3))


# --- the whole conformance suite on the strict device ---------------------------------------------

CONFORMANCE = [
    "tests/engine/test_ops_arithmetic.py",
    "tests/engine/test_ops_unary.py",
    "tests/engine/test_ops_reduce.py",
    "tests/engine/test_ops_shape.py",
    "tests/engine/test_ops_index.py",
    "tests/engine/test_ops_inplace.py",
    "tests/engine/test_semantics.py",
    "tests/engine/test_autograd.py",
    "tests/engine/test_creation.py",
    "tests/engine/test_hooks.py",
    "tests/engine/nn",
    "tests/engine/optim",
    "tests/engine/test_ops_rounding.py",
    "tests/engine/test_ops_ordering.py",
    "tests/engine/test_ops_reorder.py",
    "tests/engine/test_ops_products.py",
    "tests/engine/test_ops_norms.py",
    "tests/engine/test_ops_histogram.py",
    "tests/engine/test_legacy_names.py",
    "tests/engine/test_keyword_arguments.py",
    "tests/engine/test_convenience_names.py",
]


@pytest.mark.slow
@pytest.mark.runs_long
def test_conformance_suite_nn_and_optim_pass_on_the_strict_device():
    """The op conformance suite, nn and optim, all on array-api-strict (the samples run there in
    tests/trace/test_samples_recorded.py, which test_device_summaries runs on it)."""
    env = dict(os.environ, GRAPHSCOPE_TEST_DEVICE="strict", PYTHONPATH=str(ROOT))
    result = subprocess.run(
        # Less the tests marked slow: they are about size (a 100,000-node chain), which the CPU run checks,
        # and take no device path that the fast tests do not.
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not slow", *CONFORMANCE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "graphscope test device: strict" in result.stdout or " passed" in result.stdout
