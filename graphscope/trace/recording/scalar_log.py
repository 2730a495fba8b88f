"""The scalars a script logged (SummaryWriter.add_scalar), appended to `record.training.scalars` as they come."""

from __future__ import annotations

import numpy as np

from ..record.model import Record
from ..record.training import ScalarSeries


class ScalarLog:
    """Per tag, columns grown by doubling, each series' arrays a view of their first points (a point
    costs three stores and three views, however many were logged before)."""

    def __init__(self, record: Record) -> None:
        self._scalars = record.training.scalars
        self._columns: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # tag -> (step, value, pass)

    def add(self, tag: str, value: float, step: int | None, passes: int) -> None:
        """A point of `tag`: its global step (None: 0, as TensorBoard shows it), value, and the passes begun."""
        series = self._scalars.get(tag)
        if series is None:
            series = self._scalars[tag] = ScalarSeries(tag)
        n = len(series.value)
        columns = self._columns.get(tag)
        if columns is None or n == len(columns[0]):
            size = max(16, 2 * n)
            columns = (np.resize(series.step, size), np.resize(series.value, size), np.resize(series.pass_index, size))
            self._columns[tag] = columns
        steps, values, passes_column = columns
        steps[n], values[n], passes_column[n] = 0 if step is None else step, value, passes
        series.step, series.value, series.pass_index = steps[: n + 1], values[: n + 1], passes_column[: n + 1]
