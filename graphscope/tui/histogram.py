"""Histogram: a tensor summary's 16 bins drawn as vertical bars in the terminal, with its range beneath."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from graphscope.trace.report.drawing import histogram_rows
from graphscope.trace.stats.summarize import TensorSummary

from .number_text import fit_number


def histogram_text(counts: Sequence[int] | np.ndarray, height: int, bar_width: int = 2) -> Text:
    """The bars of trace's drawing (the same as the headless summary's), in cyan."""
    text = Text(no_wrap=True)
    for row in histogram_rows(counts, height, bar_width):
        text.append(row, "cyan")
        text.append("\n")
    return text


class Histogram(Widget):
    """The bins of the finite values from min to max; NaN and Inf are counted in the stats, not here."""

    DEFAULT_CSS = """
    Histogram { height: 6; width: 1fr; padding: 0 1; }
    """

    summary: reactive[TensorSummary | None] = reactive(None, always_update=True)

    def render(self) -> Text:
        s = self.summary
        if s is None or s.numel <= 1:
            return Text("")  # a scalar's stats say it all
        if len(s.histogram) == 0:
            return Text("no finite values to histogram", "dim")
        height = max(1, self.size.height - 1)
        width = len(s.histogram) * 2
        text = histogram_text(s.histogram, height)
        low, high = fit_number(s.min, (width - 1) // 2), fit_number(s.max, (width - 1) // 2)
        gap = max(1, width - len(low) - len(high))
        text.append(low + " " * gap + high, "dim")
        return text
