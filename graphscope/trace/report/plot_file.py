"""`graphscope plot`: the training series as a picture file (SVG or PNG) drawn with matplotlib, imported only here.

One panel a figure, passes along a shared x axis: the loss; each parameter's grad norm and its
update-to-data ratio (log scales, the ratio with the 1e-3 guide line people aim near); the learning
rates; the dead fraction of ReLU outputs and the saturated fraction of tanh/sigmoid outputs; the
logged scalars. A panel with nothing to draw is left out (the loss's always stays). Passes with a
NaN/Inf loss or grad norm are marked by a red line on every panel. The SVG is deterministic (its
ids salted by a constant, no date) with its text as text, so a report can diff it and find labels.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..record.model import Record
from ..record.training import TrainingSeries
from .series_summary import shared

if TYPE_CHECKING:
    from matplotlib.axes import Axes

FORMATS = (".svg", ".png")
INSTALL = "pip install 'graphscope[plot]'"
GUIDE_RATIO = 1e-3  # the update/data ratio a well-set learning rate keeps near
SHOWN_PARAMS = 12  # parameters drawn when none are chosen
NONFINITE = "NaN/Inf pass"

TITLES = {
    "loss": "loss",
    "grad": "grad norm per parameter (log)",
    "ratio": "update / data ratio |Δw|/|w| per parameter (log)",
    "lr": "learning rate",
    "activations": "activations: dead (ReLU) / saturated (tanh, sigmoid) fraction",
    "scalars": "logged scalars",
}


class PlotError(Exception):
    """Why no picture was written: one line for the user, saying what to do."""


def check_out(out: str) -> None:
    """PlotError unless `out` names a picture format written here (told by its ending)."""
    if os.path.splitext(out)[1].lower() not in FORMATS:
        raise PlotError(f"--out {out!r}: the picture's name must end in .svg or .png")


def write_plot(record: Record, out: str, params: Sequence[str] | None = None) -> None:
    """Draw `record`'s training series into `out` (.svg or .png); `params` picks the parameters drawn
    (default: the first SHOWN_PARAMS). PlotError for a record without passes, a parameter it does
    not have, matplotlib missing or a file that cannot be written."""
    check_out(out)
    series = record.training
    if series.passes == 0:
        raise PlotError("the snapshot has no backward pass: there is nothing to plot")
    names = _chosen(series, params)
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotError(f"plotting needs matplotlib: {INSTALL}") from None
    panels = _panels(series, names)
    # ids salted by a constant (the same bytes each time), text as text, no TeX
    with matplotlib.rc_context({"svg.hashsalt": "graphscope", "svg.fonttype": "none", "text.usetex": False}):
        fig = Figure(figsize=(9, 2.4 * len(panels)), layout="constrained")
        axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
        bad = _nonfinite_passes(record)
        for ax, (key, draw) in zip(axes, panels):
            ax.set_title(TITLES[key] + _shown_note(key, series, names, params), loc="left", fontsize=10)
            draw(ax)
            for k, index in enumerate(bad):
                ax.axvline(
                    index, color="red", alpha=0.5, linewidth=1, label=NONFINITE if k == 0 and key == "loss" else None
                )
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7, loc="upper right", ncols=2 if len(ax.get_lines()) > 6 else 1)
            ax.grid(True, alpha=0.3)
        axes[-1].set_xlabel("pass")
        metadata: dict[str, Any] = {"Date": None} if out.lower().endswith(".svg") else {}
        try:
            fig.savefig(out, metadata=metadata)
        except OSError as e:
            raise PlotError(f"cannot write {out!r}: {e.strerror or e}") from None


def _chosen(series: TrainingSeries, params: Sequence[str] | None) -> list[str]:
    known = list(series.params)
    if params is None:
        return known[:SHOWN_PARAMS]
    unknown = [p for p in params if p not in series.params]
    if unknown:
        listed = ", ".join(known[:20]) + (", …" if len(known) > 20 else "") if known else "none"
        raise PlotError(f"--params: no parameter {unknown[0]!r} in the snapshot (its parameters: {listed})")
    return list(params)


def _shown_note(key: str, series: TrainingSeries, names: list[str], params: Sequence[str] | None) -> str:
    if key in ("grad", "ratio") and params is None and len(series.params) > len(names):
        return f"  ({len(names)} of {len(series.params)} parameters: --params to choose)"
    return ""


def _label(text: str) -> str:
    """A name from the script as literal text in matplotlib: "$" opens no mathtext, and a leading "_"
    (which keeps a line out of the legend) is kept by a zero-width space before it."""
    text = text.replace("$", r"\$")
    return "\u200b" + text if text.startswith("_") else text


def _plot(ax: Axes, x: np.ndarray, y: np.ndarray, label: str | None, **style: Any) -> None:
    """A line where the figure is finite (NaN and ±Inf left as gaps; the red lines mark them)."""
    y = np.where(np.isfinite(y), y, np.nan)
    ax.plot(
        x, y, label=None if label is None else _label(label), marker="o" if len(x) < 50 else None, markersize=3, **style
    )


def _panels(series: TrainingSeries, names: list[str]) -> list[tuple[str, Any]]:
    """(panel key, its drawing function) of each panel with something to draw, in order."""
    x = np.arange(series.passes)
    params = [series.params[n] for n in names]
    panels: list[tuple[str, Any]] = [("loss", lambda ax: _plot(ax, x, series.loss, None, color="black"))]

    def per_param(column: str, guide: bool) -> Any:
        def draw(ax: Axes) -> None:
            for p in params:
                _plot(ax, x, _positive(getattr(p, column)), p.name)
            if guide:
                ax.axhline(GUIDE_RATIO, color="gray", linestyle="--", linewidth=1, label="1e-3 guide")
            ax.set_yscale("log")

        return draw

    if any(_drawable(_positive(p.grad_norm)) for p in params):
        panels.append(("grad", per_param("grad_norm", False)))
    if any(_drawable(_positive(p.update_ratio)) for p in params):
        panels.append(("ratio", per_param("update_ratio", True)))
    rates = series.learning_rates(names)
    if rates:

        def draw_rates(ax: Axes) -> None:
            for group, lr in rates:
                _plot(ax, x, lr, shared(group))

        panels.append(("lr", draw_rates))
    fractions = [
        (f"{a.module} {'dead' if a.kind == 'relu' else 'saturated'}", a.dead if a.kind == "relu" else a.saturated)
        for a in series.activations.values()
        if a.kind in ("relu", "tanh", "sigmoid")
    ]
    fractions = [(label, f) for label, f in fractions if _drawable(f)]
    if fractions:

        def draw_fractions(ax: Axes) -> None:
            for label, f in fractions:
                _plot(ax, x, f, label)
            ax.set_ylim(-0.05, 1.05)

        panels.append(("activations", draw_fractions))
    scalars = [s for s in series.scalars.values() if len(s.value)]
    if scalars:

        def draw_scalars(ax: Axes) -> None:  # each point at the passes begun when it was logged
            for s in scalars:
                _plot(ax, s.pass_index.astype(np.float64), s.value, s.tag)

        panels.append(("scalars", draw_scalars))
    return panels


def _positive(values: np.ndarray) -> np.ndarray:
    """Values for a log scale: zero and below left out (NaN)."""
    return np.where(values > 0, values, np.nan)


def _drawable(values: np.ndarray) -> bool:
    return bool(np.isfinite(values).any())


def _nonfinite_passes(record: Record) -> list[int]:
    """The passes whose loss or a grad norm was NaN or Inf."""
    return [
        i
        for i, p in enumerate(record.passes)
        if (p.loss is not None and not math.isfinite(p.loss)) or not all(map(math.isfinite, p.grad_norms.values()))
    ]
