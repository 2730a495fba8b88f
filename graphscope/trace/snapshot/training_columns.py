"""The training series in a snapshot (version 7 on): each per-pass column one base64 float64 array, written and read.

    "training": {"passes": n, "loss": <n float64>,
                 "params": [{"name", "grad_norm", "update_ratio", "lr"}],
                 "activations": [{"module", "kind", "mean", "std", "saturated", "dead"}],
                 "scalars": [{"tag", "count": k, "step": <k ints>, "value": <k float64>, "pass": <k ints>}]}

NaN and Inf travel as the float64s they are. A file written before the series has it rebuilt from
its passes (`TrainingSeries.from_passes`); `consistency.py` checks the columns' length against them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..record.limits import FIELDS, ID_LIMIT, fit
from ..record.training import ACTIVATION_KINDS, ActivationSeries, ParamSeries, ScalarSeries, TrainingSeries
from .columns_read import ColumnReader
from .columns_write import Blob, Json, column, raw

_F64 = np.dtype(np.float64)
_STEP_LIMIT = 2**62  # of a logged scalar's global step, either sign


def training_json(series: TrainingSeries, blob: Blob) -> Json:
    """The series as the document holds it (names fit to their limits)."""

    def floats(values: NDArray[Any]) -> str:
        return blob(raw(np.asarray(values, dtype=np.float64)))

    return {
        "passes": series.passes,
        "loss": floats(series.loss),
        "params": [
            {
                "name": fit(p.name, FIELDS["training.params.name"], name=True),
                "grad_norm": floats(p.grad_norm),
                "update_ratio": floats(p.update_ratio),
                "lr": floats(p.lr),
            }
            for p in series.params.values()
        ],
        "activations": [
            {
                "module": fit(a.module, FIELDS["training.activations.module"], name=True),
                "kind": a.kind,
                "mean": floats(a.mean),
                "std": floats(a.std),
                "saturated": floats(a.saturated),
                "dead": floats(a.dead),
            }
            for a in series.activations.values()
        ],
        "scalars": [
            {
                "tag": fit(s.tag, FIELDS["training.scalars.tag"], name=True),
                "count": len(s.value),
                "step": column(np.asarray(s.step, dtype=np.int64), blob),
                "value": floats(s.value),
                "pass": column(np.asarray(s.pass_index, dtype=np.int64), blob),
            }
            for s in series.scalars.values()
        ],
    }


class TrainingReader(ColumnReader):
    """Reads a snapshot's "training" section, each value checked as it is read."""

    def training(self, d: Json, where: str) -> TrainingSeries:
        self.obj(d, where, ("passes", "loss", "params", "activations", "scalars"))
        n = self.integer(d["passes"], where + ".passes")
        series = TrainingSeries(n, self.array(d["loss"], where + ".loss", _F64, n))
        for i, p in enumerate(self.seq(d["params"], where + ".params")):
            at = f"{where}.params[{i}]"
            self.obj(p, at, ("name", "grad_norm", "update_ratio", "lr"))
            label = self.name(p["name"], at + ".name", FIELDS["training.params.name"])
            series.params[label] = ParamSeries(
                label, *(self.array(p[k], f"{at}.{k}", _F64, n) for k in ("grad_norm", "update_ratio", "lr"))
            )
        for i, a in enumerate(self.seq(d["activations"], where + ".activations")):
            at = f"{where}.activations[{i}]"
            self.obj(a, at, ("module", "kind", "mean", "std", "saturated", "dead"))
            module = self.name(a["module"], at + ".module", FIELDS["training.activations.module"])
            kind = self.name(a["kind"], at + ".kind")
            if kind not in ACTIVATION_KINDS:
                self.fail(
                    at + ".kind",
                    f"unknown activation kind {kind[:40]!r}: expected one of {', '.join(ACTIVATION_KINDS)}",
                )
            series.activations[module] = ActivationSeries(
                module, kind, *(self.array(a[k], f"{at}.{k}", _F64, n) for k in ("mean", "std", "saturated", "dead"))
            )
        for i, s in enumerate(self.seq(d["scalars"], where + ".scalars")):
            at = f"{where}.scalars[{i}]"
            self.obj(s, at, ("tag", "count", "step", "value", "pass"))
            tag = self.name(s["tag"], at + ".tag", FIELDS["training.scalars.tag"])
            k = self.count(s, at)
            series.scalars[tag] = ScalarSeries(
                tag,
                self.column(s["step"], at + ".step", k, -_STEP_LIMIT, _STEP_LIMIT),
                self.array(s["value"], at + ".value", _F64, k),
                self.column(s["pass"], at + ".pass", k, 0, ID_LIMIT),
            )
        return series
