"""Histogram: a tensor summary's 16 bins drawn as vertical bars in the terminal, with its range beneath."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from graphscope.trace.summary import TensorSummary

from .number_text import fit_number

_EIGHTHS = " ▁▂▃▄▅▆▇█"


def histogram_text(counts: tuple[int, ...], height: int, bar_width: int = 2) -> Text:
    """Rows of block characters, tallest bar `height` rows for the largest count."""
    counts = [int(c) for c in counts]
    top = max(counts) if counts else 0
    text = Text(no_wrap=True)
    if top <= 0:
        return text
    levels = [round(c / top * height * 8) if c else 0 for c in counts]
    levels = [max(level, 1) if c else 0 for level, c in zip(levels, counts)]  # a non-empty bin always shows
    for row in range(height, 0, -1):
        floor = (row - 1) * 8
        line = "".join(_EIGHTHS[max(0, min(8, level - floor))] * bar_width for level in levels)
        text.append(line, "cyan")
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
