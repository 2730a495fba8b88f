"""The terminal drawings every view shares: count sparklines, histogram bars, loss sparklines."""

import math

from graphscope.trace.report.drawing import BLOCKS, count_sparkline, histogram_rows, loss_sparkline


def test_a_flat_loss_line_sits_at_mid_height_whatever_its_value():
    assert loss_sparkline([2.5, 2.5, 2.5]) == "▅▅▅"
    assert loss_sparkline([-1e300] * 4) == BLOCKS[4] * 4
    assert loss_sparkline([7.0]) == "▅"


def test_a_flat_line_with_gaps_and_nan_keeps_its_marks():
    assert loss_sparkline([1.0, None, 1.0, math.inf]) == "▅ ▅×"


def test_loss_sparkline_scales_lowest_to_highest_rounding_half_up():
    assert loss_sparkline([3.0, 2.0, 1.0]) == "█▅▁"
    assert loss_sparkline([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]) == BLOCKS
    assert loss_sparkline([-1.7e308, 1.7e308]) == "▁█"  # the span overflows a float: no error


def test_loss_sparkline_averages_buckets_and_fits_the_width():
    assert loss_sparkline([0.0, 2.0, 4.0, 4.0], width=2) == "▁█"
    assert len(loss_sparkline([float(i) for i in range(1000)], width=50)) == 50
    assert loss_sparkline([1.0, 2.0], width=0) == "" == loss_sparkline([])


def test_count_sparkline_scales_from_zero_and_leaves_empty_bins_blank():
    assert count_sparkline([0, 1, 2, 4]) == " ▃▅█"
    assert count_sparkline([5, 5, 5]) == "███"  # equal counts: all full, unlike a flat loss line
    assert count_sparkline([0, 0]) == "▁▁"
    assert count_sparkline([]) == ""


def test_histogram_rows_draw_eighths_top_row_first_and_always_show_a_non_empty_bin():
    rows = histogram_rows([16, 8, 1, 0], height=2, bar_width=1)
    assert rows == ["█   ", "██▁ "]
    assert histogram_rows([4], height=1, bar_width=3) == ["███"]
    assert histogram_rows([0, 0], height=3) == [] == histogram_rows([], height=3)
