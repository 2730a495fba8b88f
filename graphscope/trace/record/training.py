"""The training series: small per-pass figures kept for every pass, whatever the detail window drops.

They are what the training view plots, `graphscope summary` draws as sparklines and `graphscope plot`
writes as a picture. Each series is a float64 column with one entry per backward pass (aligned with
`record.passes`; NaN where the pass has no figure), so a million passes are a few arrays.

    series.loss                          the pass's loss (record.passes[i].loss)
    series.params[name].grad_norm        L2 norm of the grad pass i's backward gave the parameter
                                         (BackwardPass.grad_norms: not what .grad held before it)
    series.params[name].update_ratio     |Δw| / |w| of the optimizer step (or hand update) that
                                         followed pass i's backward: the norms of the update and of
                                         the value before it; NaN when none followed
    series.params[name].lr               the learning rate of that step (NaN for a hand update)
    series.activations[module]           per module output, over pass i's forward: mean, std,
                                         saturated (fraction of a tanh/sigmoid output within 0.01 of
                                         its bounds; NaN for other kinds), dead (fraction of a ReLU's
                                         units zero for every row of the batch; NaN for other kinds)
    series.scalars[tag]                  what the script logged (SummaryWriter.add_scalar): the
                                         points in the order logged, as (global_step, value, pass)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .equality import Same

_F64 = np.float64


def _column() -> np.ndarray:
    return np.zeros(0, dtype=_F64)


@dataclass(eq=False, slots=True)
class ParamSeries(Same):
    """One parameter's figures per pass."""

    name: str
    grad_norm: np.ndarray = field(default_factory=_column)
    update_ratio: np.ndarray = field(default_factory=_column)
    lr: np.ndarray = field(default_factory=_column)


ACTIVATION_KINDS = ("relu", "tanh", "sigmoid", "other")


@dataclass(eq=False, slots=True)
class ActivationSeries(Same):
    """One module output's statistics per pass (the last call of the module in the pass's forward)."""

    module: str  # the module's qualified name ("net.2")
    kind: str  # one of ACTIVATION_KINDS: which of saturated/dead has figures
    mean: np.ndarray = field(default_factory=_column)
    std: np.ndarray = field(default_factory=_column)
    saturated: np.ndarray = field(default_factory=_column)
    dead: np.ndarray = field(default_factory=_column)


@dataclass(eq=False, slots=True)
class ScalarSeries(Same):
    """A tag the script logged, its points in the order they were logged."""

    tag: str
    step: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # global_step
    value: np.ndarray = field(default_factory=_column)
    pass_index: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # passes begun before


@dataclass(eq=False, slots=True)
class TrainingSeries(Same):
    """Every series of a run; `passes` is the length of each per-pass column."""

    passes: int = 0
    loss: np.ndarray = field(default_factory=_column)
    params: dict[str, ParamSeries] = field(default_factory=dict)  # in the order first seen
    activations: dict[str, ActivationSeries] = field(default_factory=dict)  # in the order first seen
    scalars: dict[str, ScalarSeries] = field(default_factory=dict)  # in the order first logged

    def empty(self) -> bool:
        """Whether there is nothing to draw (no pass and no logged scalar)."""
        return self.passes == 0 and not self.scalars

    def learning_rates(self, names: Sequence[str] | None = None) -> list[tuple[list[str], np.ndarray]]:
        """The distinct learning-rate columns of the parameters `names` (default: all), each with the
        parameters that share it (one optimizer's); columns without a rate are left out."""
        groups: list[tuple[list[str], np.ndarray]] = []
        for name in self.params if names is None else names:
            lr = self.params[name].lr
            if np.isnan(lr).all():
                continue
            same = next((g for g in groups if np.array_equal(g[1], lr, equal_nan=True)), None)
            if same is None:
                groups.append(([name], lr))
            else:
                same[0].append(name)
        return groups

    @classmethod
    def from_passes(cls, passes: Sequence[PassFigures]) -> TrainingSeries:
        """The series as far as the passes tell it: their losses and grad norms, every other
        figure NaN (a snapshot written before the series, a record built without a recorder)."""
        n = len(passes)
        series = cls(n, np.array([math.nan if p.loss is None else p.loss for p in passes], dtype=_F64))
        for i, p in enumerate(passes):
            for label, norm in p.grad_norms.items():
                param = series.params.get(label)
                if param is None:
                    nan = np.full(n, math.nan)
                    param = series.params[label] = ParamSeries(label, nan.copy(), nan.copy(), nan)
                param.grad_norm[i] = norm
        return series


class PassFigures(Protocol):
    """What `TrainingSeries.from_passes` reads of a pass (a BackwardPass)."""

    @property
    def loss(self) -> float | None: ...

    @property
    def grad_norms(self) -> dict[str, float]: ...
