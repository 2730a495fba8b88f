"""The training series in the summary: one sparkline a row for each parameter's grad norm, update ratio and learning
rate, each module's dead or saturated fraction and each logged scalar, with its last figure."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from rich.table import Table
from rich.text import Text

from ..record.training import TrainingSeries
from .drawing import loss_sparkline
from .literal import literal
from .number_text import format_number

SHOWN_ROWS = 8  # rows of one figure (parameters, modules, tags) before "… N more"
WIDTH = 48  # characters of a sparkline


def sparkline(values: np.ndarray, log: bool = False, fraction: bool = False) -> str:
    """A column as a sparkline: NaN (no figure) a gap, ±Inf a "×"; `log` draws log10 of the
    values (a zero as the lowest block), a `fraction` is drawn from 0 to 1. A long column is
    averaged into WIDTH buckets with NumPy first (a million passes draw at once)."""
    values = np.asarray(values, dtype=np.float64)
    if log:
        positive = (values > 0) & (values < math.inf)
        floor = math.log10(float(values[positive].min())) - 1 if positive.any() else 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = np.log10(values)
        values = np.where(positive, logs, np.where((values <= 0) & (values > -math.inf), floor, values))
    size = max(1, math.ceil(len(values) / WIDTH))
    padded = np.full(math.ceil(len(values) / size) * size, math.nan)
    padded[: len(values)] = values
    buckets = padded.reshape(-1, size)
    crossed = np.isinf(buckets).any(axis=1)
    finite = np.where(np.isfinite(buckets), buckets, 0.0)
    counts = np.isfinite(buckets).sum(axis=1)
    with np.errstate(invalid="ignore", over="ignore"):
        means = (finite / np.maximum(counts, 1)[:, None]).sum(axis=1)  # (averaged as v/n: no overflow)
    points: list[float | None] = [
        math.inf if c else (m if n else None) for c, m, n in zip(crossed.tolist(), means.tolist(), counts.tolist())
    ]
    return loss_sparkline(points, WIDTH, (0.0, 1.0) if fraction else None)


def _last(values: np.ndarray) -> float | None:
    """The last figure of a column (its last entry that is not NaN), if any."""
    known = np.flatnonzero(~np.isnan(values))
    return float(values[known[-1]]) if known.size else None


def _rows(
    table: Table,
    title: str,
    rows: Iterable[tuple[str, np.ndarray]],
    log: bool = False,
    style: str = "cyan",
    fraction: bool = False,
) -> None:
    listed = [(label, values) for label, values in rows if _last(values) is not None or np.isinf(values).any()]
    for k, (label, values) in enumerate(listed[:SHOWN_ROWS]):
        table.add_row(
            Text(title if k == 0 else "", "bold"),
            literal(label),
            Text(sparkline(values, log, fraction), style),
            Text(format_number(_last(values))),
        )
    if len(listed) > SHOWN_ROWS:
        table.add_row("", Text(f"… {len(listed) - SHOWN_ROWS} more", "dim"), "", "")


def render_series(series: TrainingSeries) -> Table | None:
    """The series as a table of sparklines (None when nothing beyond the losses is known)."""
    params = list(series.params.values())
    acts = list(series.activations.values())
    table = Table(
        title=f"training, {series.passes:,} pass{'es' if series.passes != 1 else ''} (log: log scale)",
        title_justify="left",
        box=None,
        padding=(0, 1),
        show_header=False,
    )
    for column in ("figure", "of", "sparkline", "last"):
        table.add_column(column, no_wrap=column != "of", justify="right" if column == "last" else "left")
    _rows(table, "grad norm (log)", ((p.name, p.grad_norm) for p in params), log=True)
    _rows(table, "update/data (log)", ((p.name, p.update_ratio) for p in params), log=True)
    _rows(table, "lr", ((shared(names), lr) for names, lr in series.learning_rates()))
    _rows(table, "dead", ((a.module, a.dead) for a in acts if a.kind == "relu"), style="yellow", fraction=True)
    _rows(
        table,
        "saturated",
        ((a.module, a.saturated) for a in acts if a.kind in ("tanh", "sigmoid")),
        style="yellow",
        fraction=True,
    )
    _rows(table, "scalars", ((s.tag, s.value) for s in series.scalars.values()), style="green")
    return table if table.row_count else None


def shared(names: list[str]) -> str:
    """The parameters sharing a learning rate: the first, and how many more."""
    return names[0] + (f" (+{len(names) - 1})" if len(names) > 1 else "")
