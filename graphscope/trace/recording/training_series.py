"""The recorder's training series (`TrainingRecording`): every pass's small figures, whatever the detail window keeps.

Each figure is stored when the recorder has it at hand: the loss when a pass begins, the grad norms
when it ends, the module outputs' statistics from its journal then (`stats/activations.py`), an
update's ratio when the optimizer step or the hand update after it ends. The columns are NumPy
buffers that grow by a quarter (NaN where nothing was stored); `publish` sets `record.training`'s
columns to views of them, so a million passes cost a few arrays and no copy per flush.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ..record.model import Record
from ..record.training import ACTIVATION_KINDS, ActivationSeries, ParamSeries
from ..stats.activations import activation_figures
from ..stats.device import DeviceArray
from ..stats.finite import squared_norm, to_host_floats
from ..stats.summarize import Summarized
from .journal import Journal, OpEvent

_NAN = math.nan
_KINDS = frozenset(ACTIVATION_KINDS)
_EMPTY = np.zeros(0)


class _Column:
    """A float64 column growing by a quarter (a column never stored to takes nothing until read),
    NaN where nothing was stored."""

    __slots__ = ("values",)

    def __init__(self) -> None:
        self.values = _EMPTY

    def set(self, index: int, value: float) -> None:
        values = self.values
        if index >= len(values):
            values = self.values = self._grown(values, index + 1)
        values[index] = value

    def view(self, n: int) -> np.ndarray:
        """The first `n` entries (a view: stored values show through until the buffer grows)."""
        if n > len(self.values):
            self.values = self._grown(self.values, n)
        return self.values[:n]

    @staticmethod
    def _grown(values: np.ndarray, size: int) -> np.ndarray:
        grown = np.full(max(size, len(values) + len(values) // 4 + 64), _NAN)
        grown[: len(values)] = values
        return grown


class TrainingRecording:
    """Stores each pass's figures as the recorder meets them and publishes them as `record.training`
    (its scalars, which the recorder appends there itself, are left as they are)."""

    def __init__(self, record: Record) -> None:
        self._record = record
        self._loss = _Column()
        self._params: dict[str, tuple[_Column, _Column, _Column]] = {}  # label -> grad norm, update ratio, lr
        self._activations: dict[str, tuple[str, tuple[_Column, _Column, _Column, _Column]]] = {}

    def loss(self, index: int, value: float | None) -> None:
        """Pass `index` began with this loss (None: not a single number)."""
        if value is not None:
            self._loss.set(index, value)

    def grad_norms(self, index: int, norms: dict[str, float]) -> None:
        """Pass `index`'s backward ended with these parameter grad norms."""
        for label, norm in norms.items():
            self._param(label)[0].set(index, norm)

    def updates(self, index: int, changes: Iterable[tuple[str, DeviceArray, DeviceArray]], lr: float) -> None:
        """An optimizer step (lr, its group's learning rate) or a hand update (lr NaN) followed pass
        `index`: (label, the value before it, the value after it) of each parameter it changed."""
        if index < 0:
            return
        pairs: list[tuple[str, float | DeviceArray]] = []
        for label, before, after in changes:
            if type(before) is Summarized or type(after) is Summarized:
                continue  # too large to have been copied: no ratio
            pairs.append((label, squared_norm(after - before)))
            pairs.append((label, squared_norm(before)))
        host = to_host_floats(pairs)
        for k in range(0, len(host), 2):
            label, update = host[k]
            value = host[k + 1][1]
            columns = self._param(label)
            columns[1].set(index, math.sqrt(update) / math.sqrt(value) if value > 0 else _NAN)
            columns[2].set(index, lr)

    def activations(self, index: int, j: Journal) -> None:
        """Pass `index`'s forward, as journal `j` holds it: each module's output (its last op in the
        pass) summarised by its statistics; an output overwritten in place since is left NaN."""
        last = j.outputs  # those of the events already put into the record
        j.outputs = {}
        events = j.events
        for k in range(j.done, len(events)):
            e = events[k]
            if type(e) is OpEvent and e.module is not None:
                last[e.module] = e
        outputs: list[tuple[DeviceArray, str]] = []
        modules: list[tuple[str, str]] = []
        for module, e in last.items():
            array = e.array
            if e.vc[0] != e.version or array.size < 2:  # overwritten since, or a single number (a loss)
                continue
            op = e.names[0]
            kind = op if op in _KINDS else "other"
            outputs.append((array, kind))
            modules.append((module, kind))
        if not outputs:
            return
        for (module, kind), figures in zip(modules, activation_figures(outputs)):
            held = self._activations.get(module)
            if held is None:
                held = self._activations[module] = (kind, (_Column(), _Column(), _Column(), _Column()))
            for column, value in zip(held[1], figures):
                column.set(index, value)

    def publish(self) -> None:
        """Set `record.training`'s columns to the figures stored for the record's passes."""
        series = self._record.training
        n = series.passes = len(self._record.passes)
        series.loss = self._loss.view(n)
        for label, (norm, ratio, lr) in self._params.items():
            param = series.params.get(label)
            if param is None:
                param = series.params[label] = ParamSeries(label)
            param.grad_norm, param.update_ratio, param.lr = norm.view(n), ratio.view(n), lr.view(n)
        for module, (kind, (mean, std, saturated, dead)) in self._activations.items():
            act = series.activations.get(module)
            if act is None:
                act = series.activations[module] = ActivationSeries(module, kind)
            act.mean, act.std, act.saturated, act.dead = mean.view(n), std.view(n), saturated.view(n), dead.view(n)

    def _param(self, label: str) -> tuple[_Column, _Column, _Column]:
        columns = self._params.get(label)
        if columns is None:
            columns = self._params[label] = (_Column(), _Column(), _Column())
        return columns
