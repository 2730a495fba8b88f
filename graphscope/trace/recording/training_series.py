"""The recorder's training series (`TrainingRecording`): every pass's small figures, whatever the detail window keeps.

Each figure is taken when the recorder has it at hand: the loss when a pass begins, the grad norms
when it ends, an update's ratio when the optimizer step or the hand update after it ends (its value
after is changed by the next). A pass's module outputs (its journal's last op of each module) and
its steps' copies are held, a few passes' worth, and reduced together per module or parameter
(`stats/activations.py`, `stats/update_ratio.py`); a large one is figured at once, as stacking it
with others would only copy it. Figures are stored into NumPy buffers in batches, which grow by a
quarter (NaN where nothing was stored); `publish` sets `record.training`'s columns to views of
them, so a million passes cost a few arrays and no copy per flush.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..record.model import Record
from ..record.training import ACTIVATION_KINDS, ActivationSeries, ParamSeries
from ..stats.activations import figures_of_passes
from ..stats.device import DeviceArray
from ..stats.stacked import STACKED
from ..stats.summarize import Summarized
from ..stats.update_ratio import update_ratios
from .journal import Journal, OpEvent

_NAN = math.nan
_KINDS = frozenset(ACTIVATION_KINDS)
_BATCH = 256  # figures put one at a time, stored together
_HELD_PASSES = 64  # module outputs held at most, in passes...
_HELD_BYTES = 1 << 22  # ...and in bytes
_AT_ONCE = STACKED // 4  # an array larger is figured at once: stacked with others it would save little


class _Rows:
    """Float64 rows of `width` figures, one per pass, NaN where nothing was stored. Figures put one
    at a time wait in lists and are stored in batches; the buffer grows by a quarter (none stored:
    nothing taken until read)."""

    __slots__ = ("values", "indices", "figures")

    def __init__(self, width: int) -> None:
        self.values = np.zeros((0, width))
        self.indices: list[int] = []
        self.figures: list[float | tuple[float, ...]] = []

    def put(self, index: int, figures: float | tuple[float, ...]) -> None:
        """Row `index`'s figures (a float for a row of one), stored with the next batch."""
        self.indices.append(index)
        self.figures.append(figures)
        if len(self.indices) >= _BATCH:
            self.store(self.indices, np.array(self.figures))
            self.indices, self.figures = [], []

    def store(self, indices: list[int], figures: np.ndarray) -> None:
        """Rows `indices` set to `figures` (one row each)."""
        values = self.values
        top = max(indices)
        if top >= len(values):
            values = self.values = self._grown(values, top + 1)
        values[indices] = figures.reshape(len(indices), -1)

    def view(self, n: int, column: int) -> np.ndarray:
        """A column of the first `n` rows (a view: later figures show through until the buffer grows)."""
        if self.indices:
            self.store(self.indices, np.array(self.figures))
            self.indices, self.figures = [], []
        if n > len(self.values):
            self.values = self._grown(self.values, n)
        return self.values[:n, column]

    @staticmethod
    def _grown(values: np.ndarray, size: int) -> np.ndarray:
        grown = np.full((max(size, len(values) + len(values) // 4 + 64), values.shape[1]), _NAN)
        grown[: len(values)] = values
        return grown


class _Held:
    """Arrays held to be figured together (one module's outputs of one kind, or one parameter's steps):
    their passes, the arrays, and a second list (each output's version counter and its version
    then, as pairs; each step's value after and learning rate, as pairs). `mixed` once they differ
    in shape or dtype (then grouped when figured)."""

    __slots__ = ("indices", "arrays", "more", "shape", "dtype", "mixed")

    def __init__(self, array: DeviceArray) -> None:
        self.indices: list[int] = []
        self.arrays: list[DeviceArray] = []
        self.more: list[tuple[Any, Any]] = []
        self.shape, self.dtype, self.mixed = array.shape, array.dtype, False

    def groups(self, keep: list[int]) -> list[tuple[list[int], list[DeviceArray], list[tuple[Any, Any]]]]:
        """The entries at positions `keep` as (passes, arrays, seconds), one group per shape and dtype."""
        if not self.mixed:
            if len(keep) == len(self.arrays):
                return [(self.indices, self.arrays, self.more)]
            return [([self.indices[k] for k in keep], [self.arrays[k] for k in keep], [self.more[k] for k in keep])]
        out: dict[tuple[tuple[int, ...], object], tuple[list[int], list[DeviceArray], list[tuple[Any, Any]]]] = {}
        for k in keep:
            a = self.arrays[k]
            group = out.setdefault((a.shape, a.dtype), ([], [], []))
            group[0].append(self.indices[k])
            group[1].append(a)
            group[2].append(self.more[k])
        return list(out.values())


class TrainingRecording:
    """Stores each pass's figures as the recorder meets them and publishes them as `record.training`
    (its scalars, which the recorder appends there itself, are left as they are)."""

    def __init__(self, record: Record) -> None:
        self._record = record
        self._loss = _Rows(1)
        # label -> its grad norms, and its steps' (update ratio, lr)
        self._params: dict[str, tuple[_Rows, _Rows]] = {}
        # module -> its kind and its (mean, std, saturated, dead)
        self._activations: dict[str, tuple[str, _Rows]] = {}
        self._held: dict[tuple[str, str], _Held] = {}  # (module, kind) -> its outputs not yet figured
        self._steps: dict[str, _Held] = {}  # label -> its steps after them (value before; after, lr)
        self._held_passes = 0
        self._held_bytes = 0

    def loss(self, index: int, value: float | None) -> None:
        """Pass `index` began with this loss (None: not a single number)."""
        if value is not None:
            self._loss.put(index, value)

    def grad_norms(self, index: int, norms: dict[str, float]) -> None:
        """Pass `index`'s backward ended with these parameter grad norms."""
        params = self._params
        for label, norm in norms.items():
            (params.get(label) or self._param(label))[0].put(index, norm)

    def updates(self, index: int, changes: Iterable[tuple[str, DeviceArray, DeviceArray]], lr: float) -> None:
        """An optimizer step (lr, its group's learning rate) or a hand update (lr NaN) followed pass
        `index`: (label, copies of the value before it and after it) of each parameter it changed,
        figured at once when large, else held to be figured with the next passes'."""
        if index < 0:
            return
        steps = self._steps
        for label, before, after in changes:
            if type(before) is Summarized or type(after) is Summarized:  # (too large to copy)
                continue
            if before.size > _AT_ONCE:
                ratio = update_ratios([before], [after])[0]
                (self._params.get(label) or self._param(label))[1].put(index, (float(ratio), lr))
            else:
                held = steps.get(label)
                if held is None:
                    held = steps[label] = _Held(before)
                elif before.shape != held.shape or before.dtype is not held.dtype:  # (equal dtypes: grouped)
                    held.mixed = True
                held.indices.append(index)
                held.arrays.append(before)
                held.more.append((after, lr))
                self._held_bytes += (before.size + after.size) * 8

    def activations(self, index: int, j: Journal) -> None:
        """Pass `index`'s forward, as journal `j` holds it: each module's output (its last op in the
        pass), figured at once when large, else held to be figured with the next passes'."""
        last: dict[str | None, OpEvent] = {m: e for m, e in j.outputs.items()}  # those already put into the record
        j.outputs = {}
        last.update({e.module: e for e in j.events[j.done :] if type(e) is OpEvent})
        last.pop(None, None)  # (ops outside any module)
        outputs, held_bytes = self._held, 0
        for module, e in last.items():
            array = e.array
            size = array.size
            if size <= 1 or module is None:  # (a single number: a loss)
                continue
            op = e.names[0]
            kind = op if op in _KINDS else "other"
            if size <= _AT_ONCE:
                held = outputs.get((module, kind))
                if held is None:  # (its rows made as the module first appears: the series' order)
                    self._module_rows(module, kind)
                    held = outputs[module, kind] = _Held(array)
                elif array.shape != held.shape or array.dtype is not held.dtype:  # (equal dtypes: grouped)
                    held.mixed = True
                held.indices.append(index)
                held.arrays.append(array)
                held.more.append((e.vc, e.version))
                held_bytes += size
            else:
                rows = self._module_rows(module, kind)
                if e.vc[0] == e.version:  # (else overwritten in place since: left NaN)
                    rows.put(index, tuple(figures_of_passes([array], kind)[0].tolist()))
        self._held_bytes += held_bytes * 8  # (about: any device's array has a size)
        self._held_passes += 1
        if self._held_passes >= _HELD_PASSES or self._held_bytes > _HELD_BYTES:
            self._figure_held()

    def _figure_held(self) -> None:
        """Figure the held module outputs and steps, each module's (parameter's) of one shape and dtype
        together; an output overwritten in place since its pass is left NaN."""
        for (module, kind), held in self._held.items():
            counts = held.more
            keep = [k for k, (vc, version) in enumerate(counts) if vc[0] == version]
            if keep:
                rows = self._module_rows(module, kind)
                for indices, arrays, _ in held.groups(keep):
                    rows.store(indices, figures_of_passes(arrays, kind))
        params = self._params
        for label, held in self._steps.items():
            rows = (params.get(label) or self._param(label))[1]
            for indices, befores, more in held.groups(list(range(len(held.arrays)))):
                ratios = update_ratios(befores, [after for after, _ in more], same=True)
                rows.store(indices, np.column_stack([ratios, [lr for _, lr in more]]))
        self._held, self._steps, self._held_passes, self._held_bytes = {}, {}, 0, 0

    def publish(self) -> None:
        """Set `record.training`'s columns to the figures stored for the record's passes."""
        if self._held or self._steps:
            self._figure_held()
        series = self._record.training
        n = series.passes = len(self._record.passes)
        series.loss = self._loss.view(n, 0)
        for label, (norms, steps) in self._params.items():
            param = series.params.get(label)
            if param is None:
                param = series.params[label] = ParamSeries(label)
            param.grad_norm, param.update_ratio, param.lr = norms.view(n, 0), steps.view(n, 0), steps.view(n, 1)
        for module, (kind, rows) in self._activations.items():
            act = series.activations.get(module)
            if act is None:
                act = series.activations[module] = ActivationSeries(module, kind)
            act.mean, act.std, act.saturated, act.dead = (rows.view(n, k) for k in range(4))

    def _param(self, label: str) -> tuple[_Rows, _Rows]:
        rows = self._params[label] = (_Rows(1), _Rows(2))
        return rows

    def _module_rows(self, module: str, kind: str) -> _Rows:
        """The module's figures (made with the kind of its first output)."""
        held = self._activations.get(module)
        if held is None:
            held = self._activations[module] = (kind, _Rows(4))
        return held[1]
