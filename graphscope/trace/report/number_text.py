"""A statistic as short text, alike wherever it appears: drawn summaries and the findings' own words (no Rich)."""

from __future__ import annotations

import math


def format_number(value: float | None) -> str:
    """A statistic as a short string ("—" when there is none)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}" if abs(value) < 10**15 else f"{value:.4e}"
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.4g}"
