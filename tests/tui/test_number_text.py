"""fit_number: a number fits its column with fewer digits, never with a cut exponent."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphscope.trace.stats.summarize import summarize
from graphscope.tui.number_text import NO_ROOM, fit_number
from graphscope.tui.tensor_preview import TensorPreview
from tests.tui.tui_screen import screen_text
from tests.tui.tui_widget import WidgetApp

WIDTHS = st.integers(min_value=4, max_value=14)
MAGNITUDES = st.floats(min_value=1e-40, max_value=1e40, allow_nan=False, allow_infinity=False)


def claimed_error(text: str) -> float:
    """Half a unit in the last digit shown: the precision a written number claims."""
    mantissa, _, exponent = text.replace(",", "").partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)


def shortest(value: float) -> int:
    """The length of the shortest honest form: one digit and a whole exponent (`-1e-40`)."""
    mantissa, _, exponent = f"{value:.0e}".partition("e")
    return len(mantissa) + 1 + len(str(int(exponent)))


def assert_honest(text: str, value: float, width: int) -> None:
    assert len(text) <= width, (text, width)
    if set(text) == {NO_ROOM}:  # only when not one digit fits
        assert shortest(value) > width, (value, width)
        return
    shown = float(text.replace(",", ""))
    assert abs(shown - value) <= claimed_error(text) * (1 + 1e-9) + abs(value) * 1e-15, (value, width, text)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(MAGNITUDES, st.booleans(), WIDTHS)
def test_a_number_parses_back_within_the_precision_it_shows(magnitude, negative, width):
    value = -magnitude if negative else magnitude
    assert_honest(fit_number(value, width), value, width)


@settings(max_examples=500, deadline=None)
@given(st.integers(min_value=-(10**40), max_value=10**40), WIDTHS)
def test_an_integer_parses_back_within_the_precision_it_shows(value, width):
    assert_honest(fit_number(value, width), value, width)


@pytest.mark.parametrize("width", range(4, 15))
@pytest.mark.parametrize("value", [1e-40, -1e-40, 1e40, -1e40, 0.0, -0.0, 1.0, -1.0, 123456.789, -0.000207123])
def test_the_extremes_fit_every_width(value, width):
    assert_honest(fit_number(value, width), value, width)


@pytest.mark.parametrize("width", range(4, 15))
def test_nan_and_inf_fit_every_width(width):
    assert fit_number(float("nan"), width) == "nan"
    assert fit_number(float("inf"), width) == "inf"
    assert fit_number(float("-inf"), width) == "-inf"


def test_a_negative_exponent_is_never_cut():
    assert fit_number(-5.883e-05, 9) == "-5.883e-5"
    assert fit_number(-5.883e-05, 8) == "-5.88e-5"
    assert fit_number(-5.883e-05, 6) == "-6e-5"


def test_a_small_fixed_point_number_keeps_its_size():
    """-0.000207… shown in 8 characters becomes -2.07e-4, never -0.00020 (or worse, -0.0002 cut)."""
    assert fit_number(-0.000207123, 8) == "-2.07e-4"
    assert fit_number(-0.000207123, 10) == "-0.0002071"


def test_without_a_width_it_shows_four_significant_digits():
    assert fit_number(3.14159265) == "3.142"
    assert fit_number(1234567.0) == "1.235e6"
    assert fit_number(12345) == "12,345"
    assert fit_number(None) == "—"


def test_numpy_scalars_are_numbers():
    assert fit_number(np.float32(0.1), 9) == "0.1"
    assert fit_number(np.int64(7), 9) == "7"
    assert fit_number(np.bool_(True), 9) == "True"


def test_a_number_with_no_room_for_one_digit_fills_the_column():
    assert fit_number(-1e40, 4) == "####"
    assert fit_number(1e-40, 4) == "####"


async def test_the_tensor_table_shows_whole_exponents():
    values = np.array([[-5.883e-05, -0.000207123, 1.5e12], [3.0, -2.5e-30, 0.25]], dtype=np.float64)
    preview = TensorPreview()
    async with WidgetApp(preview).run_test(size=(80, 10)) as pilot:
        preview.show(summarize(values), 1)
        await pilot.pause()
        shown = screen_text(pilot.app)
    assert "-5.883e-5" in shown and "-5.883e-0 " not in shown
    assert "-0.000207" in shown or "-2.071e-4" in shown
    assert "1.5e12" in shown and "-2.5e-30" in shown
