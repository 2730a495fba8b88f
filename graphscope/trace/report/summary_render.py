"""A summary drawn in the terminal: its numbers, histogram sparkline and preview, alike in the summary and the TUI."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..record.tensor_summary import (
    TensorSummary,
)
from .drawing import count_sparkline
from .literal import literal
from .number_text import format_number


def preview_text(s: TensorSummary, count: int = 8) -> str:
    """The first `count` preview values, comma-separated, with "…" when there are more."""
    if s.dropped:
        return "(values dropped: memory budget)"
    head = s.preview[:count].tolist()
    body = ", ".join(format_number(v) if not isinstance(v, bool) else str(v) for v in head)
    return f"[{body}{', …' if s.numel > len(head) else ''}]"


def render(s: TensorSummary) -> Group:
    """A Rich renderable for a summary; every string from the record is literal text."""
    shape = "×".join(str(d) for d in s.shape) if s.shape else "scalar"
    head = Text.assemble(
        literal(s.dtype, "bold"),
        " ",
        shape,
        "  ",
        literal(s.device, "dim"),
        f"  {s.numel:,} element{'s' if s.numel != 1 else ''}",
    )
    grid = Table.grid(padding=(0, 2))
    for _ in range(4):
        grid.add_column()
    grid.add_row(Text("min", "dim"), Text(format_number(s.min)), Text("max", "dim"), Text(format_number(s.max)))
    grid.add_row(Text("mean", "dim"), Text(format_number(s.mean)), Text("std", "dim"), Text(format_number(s.std)))
    grid.add_row(Text("norm", "dim"), Text(format_number(s.norm)), Text("zeros", "dim"), Text(f"{s.zero_fraction:.1%}"))
    bad = "bold red" if s.has_nonfinite else ""
    grid.add_row(
        Text("nan", "dim"),
        Text(format_number(s.nan_count), bad),
        Text("inf", "dim"),
        Text(format_number(s.inf_count), bad),
    )
    parts: list[RenderableType] = [head, grid]
    if s.histogram.size:
        parts.append(
            Text.assemble(
                (format_number(s.min), "dim"),
                " ",
                (count_sparkline(s.histogram), "cyan"),
                " ",
                (format_number(s.max), "dim"),
            )
        )
    parts.append(Text(preview_text(s)))
    return Group(*parts)
