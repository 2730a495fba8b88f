"""The training series' figures of arrays, against NumPy in float64: a module output's mean, std, saturated and
dead fractions, and a step's update-to-data ratio, on the host (several passes reduced together, in runs that
change no bit) and on another device; NaN, Inf, narrow floats and overflow without a warning."""

import math
import warnings

import numpy as np
import pytest

from graphscope.engine import backend
from graphscope.trace.stats.activations import SATURATION, activation_figures, figures_of_passes
from graphscope.trace.stats.scratch import scratch
from graphscope.trace.stats.stacked import STACKED, runs
from graphscope.trace.stats.update_ratio import update_ratios

pytest.importorskip("array_api_strict", reason="the strict test device needs array-api-strict (the test extra)")
from tests.engine import strict_device  # (after the skip)

strict_device.register()
STRICT = backend.Device("strict")


def expected(a, kind):
    w = a.astype(np.float64)
    saturated = dead = math.nan
    if kind == "tanh":
        saturated = np.mean(np.abs(w) >= 1 - SATURATION)
    elif kind == "sigmoid":
        saturated = np.mean((w <= SATURATION) | (w >= 1 - SATURATION))
    elif kind == "relu":
        dead = np.mean(~w.reshape(len(w), -1).any(axis=0))
    return [w.mean(), w.std(), saturated, dead]


RNG = np.random.default_rng(0)
CASES = [
    ("relu", np.maximum(RNG.standard_normal((3, 8, 5)), 0).astype(np.float32)),
    ("tanh", np.tanh(3 * RNG.standard_normal((3, 16))).astype(np.float32)),
    ("sigmoid", (1 / (1 + np.exp(-4 * RNG.standard_normal((3, 6, 2))))).astype(np.float64)),
    ("other", RNG.integers(-5, 5, (3, 4, 4)).astype(np.int64)),
    ("tanh", np.tanh(RNG.standard_normal((3, 10))).astype(np.float16)),
]


@pytest.mark.parametrize("kind, passes", CASES)
def test_a_modules_outputs_over_passes_have_the_figures_numpy_gives_each(kind, passes):
    got = figures_of_passes(list(passes), kind)
    np.testing.assert_allclose(got, [expected(a, kind) for a in passes], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("kind, passes", CASES[:4])
def test_another_devices_outputs_have_the_same_figures(kind, passes):
    arrays = [backend.from_host(a, STRICT) for a in passes]
    np.testing.assert_allclose(
        figures_of_passes(arrays, kind), figures_of_passes(list(passes), kind), rtol=1e-5, atol=1e-7
    )
    one = activation_figures([(arrays[0], kind)])[0]
    np.testing.assert_allclose(one, expected(passes[0], kind), rtol=1e-6, atol=1e-9)


def test_a_float32_past_its_squares_range_nan_and_inf_give_figures_without_a_warning():
    big = np.array([[1e20, -1e20], [1e20, -1e20]], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = figures_of_passes(
            [big, np.array([[np.inf, 0], [0, 0]], np.float32), np.full((2, 2), np.nan, np.float32)], "relu"
        )
        ratios = update_ratios(
            [np.zeros(2), np.array([1e20, 1e20], np.float32)], [np.ones(2), np.array([2e20, 1e20], np.float32)]
        )
    assert got[0].tolist()[:2] == pytest.approx([0.0, 1e20], rel=1e-6)
    assert got[1][0] == math.inf and math.isnan(got[1][1])
    assert np.isnan(got[2][:2]).all() and got[2][3] == 0.0  # NaN is not zero: every unit alive
    assert math.isnan(ratios[0]) and ratios[1] == pytest.approx(1 / math.sqrt(2), rel=1e-6)  # |w| = 0: no ratio


def test_update_ratios_are_the_step_norm_over_the_value_norm_on_every_device():
    befores = [RNG.standard_normal((4, 3)).astype(np.float32) for _ in range(3)]
    afters = [b - 0.01 * RNG.standard_normal((4, 3)).astype(np.float32) for b in befores]
    want = [
        np.linalg.norm((a - b).astype(np.float64)) / np.linalg.norm(b.astype(np.float64))
        for a, b in zip(afters, befores)
    ]
    np.testing.assert_allclose(update_ratios(befores, afters), want, rtol=1e-5)
    on = [backend.from_host(x, STRICT) for x in befores], [backend.from_host(x, STRICT) for x in afters]
    np.testing.assert_allclose(update_ratios(*on), want, rtol=1e-5)


def test_runs_hold_arrays_of_one_shape_and_dtype_up_to_the_bound_and_a_larger_array_alone():
    small, other, empty = np.zeros((64, 300), np.float32), np.zeros((64, 300), np.float64), np.zeros(0)
    arrays = [small] * 4 + [other, np.zeros(STACKED + 1, np.float32), small, empty, small]
    assert [(r.start, r.stop) for r in runs(arrays)] == [(0, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9)]


def test_figures_reduced_in_runs_are_those_of_each_array_alone_to_the_bit():
    arrays = [RNG.standard_normal((64, 300)).astype(np.float32) for _ in range(7)]
    for kind in ("relu", "tanh", "other"):
        alone = np.concatenate([figures_of_passes([a], kind) for a in arrays])
        np.testing.assert_array_equal(figures_of_passes(arrays, kind), alone)
    afters = [a + np.float32(0.01) for a in arrays]
    alone = np.concatenate([update_ratios([b], [a]) for b, a in zip(arrays, afters)])
    np.testing.assert_array_equal(update_ratios(arrays, afters), alone)


def test_update_ratios_of_arrays_of_several_shapes_and_sizes_in_one_call():
    befores = [np.full(3, 2.0), np.full((300, 300), 1.0, np.float32), np.full((2, 2), 4.0, np.float16)]
    befores += [np.array(2.0, np.float32), np.array(-4.0, np.float32)]  # (single numbers: stacked, not joined)
    afters = [b * b.dtype.type(1.5) for b in befores]
    np.testing.assert_allclose(update_ratios(befores, afters), [0.5] * 5, rtol=1e-6)


def test_a_scratch_buffer_has_the_dtype_and_size_asked_for_and_is_reused():
    first = scratch("test.buffer", np.float32, 10)
    again = scratch("test.buffer", np.float32, 8)
    assert again.base is first.base and again.size == 8
    wide = scratch("test.buffer", np.float64, 10)
    assert wide.dtype == np.float64 and wide.size == 10


def test_runs_of_arrays_known_to_be_of_one_shape_are_cut_by_count_as_runs_would_cut_them():
    for shape in [(64, 300), (16,), (STACKED + 1,), (0,), (), (256, 256)]:
        arrays = [np.zeros(shape, np.float32)] * 9
        assert list(runs(arrays, same=True)) == list(runs(arrays))
    assert list(runs([], same=True)) == []
