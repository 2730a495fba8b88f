"""Records with a training series, for the training view's tests: a tiny MLP's passes with a NaN loss, an exploding
and a vanishing grad norm, three parameters, two modules' activations and a logged scalar."""

from __future__ import annotations

import numpy as np

from graphscope.trace.record.model import Record
from graphscope.trace.record.training import ActivationSeries, ParamSeries, ScalarSeries, TrainingSeries
from tests.hand_records import mlp_record

PASSES = 8
NAN_PASS = 5  # its loss and fc1.weight's grad norm are NaN
EXPLODING_PASS = 3  # fc1.weight's grad norm is 2e3 (over the findings' 1e3)
VANISHING_PASS = 6  # fc1.bias's grad norm is 1e-9 (under the findings' 1e-7)
PARAMS = ("fc1.weight", "fc1.bias", "fc2.weight")


def training_series(passes: int = PASSES) -> TrainingSeries:
    """The series of `training_record`, alone."""
    k = np.arange(passes, dtype=np.float64)
    loss = 1.5 / (k + 1)
    loss[NAN_PASS] = np.nan
    norms = {
        "fc1.weight": 0.5 + 0.1 * k,
        "fc1.bias": 0.1 * np.ones(passes),
        "fc2.weight": 0.3 / (k + 1),
    }
    norms["fc1.weight"][EXPLODING_PASS] = 2e3
    norms["fc1.weight"][NAN_PASS] = np.nan
    norms["fc1.bias"][VANISHING_PASS] = 1e-9
    params = {}
    for i, name in enumerate(PARAMS):
        ratio = 10.0 ** (-3.5 + 0.25 * k - 0.5 * i)
        ratio[-1] = np.nan  # no step followed the last pass
        lr = 0.1 * 0.5 ** (k // 4)
        lr[-1] = np.nan
        params[name] = ParamSeries(name, norms[name], ratio, lr)
    relu = ActivationSeries(
        "model.relu", "relu", 0.4 + 0.01 * k, 0.8 - 0.02 * k, np.full(passes, np.nan), np.minimum(0.1 * k, 1.0)
    )
    tanh = ActivationSeries(
        "model.tanh", "tanh", 0.05 * np.sin(k), 0.6 + 0.03 * k, np.minimum(0.05 * k, 1.0), np.full(passes, np.nan)
    )
    accuracy = ScalarSeries(
        "train/accuracy", np.arange(passes, dtype=np.int64), 0.5 + 0.05 * k, np.arange(1, passes + 1, dtype=np.int64)
    )
    return TrainingSeries(passes, loss, params, {"model.relu": relu, "model.tanh": tanh}, {"train/accuracy": accuracy})


def training_record(passes: int = PASSES) -> Record:
    """`passes` passes of hand_records' MLP, each kept in full, with their training series."""
    series = training_series(passes)
    record = mlp_record(passes=passes, losses=[float(v) for v in series.loss])
    for p, position in zip(record.passes, range(passes)):
        p.grad_norms = {name: float(series.params[name].grad_norm[position]) for name in PARAMS}
    record.training = series
    return record
