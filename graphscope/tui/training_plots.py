"""The training view's picture: a record's training series as braille charts on one pass axis (the loss, the
chosen parameters' grad norms, update-to-data ratios and learning rates, the modules' activations, the logged
scalars), with each pass's marks (NaN/Inf, exploding, vanishing), the cursor's pass and the picked pass."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from rich.text import Text

from graphscope.trace.analysis.findings import EXPLODING_NORM, VANISHING_NORM
from graphscope.trace.record.model import (
    EXPLODING_GRAD,
    NAN_GRAD,
    NAN_ORIGIN,
    VANISHING_GRAD,
    BackwardPass,
    Finding,
)
from graphscope.trace.record.training import TrainingSeries
from graphscope.trace.report.line_chart import NO_SERIES, Chart, Points, draw, pass_cell

from .node_label import keep_tail, one_line
from .number_text import fit_number

PALETTE = ("cyan", "magenta", "green", "yellow", "bright_blue", "bright_red", "bright_green", "bright_magenta")
GUTTER = 9  # the value labels (7 characters), a space and the axis
LABEL = GUTTER - 2
UPDATE_GUIDE = 1e-3  # the update-to-data ratio people aim near: much above, too high a learning rate; below, too low
MARKS = {NAN_ORIGIN: ("×", "bold red"), EXPLODING_GRAD: ("▲", "bold yellow"), VANISHING_GRAD: ("▼", "bold blue")}
CURSOR = ("◆", "bold bright_white")  # the debugger's cursor pass, on the marks row
CURSOR_BACK = "on #1d3a5f"  # the cursor pass's column
PICKED_BACK = "on #4a4a4a"  # the picked pass's column
GUIDE_STYLE = "bright_black"


Columns = dict[str, int | None]  # "cursor" and "picked": the cell column of that pass, None when off the axis


@dataclass(frozen=True)
class Plot:
    """One chart to draw: its title, its series (label, points, colour) and how to scale them."""

    title: str
    series: list[tuple[str, Points, str]]
    log: bool = False
    guide: float | None = None
    bounds: tuple[float, float] | None = None
    empty: str = "no values"  # said in place of the chart when no value is drawable


@dataclass(frozen=True)
class Picture:
    """The drawn view: its text, the lines whose columns from GUTTER on stand for passes (a click
    there picks a pass), the plot's width in cells and the passes on its axis."""

    text: Text
    pass_lines: frozenset[int]
    width: int
    count: int


def axis_length(series: TrainingSeries) -> int:
    """The passes on the axis: the series' own, and those a logged scalar was logged in."""
    count = series.passes
    for scalar in series.scalars.values():
        if len(scalar.pass_index):
            count = max(count, int(scalar_passes(scalar.pass_index).max()) + 1)
    return count


def scalar_passes(pass_index: np.ndarray) -> np.ndarray:
    """The pass a logged point belongs to: the last pass begun before it was logged (the first
    pass for a point logged before any)."""
    return np.maximum(pass_index.astype(np.int64) - 1, 0)


def pass_marks(series: TrainingSeries, passes: Sequence[BackwardPass], findings: Sequence[Finding]) -> dict[int, str]:
    """position -> the mark of the pass: NAN_ORIGIN where its loss, a grad norm (the series' Inf, the
    pass's own NaN or Inf) or a NaN finding says NaN/Inf; else EXPLODING_GRAD / VANISHING_GRAD where a
    parameter's grad norm is over / under the findings' limits. (A NaN in a series is also "no figure".)"""
    n = series.passes
    nonfinite = np.isinf(series.loss[:n]) | np.isnan(series.loss[:n])
    exploding = np.zeros(n, dtype=bool)
    vanishing = np.zeros(n, dtype=bool)
    for param in series.params.values():
        norm = param.grad_norm[:n]
        nonfinite |= np.isinf(norm)
        finite = np.isfinite(norm)
        exploding |= finite & (np.where(finite, norm, 0.0) > EXPLODING_NORM)
        vanishing |= finite & (np.where(finite, norm, 1.0) < VANISHING_NORM)
    marks: dict[int, str] = {}
    for kind, where in ((VANISHING_GRAD, vanishing), (EXPLODING_GRAD, exploding), (NAN_ORIGIN, nonfinite)):
        marks.update((int(position), kind) for position in np.flatnonzero(where))
    position_of = {p.index: position for position, p in enumerate(passes)}
    for position, p in enumerate(passes[:n]):
        if any(not math.isfinite(v) for v in p.grad_norms.values()):
            marks[position] = NAN_ORIGIN
    for finding in findings:
        if finding.kind in (NAN_ORIGIN, NAN_GRAD) and finding.pass_index in position_of:
            marks[position_of[finding.pass_index]] = NAN_ORIGIN
    return marks


def plots(series: TrainingSeries, shown: Sequence[str]) -> list[Plot]:
    """The charts of the series, in the view's order, for the parameters in `shown`."""
    colour = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(series.params)}
    params = [(name, series.params[name]) for name in shown]
    out: list[Plot] = []
    if series.passes:
        out.append(Plot("loss", [("loss", Points.per_pass(series.loss), "cyan")]))
        if params:
            out.append(
                Plot(
                    "grad norm (log)",
                    [(name, Points.per_pass(p.grad_norm), colour[name]) for name, p in params],
                    log=True,
                    empty="no grad reached these parameters",
                )
            )
            out.append(
                Plot(
                    f"update / data (log; ┈ {fit_number(UPDATE_GUIDE)})",
                    [(name, Points.per_pass(p.update_ratio), colour[name]) for name, p in params],
                    log=True,
                    guide=UPDATE_GUIDE,
                    empty="no optimizer step or hand update followed a pass",
                )
            )
            rates = [(name, Points.per_pass(p.lr), colour[name]) for name, p in params]
            if len(rates) > 1 and all(np.array_equal(r[1].values, rates[0][1].values, equal_nan=True) for r in rates):
                rates = [("every one shown", rates[0][1], rates[0][2])]
            out.append(Plot("learning rate", rates, empty="no optimizer step recorded"))
    modules = list(series.activations.values())
    if modules and series.passes:
        tint = {a.module: PALETTE[i % len(PALETTE)] for i, a in enumerate(modules)}
        fractions = [
            (f"{a.module} {'dead' if a.kind == 'relu' else 'saturated'}", a.dead if a.kind == "relu" else a.saturated)
            for a in modules
            if a.kind != "other"
        ]
        if fractions:
            out.append(
                Plot(
                    "dead ReLU / saturated fraction",
                    [(label, Points.per_pass(values), tint[label.rpartition(" ")[0]]) for label, values in fractions],
                    bounds=(0.0, 1.0),
                )
            )
        out.append(Plot("activation mean", [(a.module, Points.per_pass(a.mean), tint[a.module]) for a in modules]))
        out.append(Plot("activation std", [(a.module, Points.per_pass(a.std), tint[a.module]) for a in modules]))
    for scalar in series.scalars.values():
        points = Points(scalar_passes(scalar.pass_index), scalar.value.astype(np.float64))
        out.append(Plot(scalar.tag, [(scalar.tag, points, "cyan")]))
    return out


def plot_cells(width: int) -> int:
    """The cells of a chart in a view `width` columns wide."""
    return max(width - GUTTER, 8)


def drawn_plots(series: TrainingSeries, shown: Sequence[str], width: int, plot_height: int) -> list[tuple[Plot, Chart]]:
    """Each of `plots` with its chart (what does not change as the cursor and the pick move)."""
    count = max(axis_length(series), 1)
    return [
        (
            plot,
            draw(
                [p for _, p, _ in plot.series], count, plot_cells(width), plot_height, plot.log, plot.guide, plot.bounds
            ),
        )
        for plot in plots(series, shown)
    ]


def picture(
    series: TrainingSeries,
    marks: dict[int, str],
    cursor: int | None,
    picked: int | None,
    shown: Sequence[str],
    width: int,
    plot_height: int,
    pass_numbers: Sequence[int] = (),
    drawn: list[tuple[Plot, Chart]] | None = None,
) -> Picture:
    """Every chart of `plots`, `width` columns wide, each `plot_height` rows tall, on one pass axis
    (`drawn`: the charts of `drawn_plots` for these arguments, when they were kept)."""
    count = max(axis_length(series), 1)
    cells = plot_cells(width)
    if drawn is None:
        drawn = drawn_plots(series, shown, width, plot_height)

    def number(position: int) -> int:
        return _pass_number(pass_numbers, position)

    columns: Columns = {
        "cursor": pass_cell(cursor, count, cells) if cursor is not None and cursor < count else None,
        "picked": pass_cell(picked, count, cells) if picked is not None and picked < count else None,
    }
    text = Text(no_wrap=True, overflow="crop")
    lines: list[int] = []
    line = 0

    def newline() -> None:
        nonlocal line
        text.append("\n")
        line += 1

    everyone = len(series.params)
    if len(shown) == everyone:
        who = f"all {everyone} parameters" if everyone else "no parameters"
    else:
        place = list(series.params).index(shown[0]) + 1
        who = f"{keep_tail(one_line(shown[0]), max(width - 30, 8))} ({place} of {everyone})"
    text.append(f"{count:,} passes · {who}", "bold")
    text.append("  [ ] a", "dim")
    newline()
    text.append(_marks_row(marks, cursor, count, cells, columns))
    lines.append(line)
    newline()
    if picked is not None:
        loss = series.loss[picked] if picked < series.passes else None
        text.append(f"▸ pass {number(picked)}", "bold")
        if loss is not None:
            text.append(f" · loss {fit_number(loss, 10)}", "bold red" if not math.isfinite(loss) else "")
        if picked in marks:
            char, style = MARKS[marks[picked]]
            text.append(f" {char} {_mark_words(marks[picked])}", style)
    if cursor is not None:
        text.append(f"  ◆ cursor: pass {number(cursor)}", "dim")
    for plot, chart in drawn:
        newline()
        text.append(plot.title, "bold")
        if not (chart.owner != NO_SERIES).any():
            newline()
            text.append(f"  {plot.empty}", "dim")
            continue
        if len(plot.series) == 1 and picked is not None:
            text.append(f"  {_value_at(plot.series[0][1], picked)}", plot.series[0][2])
        for row in range(plot_height):
            newline()
            lines.append(line)
            text.append(_label(chart, row, plot_height), "dim")
            _chart_row(text, chart, row, [c for _, _, c in plot.series], columns)
        if len(plot.series) > 1:
            _legend(text, plot, picked, width, newline)
    newline()
    text.append(" " * (GUTTER - 1) + "└", "dim")
    first, last = f"pass {number(0)}", str(number(count - 1))
    text.append(first + " " * max(1, cells - len(first) - len(last)) + last, "dim")
    lines.append(line)
    return Picture(text, frozenset(lines), cells, count)


def _pass_number(pass_numbers: Sequence[int], position: int) -> int:
    """The pass's index (its position in the record's passes, where the record has no entry for it)."""
    return pass_numbers[position] if position < len(pass_numbers) else position


def _mark_words(kind: str) -> str:
    return {NAN_ORIGIN: "NaN/Inf", EXPLODING_GRAD: "exploding grad", VANISHING_GRAD: "vanishing grad"}[kind]


def _value_at(points: Points, position: int) -> str:
    at = np.flatnonzero(points.passes == position)
    if not len(at):
        return "—"
    return fit_number(float(points.values[at[-1]]), 10)


def _marks_row(marks: dict[int, str], cursor: int | None, count: int, cells: int, columns: Columns) -> Text:
    """The passes' marks on the plot's columns (a column holding several: the gravest), the cursor's ◆."""
    row: list[tuple[str, str]] = [(" ", "")] * cells
    rank = {VANISHING_GRAD: 0, EXPLODING_GRAD: 1, NAN_ORIGIN: 2}
    best: dict[int, str] = {}
    for position, kind in marks.items():
        if position < count:
            cell = pass_cell(position, count, cells)
            if cell not in best or rank[kind] > rank[best[cell]]:
                best[cell] = kind
    for cell, kind in best.items():
        row[cell] = MARKS[kind]
    if columns["cursor"] is not None and columns["cursor"] not in best:
        row[columns["cursor"]] = CURSOR
    text = Text(" " * (LABEL - 5) + "marks ┆", "dim")
    for cell, (char, style) in enumerate(row):
        text.append(char, _back(style, cell, columns))
    return text


def _back(style: str, cell: int, columns: Columns) -> str:
    if cell == columns["picked"]:
        return f"{style} {PICKED_BACK}".strip()
    if cell == columns["cursor"]:
        return f"{style} {CURSOR_BACK}".strip()
    return style


def _label(chart: Chart, row: int, height: int) -> str:
    if row == 0:
        return f"{fit_number(chart.high, LABEL):>{LABEL}} ┤"
    if row == height - 1:
        return f"{fit_number(chart.low, LABEL):>{LABEL}} ┤"
    return " " * (GUTTER - 1) + "│"


def _chart_row(text: Text, chart: Chart, row: int, colours: list[str], columns: Columns) -> None:
    """One row of cells, each in the colour of the series that drew it last, runs appended together."""
    chars = chart.row_text(row)
    owners = chart.owner[row]
    guide = row == chart.guide_row
    run, run_style = "", None
    for cell, char in enumerate(chars):
        owner = int(owners[cell])
        if owner != NO_SERIES:
            style = colours[owner]
        elif guide:
            char, style = chart.guide_char, GUIDE_STYLE
        else:
            style = ""
        style = _back(style, cell, columns)
        if style != run_style and run:
            text.append(run, run_style or "")
            run = ""
        run, run_style = run + char, style
    if run:
        text.append(run, run_style or "")


def _legend(text: Text, plot: Plot, picked: int | None, width: int, newline: Callable[[], None]) -> None:
    """The series' names in their colours (with their value at the picked pass), as many to a line as fit."""
    used = width
    for label, points, colour in plot.series:
        value = f" {_value_at(points, picked)}" if picked is not None else ""
        entry = f"━ {keep_tail(one_line(label), max(width - 16, 8))}{value}"
        if used + len(entry) + 2 > width:
            newline()
            text.append("  ")
            used = 2
        else:
            text.append("  ")
            used += 2
        text.append("━", colour)
        text.append(entry[1:])
        used += len(entry)
