"""Summaries of tensors on another device: computed there, with only statistics, histogram counts
and the preview (or full values) copied to the host, in a copy or two per batch.

The `strict` test device (array-api-strict, tests/engine/strict_device.py) stands in for a GPU:
its arrays refuse NumPy-only calls and implicit conversion to NumPy, the mistakes that break on
CuPy. tests/trace also runs whole on it (the last test here), so CI always covers the trace layer
off the CPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import graphscope as gs
from graphscope import nn
from graphscope.engine import backend, hooks
from graphscope.trace.record.model import CONSTANT
from graphscope.trace.recording.recorder import Recorder
from graphscope.trace.stats.summarize import HISTOGRAM_BINS, PREVIEW_SIZE, summarize, summarize_many

pytest.importorskip("array_api_strict", reason="the strict test device needs array-api-strict (the test extra)")
from tests.engine import strict_device

ROOT = Path(__file__).resolve().parents[2]
strict_device.register()
STRICT = backend.Device("strict")


def on_strict(host: np.ndarray):
    return backend.from_host(host, STRICT)


@pytest.fixture
def transfers(monkeypatch):
    """The arrays the strict device copies to the host, as (shape, dtype) in order."""
    seen = []
    original = strict_device.StrictDevice.to_host

    def to_host(self, array):
        host = original(self, array)
        seen.append((host.shape, host.dtype.name))
        return host

    monkeypatch.setattr(strict_device.StrictDevice, "to_host", to_host)
    return seen


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        st.sampled_from([np.float32, np.float64]),  # array-api-strict has no float16
        hnp.array_shapes(min_dims=0, max_dims=3, max_side=12),
        elements=st.floats(-1e4, 1e4, width=16) | st.sampled_from([np.nan, np.inf, -np.inf, 0.0]),
    )
)
def test_device_summaries_agree_with_the_host_path(a):
    host, device = summarize(a), summarize(on_strict(a))
    assert device.device == "strict:0" and (device.shape, device.dtype, device.numel) == (
        host.shape,
        host.dtype,
        host.numel,
    )
    for name in ("nan_count", "inf_count", "zero_fraction"):
        assert getattr(device, name) == getattr(host, name), name
    for name in ("min", "max", "mean", "std", "norm"):
        h, d = getattr(host, name), getattr(device, name)
        assert (h is None) == (d is None), name
        if h is not None:
            assert d == pytest.approx(h, rel=1e-3, abs=1e-3), name
    assert sum(device.histogram) == sum(host.histogram)
    np.testing.assert_array_equal(device.preview, host.preview)
    np.testing.assert_array_equal(device.values, host.values)
    assert device.preview.dtype == host.preview.dtype and not device.preview.flags.writeable


def test_the_device_histogram_bins_every_finite_value_from_min_to_max():
    a = np.random.default_rng(1).standard_normal(10_000)
    a[:3] = [np.nan, np.inf, -np.inf]
    s = summarize(on_strict(a))
    finite = a[np.isfinite(a)]
    expected, _ = np.histogram(finite, bins=HISTOGRAM_BINS, range=(finite.min(), finite.max()))
    assert sum(s.histogram) == finite.size and np.abs(s.histogram - expected).sum() <= 2


def test_integer_and_bool_device_summaries_keep_exact_extremes():
    s = summarize(on_strict(np.array([[3, -7], [2**62 + 1, 0]], dtype=np.int64)))
    assert (s.min, s.max) == (-7, 2**62 + 1) and type(s.max) is int and s.zero_fraction == 0.25
    small = summarize(on_strict(np.array([5, 200, 7], dtype=np.uint8)))
    assert (small.min, small.max, small.mean) == (5, 200, 70.66666666666667)
    b = summarize(on_strict(np.array([True, False, True, True])))
    assert (b.min, b.max, b.mean, b.zero_fraction, b.dtype) == (0, 1, 0.75, 0.25, "bool")


def test_an_empty_or_all_nan_device_tensor_has_no_statistics():
    empty = summarize(on_strict(np.zeros((0, 3), dtype=np.float32)))
    assert empty.numel == 0 and empty.min is None and empty.preview.size == 0
    nans = summarize(on_strict(np.full(5, np.nan)))
    assert nans.nan_count == 5 and nans.mean is None and nans.histogram.size == 0


def test_a_batch_copies_one_vector_per_array_and_the_previews_once_per_dtype(transfers):
    rng = np.random.default_rng(0)
    arrays = [on_strict(rng.standard_normal(shape).astype(np.float32)) for shape in [(3,), (8, 8), (200_000,)]]
    arrays += [on_strict(np.arange(10, dtype=np.int64)), on_strict(rng.standard_normal(5))]
    summaries = summarize_many(arrays, full_values_limit=4096)
    # One copy of the stacked statistics, one per dtype of previews: float32, int64, float64.
    assert len(transfers) == 4
    assert (len(arrays), 13 + HISTOGRAM_BINS) in [shape for shape, _ in transfers]
    # The large array sent its preview only; the others their full values.
    float32 = next(shape for shape, dtype in transfers if dtype == "float32")
    assert float32 == (3 + 64 + PREVIEW_SIZE,)
    assert summaries[2].values is None and summaries[2].preview.size == PREVIEW_SIZE
    assert summaries[1].values.shape == (8, 8) and summaries[3].values.tolist() == list(range(10))


def test_cpu_and_device_arrays_summarised_together_each_stay_on_their_device():
    summaries = summarize_many([np.ones(3), on_strict(np.ones(3)), np.zeros(2, dtype=np.int64)])
    assert [s.device for s in summaries] == ["cpu", "strict:0", "cpu"]
    assert [s.mean for s in summaries] == [1.0, 1.0, 0.0]


def test_a_run_on_the_device_is_recorded_with_its_grads_dead_units_and_losses(transfers):
    gs.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)).to("strict")
    x = gs.randn(6, 3, device="strict")
    recorder = Recorder()
    with hooks.observe(recorder):
        for _ in range(2):
            model.zero_grad()
            model(x).pow(2).mean().backward()
    rec = recorder.finish()
    assert rec.metadata.device == "strict:0"
    assert all(n.output.device == "strict:0" for n in rec.nodes.values() if n.op != CONSTANT)
    relu = next(n for n in rec.nodes.values() if n.op == "relu")
    assert relu.dead_units is not None and relu.dead_units[1] == 4
    grads = {rec.nodes[lg.node].parameter: lg.grad for st in rec.passes[-1].steps for lg in st.leaf_grads}
    for name, param in model.named_parameters():
        np.testing.assert_allclose(grads[name].values, param.grad.cpu().numpy(), rtol=1e-6)
    assert all(p.loss is not None and len(p.grad_norms) == 4 for p in rec.passes)
    assert all(dtype in ("float32", "float64", "int64", "bool") for _, dtype in transfers)


# The trace tests that put tensors through the recorder and the summaries (the snapshot tests
# work on records alone, whatever device made them).
ON_DEVICE = [
    "tests/trace/test_recorder.py",
    "tests/trace/test_recorder_node_id.py",
    "tests/trace/test_findings.py",
    "tests/trace/test_samples_recorded.py",
    "tests/trace/test_summary_report.py",
    "tests/trace/test_dot_export.py",
    "tests/trace/test_tensor_summary.py",
    "tests/trace/test_training_recorded.py",
]


@pytest.mark.slow
@pytest.mark.runs_long
def test_the_trace_tests_pass_on_the_strict_device(request):
    """The recorder, findings and sample tests with every tensor on array-api-strict."""
    if request.config.getoption("--device") != "cpu":
        pytest.skip("the suite already runs on another device")
    env = dict(os.environ, GRAPHSCOPE_TEST_DEVICE="strict", PYTHONPATH=str(ROOT))
    result = subprocess.run(
        # Less the tests marked slow: they are about size (10,000 iterations' memory), which the CPU run
        # checks, and take no device path that the fast tests do not.
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not slow", *ON_DEVICE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "graphscope test device: strict" in result.stdout or " passed" in result.stdout
