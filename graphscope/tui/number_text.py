"""fit_number: a number written for a column of a given width: fewer digits when narrow, never a cut exponent."""

from __future__ import annotations

import math

# Significant digits shown when the column has room (as the stats show them).
DIGITS = 4
# Shown, filling the column, when not even one significant digit fits (as a spreadsheet does):
# a number cut to the width would read as a different number.
NO_ROOM = "#"


def fit_number(value, width: int | None = None, digits: int = DIGITS) -> str:
    """`value` in at most `width` characters (None: no limit) with as many significant digits as
    fit, up to `digits`; exponents are written short (`-5.883e-5`) and always whole.

    Every result parses back (commas aside) to the value within half a unit of its last digit,
    except "—" for no value and a column of `#` when no digit fits."""
    if value is None:
        return "—"
    if hasattr(value, "item"):  # a NumPy scalar
        value = value.item()
    if isinstance(value, bool):
        return _fit(str(value), width)
    if isinstance(value, int):
        for text in (f"{value:,}", str(value)):
            if width is None or len(text) <= width:
                return text
        value = float(value)
    value = float(value)
    if math.isnan(value):
        return _fit("nan", width)
    if math.isinf(value):
        return _fit("inf" if value > 0 else "-inf", width)
    for precision in range(digits, 0, -1):
        for text in (_short_exponent(f"{value:.{precision}g}"), _short_exponent(f"{value:.{precision - 1}e}")):
            if width is None or len(text) <= width:
                return text
    assert width is not None  # with no width, the first text was returned
    return NO_ROOM * width


def _short_exponent(text: str) -> str:
    """`1.5e+05` as `1.5e5`, `2e-07` as `2e-7`."""
    mantissa, e, exponent = text.partition("e")
    return f"{mantissa}e{int(exponent)}" if e else text


def _fit(text: str, width: int | None) -> str:
    return text if width is None or len(text) <= width else NO_ROOM * width
