"""On a real GPU: the device model on `cuda`, then the conformance suite, the samples and the trace
tests with `cuda` as the default device. Skipped, with the reason, where CuPy or a GPU is missing.

Run on a GPU machine with `python -m pytest -m cuda` (bench/gpu_check.sh does, then benchmarks).
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


def _why_no_gpu() -> str:
    if importlib.util.find_spec("cupy") is None:
        return "CuPy is not installed (pip install 'graphscope[gpu]')"
    if not gs.cuda.is_available():
        return "CuPy is installed but no CUDA GPU is visible"
    return ""


REASON = _why_no_gpu()
pytestmark = [pytest.mark.cuda, pytest.mark.skipif(bool(REASON), reason=REASON or "a GPU is present")]
ROOT = Path(__file__).resolve().parents[2]


def test_cuda_is_available_and_counts_devices():
    assert gs.cuda.is_available() and gs.cuda.device_count() >= 1


def test_tensors_move_to_cuda_and_back():
    x = gs.tensor([[1.0, 2.0]])
    y = x.cuda()
    assert y.device == "cuda:0" and y.is_cuda and y.get_device() == 0 and x.to("cuda").device == "cuda"
    assert y.cpu().tolist() == [[1.0, 2.0]] and (y * 2).sum().item() == 6.0
    assert gs.zeros(3, device="cuda").device == "cuda" and gs.randn(3, device="cuda:0").device == "cuda"


def test_numpy_of_a_cuda_tensor_says_to_call_cpu_first():
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy.*\.cpu\(\)"):
        gs.ones(2, device="cuda").numpy()


def test_ops_between_cpu_and_cuda_raise_like_torch():
    with pytest.raises(
        RuntimeError,
        match=r"Expected all tensors to be on the same device, but found at least "
        r"two devices, (cpu and cuda:0|cuda:0 and cpu)!",
    ):
        gs.ones(2) + gs.ones(2, device="cuda")


def test_training_on_cuda_matches_the_cpu():
    def train(device):
        gs.manual_seed(0)
        model = gs.nn.Sequential(gs.nn.Linear(4, 8), gs.nn.ReLU(), gs.nn.Linear(8, 3)).to(device)
        optimizer = gs.optim.Adam(model.parameters(), lr=0.05)
        x = gs.tensor(np.random.default_rng(0).standard_normal((16, 4)), dtype=gs.float64).float().to(device)
        y = gs.tensor(np.arange(16) % 3).to(device)
        losses = []
        for _ in range(5):
            loss = gs.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses, model

    cpu_losses, _ = train("cpu")
    cuda_losses, model = train("cuda")
    np.testing.assert_allclose(cuda_losses, cpu_losses, rtol=1e-4)
    assert {str(p.device) for p in model.parameters()} == {"cuda:0"}


SUITES = [
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
    "tests/test_samples_converge.py",
    "tests/trace",
]
SUITES += ["tests/engine/test_sampling.py", "tests/engine/test_generator.py", "tests/engine/utils"]


@pytest.mark.parametrize("suite", SUITES)
def test_suite_passes_with_cuda_as_the_default_device(suite):
    """Each suite in its own process, its tensors on the GPU (tests/conftest.py's --device)."""
    env = dict(os.environ, GRAPHSCOPE_TEST_DEVICE="cuda", PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", suite],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode == 5:
        pytest.skip(f"{suite}: no tests collected")
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
