"""Terminal drawings from block characters: histogram bars, count sparklines, loss sparklines."""

from __future__ import annotations

import math
from collections.abc import Iterable

BLOCKS = "▁▂▃▄▅▆▇█"  # one character tall, by eighths
EIGHTHS = " " + BLOCKS  # the same from empty: a bar's partial top
NONFINITE = "×"  # a loss that was NaN or Inf


def count_sparkline(counts: Iterable[float]) -> str:
    """Counts (a histogram) as a row of blocks scaled from zero: the largest count is the tallest
    block, an empty bin a space; when every count is zero, a row of the lowest block."""
    heights = [float(c) for c in counts]
    if not heights:
        return ""
    top = max(heights)
    if top <= 0:
        return BLOCKS[0] * len(heights)
    return "".join(
        " " if c == 0 else BLOCKS[min(len(BLOCKS) - 1, int(c / top * (len(BLOCKS) - 1) + 0.5))] for c in heights
    )


def histogram_rows(counts: Iterable[float], height: int, bar_width: int = 2) -> list[str]:
    """Counts as bars `height` rows tall (top row first), in eighths of a row, the largest count
    the full height; a non-empty bin always shows. No rows when every count is zero."""
    whole = [int(c) for c in counts]
    top = max(whole) if whole else 0
    if top <= 0:
        return []
    levels = [max(round(c / top * height * 8), 1) if c else 0 for c in whole]
    return [
        "".join(EIGHTHS[max(0, min(8, level - (row - 1) * 8))] * bar_width for level in levels)
        for row in range(height, 0, -1)
    ]


def loss_sparkline(losses: list[float | None], width: int = 60, span: tuple[float, float] | None = None) -> str:
    """Losses as a row of blocks scaled from the lowest to the highest, or over `span` (low, high) when
    given (buckets averaged when there are more than `width`); "×" marks a bucket holding a NaN/Inf,
    a space a pass without a loss. A flat line (every loss equal) sits at mid height."""
    if not losses or width <= 0:
        return ""
    buckets: list[float | None] = []
    size = max(1, math.ceil(len(losses) / width))
    for start in range(0, len(losses), size):
        chunk = losses[start : start + size]
        if any(v is not None and not math.isfinite(v) for v in chunk):
            buckets.append(math.nan)
        else:
            known = [v for v in chunk if v is not None]  # averaged as v/n, which cannot overflow
            buckets.append(sum(v / len(known) for v in known) if known else None)
    finite = [v for v in buckets if v is not None and math.isfinite(v)]
    low, high = span or ((min(finite), max(finite)) if finite else (0.0, 0.0))
    out = []
    for v in buckets:
        if v is None:
            out.append(" ")
        elif not math.isfinite(v):
            out.append(NONFINITE)
        elif high == low:
            out.append(BLOCKS[len(BLOCKS) // 2])
        else:
            # halves: the span of two finite floats (-1.7e308 to 1.7e308) may itself overflow
            share = min(max((v / 2 - low / 2) / (high / 2 - low / 2), 0.0), 1.0)
            out.append(BLOCKS[int(share * (len(BLOCKS) - 1) + 0.5)])
    return "".join(out)
