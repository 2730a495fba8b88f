"""TensorSummary: statistics of the finite values, counts of the rest, histogram, preview, full values, rendering."""

import io
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from rich.console import Console

from graphscope.trace.report.drawing import count_sparkline as sparkline
from graphscope.trace.report.summary_render import render
from graphscope.trace.stats.summarize import (
    PREVIEW_SIZE,
    TensorSummary,
    summarize,
    summarize_many,
    summarize_on_device,
    summarize_value,
)


def test_statistics_match_numpy_on_a_float32_matrix():
    a = np.random.default_rng(0).standard_normal((64, 16)).astype(np.float32)
    s = summarize(a)
    assert (s.shape, s.dtype, s.device, s.numel) == ((64, 16), "float32", "cpu", 1024)
    assert s.min == pytest.approx(float(a.min())) and s.max == pytest.approx(float(a.max()))
    assert s.mean == pytest.approx(float(a.astype(np.float64).mean()), rel=1e-6)
    assert s.std == pytest.approx(float(a.astype(np.float64).std(ddof=1)), rel=1e-5)
    assert s.norm == pytest.approx(float(np.linalg.norm(a.astype(np.float64))), rel=1e-5)
    assert (s.nan_count, s.inf_count, s.zero_fraction) == (0, 0, 0.0)


def test_histogram_has_16_bins_over_min_to_max_counting_every_finite_value():
    a = np.random.default_rng(1).standard_normal(4096)
    s = summarize(a)
    expected, _ = np.histogram(a, bins=16, range=(a.min(), a.max()))
    assert len(s.histogram) == 16 and sum(s.histogram) == a.size
    assert np.abs(np.array(s.histogram) - expected).sum() <= 2  # edges may round either way


def test_histogram_of_a_large_tensor_is_estimated_from_a_sample_and_adds_up():
    a = np.random.default_rng(1).standard_normal(200_000).astype(np.float32)
    s = summarize(a)
    expected, _ = np.histogram(a, bins=16, range=(a.min(), a.max()))
    assert sum(s.histogram) == a.size
    assert np.all(np.abs(s.histogram - expected) <= 0.15 * expected + 400)  # a 4,096-value sample


def test_nan_and_inf_are_counted_and_left_out_of_the_statistics():
    a = np.array([1.0, 2.0, np.nan, np.inf, -np.inf, 3.0], dtype=np.float32)
    s = summarize(a)
    assert (s.nan_count, s.inf_count) == (1, 2)
    assert (s.min, s.max, s.mean) == (1.0, 3.0, 2.0)
    assert sum(s.histogram) == 3 and s.has_nonfinite


def test_an_all_nan_tensor_has_no_statistics():
    s = summarize(np.full(5, np.nan))
    assert s.nan_count == 5 and s.min is None and s.mean is None and s.histogram.size == 0


def test_zero_fraction_counts_exact_zeros():
    s = summarize(np.array([0.0, 0.0, 1.0, -0.0]))
    assert s.zero_fraction == 0.75


def test_zero_fraction_counts_zeros_of_every_dtype_and_not_nan_or_inf():
    assert summarize(np.array([0.0, np.nan, np.inf, 1.0, 0.0], dtype=np.float16)).zero_fraction == 0.4
    assert summarize(np.array([0, 5, 0, 0], dtype=np.int32)).zero_fraction == 0.75
    assert summarize(np.array([0j, 1j, 1 + 0j, 0j])).zero_fraction == 0.5  # 1j's real part is 0: not a zero
    big = np.zeros(3 << 20, dtype=np.float32)  # several pieces
    big[::3] = 1.0
    assert summarize(big).zero_fraction == 2 / 3


def test_constant_tensor_puts_every_value_in_the_first_bin_and_has_zero_std():
    s = summarize(np.full((3, 3), 2.5, dtype=np.float32))
    assert s.histogram[0] == 9 and sum(s.histogram) == 9 and s.std == 0.0


def test_std_stays_accurate_when_the_mean_dwarfs_the_spread():
    a = (1e4 + np.random.default_rng(2).standard_normal(1000) * 1e-3).astype(np.float64)
    assert summarize(a).std == pytest.approx(float(a.std(ddof=1)), rel=1e-6)


def test_norm_of_large_float32_values_does_not_overflow():
    s = summarize(np.full(4, 3e38, dtype=np.float32))
    assert s.norm == pytest.approx(6e38, rel=1e-6)


def test_integer_and_bool_tensors_keep_exact_extremes():
    s = summarize(np.array([[3, -7], [2**40, 0]], dtype=np.int64))
    assert (s.min, s.max) == (-7, 2**40) and type(s.min) is int
    b = summarize(np.array([True, False, True, True]))
    assert (b.min, b.max, b.mean, b.zero_fraction) == (0, 1, 0.75, 0.25)


def test_empty_tensor_summarises_to_shape_only():
    s = summarize(np.zeros((0, 3), dtype=np.float32))
    assert s.numel == 0 and s.min is None and s.histogram.size == 0 and s.preview.size == 0


def test_preview_is_the_first_64_elements_in_row_major_order():
    a = np.arange(200, dtype=np.float32).reshape(10, 20).T  # not contiguous
    s = summarize(a, full_values_limit=100)
    assert s.values is None
    np.testing.assert_array_equal(s.preview, a.reshape(-1)[:PREVIEW_SIZE])


def test_full_values_are_kept_up_to_the_limit_in_the_tensors_shape():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    s = summarize(a, full_values_limit=12)
    np.testing.assert_array_equal(s.values, a)
    assert summarize(a, full_values_limit=11).values is None


def test_captured_arrays_are_read_only_copies():
    a = np.ones(4)
    s = summarize(a)
    a[0] = 5.0
    assert s.values[0] == 1.0 and not s.values.flags.writeable and not s.preview.flags.writeable


def test_drop_values_frees_the_capture_and_says_so():
    s = summarize(np.ones(100))
    freed = s.drop_values()
    assert freed == 800 and s.dropped and s.values is None and s.preview.size == 0 and s.captured_bytes == 0


def test_python_constants_are_summarised_as_scalars():
    s = summarize_value(2.5)
    assert (s.shape, s.min, s.max) == ((), 2.5, 2.5)
    assert summarize_value(3).dtype == "int64" and summarize_value("x") is None


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        st.sampled_from([np.float32, np.float64]),
        hnp.array_shapes(max_dims=3, max_side=20),
        elements=st.floats(-1e6, 1e6, width=32) | st.sampled_from([np.nan, np.inf, -np.inf, 0.0]),
    )
)
def test_device_path_agrees_with_host_path(a):
    """The reductions written for CuPy, run here with NumPy, give the host path's numbers."""
    host = summarize(a)
    device = summarize_on_device(a, np, device="cpu")
    for name in ("nan_count", "inf_count", "zero_fraction"):
        assert getattr(device, name) == getattr(host, name), name
    for name in ("min", "max", "mean", "std", "norm"):
        h, d = getattr(host, name), getattr(device, name)
        assert (h is None) == (d is None), name
        if h is not None:
            assert d == pytest.approx(h, rel=1e-4, abs=1e-3), name
    assert sum(device.histogram) == sum(host.histogram)
    np.testing.assert_array_equal(device.preview, host.preview)


def test_float32_std_is_right_where_the_mean_is_ten_times_the_spread():
    """A float32 array's squares add up in float32 (BLAS sdot): a one-pass spread of 1% of them
    was off by 6e-4 here, a wrong fourth digit on screen."""
    a = np.full(100_000, 159593.0, dtype=np.float32)
    a[:200] = 911589.0
    exact = float(np.std(a.astype(np.float64), ddof=1))
    assert summarize(a).std == pytest.approx(exact, rel=1e-6)
    assert summarize_on_device(a, np, device="cpu").std == pytest.approx(exact, rel=1e-6)


def test_summary_renders_with_rich_showing_stats_histogram_and_preview():
    s = summarize(np.array([1.0, np.nan, 3.0], dtype=np.float32))
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(render(s))
    text = out.getvalue()
    assert "float32" in text and "nan" in text and "[1, nan, 3]" in text


def test_rendering_never_interprets_markup_in_device_or_dtype():
    s = TensorSummary((2,), "[bold red]evil[/]", "cpu\x1b[2J", 2)
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(render(s))
    assert "[bold red]evil[/]" in out.getvalue() and "\x1b" not in out.getvalue()


def test_sparkline_scales_to_the_tallest_bin():
    assert sparkline([0, 1, 2, 4]) == " ▃▅█"
    assert sparkline([]) == ""


def test_a_nan_constant_counts_as_nan():
    s = summarize_value(float("nan"))
    assert s.nan_count == 1 and math.isnan(s.preview[0])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        hnp.arrays(
            st.sampled_from([np.float16, np.float32, np.float64]),
            hnp.array_shapes(min_dims=0, max_dims=2, max_side=40),
            elements=st.floats(-1e4, 1e4, width=16) | st.sampled_from([np.nan, np.inf, 0.0, 1.0]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_summaries_made_in_a_batch_equal_those_made_one_by_one(arrays):
    """summarize_many reduces small float arrays together; each summary is what summarize gives."""
    for a, batched in zip(arrays, summarize_many(arrays)):
        alone = summarize(a)
        for name in ("shape", "dtype", "numel", "nan_count", "inf_count", "zero_fraction"):
            assert getattr(batched, name) == getattr(alone, name), name
        # The batch sums squares in float64, a lone float32 array in float32 (BLAS): std and
        # norm agree to float32's accuracy, the rest exactly or nearly.
        for name, rel in (("min", 1e-12), ("max", 1e-12), ("mean", 1e-6), ("std", 1e-4), ("norm", 1e-4)):
            h, b = getattr(alone, name), getattr(batched, name)
            assert (h is None) == (b is None), name
            if h is not None:
                assert b == pytest.approx(h, rel=rel, abs=1e-9), name
        assert batched.histogram.size == alone.histogram.size and sum(batched.histogram) == sum(alone.histogram)
        assert not batched.preview.flags.writeable and batched.preview.dtype == alone.preview.dtype
        np.testing.assert_array_equal(batched.preview, alone.preview)
        np.testing.assert_array_equal(batched.values, alone.values)


def test_histograms_binned_together_equal_each_binned_alone():
    # Large arrays' histograms are binned together: the samples of one size as rows of their own (here
    # 16 of 2,500 values), the others (odd sizes, and a pair of one size too few to set apart) in one run.
    rng = np.random.default_rng(7)
    shapes = [(50, 100)] * 16 + [(6001,), (4097,), (70, 70), (70, 70)]
    arrays = [(rng.standard_normal(shape) * rng.uniform(0.1, 50)).astype(np.float32) for shape in shapes]
    arrays += [rng.standard_normal((50, 100)), rng.uniform(-1, 1, 9000)]  # float64: binned apart from float32
    for a, together in zip(arrays, summarize_many(arrays)):
        np.testing.assert_array_equal(together.histogram, summarize(a).histogram)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        st.sampled_from([np.float16, np.float32, np.float64]),
        st.integers(2, 9000),
        elements=st.floats(-1e4, 1e4, width=16),
    )
)
def test_every_histogram_has_16_bins_holding_every_finite_value(a):
    s = summarize(a)
    assert s.histogram.size == 16 and sum(s.histogram) == a.size


def test_a_level_array_has_no_spread_whatever_the_rounding_of_its_mean():
    level = np.full((16, 16, 16), 134219.0, dtype=np.float32)  # its float32 mean is not exact
    assert summarize(level).std == 0.0
