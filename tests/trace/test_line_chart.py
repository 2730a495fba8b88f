"""Braille line charts: passes spread across the cells, values scaled to the rows, NaN/Inf left out as gaps."""

import numpy as np

from graphscope.trace.report.line_chart import BLANK, NO_SERIES, Points, draw, pass_at, pass_cell, value_range


def lit(chart) -> set[tuple[int, int]]:
    """The dots lit, as (x, y) in dots."""
    out = set()
    bits = {(0, 0): 0x01, (0, 1): 0x02, (0, 2): 0x04, (0, 3): 0x40, (1, 0): 0x08, (1, 1): 0x10, (1, 2): 0x20}
    bits[(1, 3)] = 0x80
    for row in range(chart.dots.shape[0]):
        for cell in range(chart.dots.shape[1]):
            for (dx, dy), bit in bits.items():
                if chart.dots[row, cell] & bit:
                    out.add((2 * cell + dx, 4 * row + dy))
    return out


def test_a_rising_line_goes_from_the_bottom_left_to_the_top_right():
    chart = draw([Points.per_pass(np.array([0.0, 1.0, 2.0, 3.0]))], 4, 2, 1)
    assert lit(chart) == {(0, 3), (1, 2), (2, 1), (3, 0)}
    assert chart.row_text(0) == chr(BLANK + 0x40 + 0x20) + chr(BLANK + 0x02 + 0x08)
    assert (chart.low, chart.high) == (0.0, 3.0)


def test_points_apart_are_joined_by_a_line():
    chart = draw([Points.per_pass(np.array([0.0, 3.0]))], 2, 2, 1)
    assert lit(chart) == {(0, 3), (1, 2), (2, 1), (3, 0)}


def test_nan_and_inf_break_the_line_and_are_left_out_of_the_range():
    values = np.array([0.0, 1.0, np.nan, 1.0, np.inf, 0.0])
    chart = draw([Points.per_pass(values)], 6, 3, 1)
    assert (chart.low, chart.high) == (0.0, 1.0)
    xs = {x for x, _ in lit(chart)}
    assert 2 not in xs  # pass 2 (NaN) sits on dot column 2: nothing drawn there, nor a line across it
    assert 4 not in xs


def test_a_log_scale_spaces_decades_evenly_and_drops_values_not_positive():
    values = np.array([1e-4, 1e-3, 1e-2, 0.0, 1e-1])
    chart = draw([Points.per_pass(values)], 5, 5, 1, log=True)
    rows = {x: y for x, y in lit(chart) if x in (0, 2, 4, 9)}
    assert rows == {0: 3, 2: 2, 4: 1, 9: 0}
    assert (chart.low, chart.high) == (1e-4, 1e-1)
    assert not any(x in (6, 7) for x, _ in lit(chart))  # the 0 has no place on a log scale: a gap


def test_a_guide_is_in_the_range_and_has_its_row():
    chart = draw([Points.per_pass(np.array([1e-1, 1e-2]))], 2, 4, 4, log=True, guide=1e-3)
    assert chart.low == 1e-3 and chart.guide_row == 3


def test_a_flat_series_sits_in_the_middle_of_a_range_around_it():
    assert value_range([Points.per_pass(np.array([2.0, 2.0]))], log=False) == (1.0, 3.0)
    assert value_range([Points.per_pass(np.array([1e-3, 1e-3]))], log=True) == (1e-4, 1e-2)
    assert value_range([Points.per_pass(np.array([np.nan]))], log=False) is None


def test_each_cell_belongs_to_the_last_series_drawn_in_it():
    up = Points.per_pass(np.array([0.0, 1.0]))
    down = Points.per_pass(np.array([1.0, 0.0]))
    chart = draw([up, down], 2, 1, 1)
    assert chart.owner.tolist() == [[1]]
    empty = draw([Points.per_pass(np.array([np.nan, np.nan]))], 2, 3, 2)
    assert (empty.owner == NO_SERIES).all() and not empty.dots.any()


def test_many_passes_in_one_column_show_their_span():
    values = np.tile([0.0, 1.0], 500)
    chart = draw([Points.per_pass(values)], 1000, 2, 1)
    spans = {(x, y) for x in range(3) for y in range(4)}  # 333 passes each, 0 and 1 among them
    assert lit(chart) == spans | {(3, 0), (3, 1)}  # the last column: the last pass alone (a 1), joined


def test_a_click_on_a_cell_picks_the_pass_drawn_there_or_the_nearest():
    assert [pass_cell(p, 10, 20) for p in range(10)] == [0, 2, 4, 6, 8, 10, 13, 15, 17, 19]
    assert pass_at(13, 10, 20) == 6
    assert pass_at(12, 10, 20) == 6
    assert pass_at(19, 10, 20) == 9 and pass_at(0, 10, 20) == 0
    assert pass_at(3, 1, 20) == 0
    assert pass_at(0, 1000, 2) == 0 and pass_at(1, 1000, 2) == 666  # dot columns 2 and 3: passes 666 on


def test_scalars_are_placed_at_their_passes():
    chart = draw([Points(np.array([0, 3]), np.array([1.0, 1.0]))], 4, 2, 1)
    assert {x for x, _ in lit(chart)} == {0, 1, 2, 3}


def test_a_fraction_is_drawn_against_its_own_bounds():
    chart = draw([Points.per_pass(np.array([0.5, 0.5]))], 2, 1, 1, bounds=(0.0, 1.0))
    assert (chart.low, chart.high) == (0.0, 1.0)
    assert lit(chart) == {(0, 2), (1, 2)}  # 0.5 of 3 dot rows from the top: row 1.5, rounded to 2
    assert not draw([Points.per_pass(np.array([np.nan]))], 1, 1, 1, bounds=(0.0, 1.0)).dots.any()


def test_the_guide_is_a_dotted_line_in_its_row_and_absent_outside_fixed_bounds():
    chart = draw([Points.per_pass(np.array([1e-1, 1e-2]))], 2, 4, 4, log=True, guide=1e-3)
    assert chart.guide_dot == 15 and chart.guide_char == chr(BLANK + 0x40)
    outside = draw([Points.per_pass(np.array([0.5]))], 1, 1, 1, guide=2.0, bounds=(0.0, 1.0))
    assert outside.guide_row is None and outside.guide_char == ""
