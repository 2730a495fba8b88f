"""The training series in a snapshot: written and read back as it was, older files rebuilt from their passes,
and a file whose series disagrees with it refused in one line naming the place."""

import json
import math

import numpy as np
import pytest

import graphscope as gs
from graphscope import nn, optim
from graphscope.trace import snapshot
from graphscope.trace.record.model import BackwardPass, Record
from graphscope.trace.record.training import ScalarSeries
from graphscope.trace.recording.recorder import Policy
from graphscope.trace.snapshot.format import SnapshotError
from tests.trace.snapshot_v7 import as_version_7
from tests.trace.trace_helpers import recorded


def trained():
    gs.manual_seed(1)
    net = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1), nn.Sigmoid())
    opt = optim.Adam(net.parameters(), lr=0.01)
    x, y = gs.randn(6, 2), gs.rand(6, 1)

    def run():
        for _ in range(4):
            opt.zero_grad()
            ((net(x) - y) ** 2).mean().backward()
            opt.step()

    _, rec, _ = recorded(run, Policy(keep_first=0, keep_last=1))
    rec.training.scalars["train/acc"] = ScalarSeries(
        "train/acc", np.array([0, 10]), np.array([0.5, math.nan]), np.array([1, 4])
    )
    return rec


def doc_of(rec):
    return json.loads(snapshot.dumps(rec))


def test_a_recorded_series_reads_back_as_it_was_nan_and_scalars_included():
    rec = trained()
    back = snapshot.loads(snapshot.dumps(rec))
    assert back.training == rec.training
    assert list(back.training.activations) == ["net.0", "net.1", "net.2", "net.3"]
    assert back.training.activations["net.3"].kind == "sigmoid"
    assert np.isnan(back.training.scalars["train/acc"].value[1])
    assert back.training.params["0.weight"].lr.tolist() == [0.01] * 4


def test_a_version_6_file_opens_with_the_series_its_passes_tell():
    rec = trained()
    doc = as_version_7(rec)
    doc["version"] = 6
    del doc["training"]
    t = snapshot.loads(json.dumps(doc)).training
    assert t.passes == 4
    np.testing.assert_array_equal(t.loss, rec.training.loss)
    for name, series in rec.training.params.items():
        np.testing.assert_array_equal(t.params[name].grad_norm, series.grad_norm)
        assert np.isnan(t.params[name].update_ratio).all() and np.isnan(t.params[name].lr).all()
    assert t.activations == {} and t.scalars == {}


def test_a_record_built_with_passes_has_the_series_they_tell():
    rec = Record(passes=[BackwardPass(0, loss=2.0, grad_norms={"w": 3.0}), BackwardPass(1, loss=None)])
    t = rec.training
    assert t.passes == 2 and t.loss.tolist()[0] == 2.0 and math.isnan(t.loss[1])
    assert t.params["w"].grad_norm.tolist()[0] == 3.0 and math.isnan(t.params["w"].grad_norm[1])
    assert snapshot.loads(snapshot.dumps(rec)) == rec


def test_a_series_of_another_length_than_the_passes_is_written_as_the_passes_tell_with_its_scalars():
    rec = Record(passes=[BackwardPass(0, loss=1.5)])
    rec.passes.append(BackwardPass(1, loss=0.5))  # the series still says one pass
    rec.training.scalars["lr"] = ScalarSeries("lr", np.array([3]), np.array([0.1]), np.array([2]))
    t = snapshot.loads(snapshot.dumps(rec)).training
    assert t.passes == 2 and t.loss.tolist() == [1.5, 0.5]
    assert t.scalars == rec.training.scalars


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.pop("loss"), 'training: missing "loss"'),
        (lambda t: t.update(passes=3), "training.loss: expected 32 base64 characters for 3 float64 values, found 44"),
        (
            lambda t: t["activations"][0].update(kind="gelu"),
            "training.activations[0].kind: unknown activation kind 'gelu': expected one of relu, tanh, sigmoid, other",
        ),
        (lambda t: t["params"][0].update(lr="AAAA"), "training.params[0].lr: expected 44 base64 characters"),
        (
            lambda t: t["scalars"][0].update(count=3),
            "training.scalars[0].step.data: holds 2 bytes; 3 uint8 values take 3",
        ),
    ],
)
def test_a_malformed_series_is_refused_naming_the_place(change, message):
    doc = doc_of(trained())
    change(doc["training"])
    with pytest.raises(SnapshotError) as e:
        snapshot.loads(json.dumps(doc))
    assert message in str(e.value)


def test_a_version_7_file_without_the_series_is_refused():
    doc = doc_of(trained())
    del doc["training"]
    with pytest.raises(SnapshotError, match='missing "training"'):
        snapshot.loads(json.dumps(doc))


def test_a_series_whose_length_is_not_the_passes_is_inconsistent():
    doc = doc_of(trained())
    doc["training"] = doc_of(Record(passes=[BackwardPass(i) for i in range(3)]))["training"]
    with pytest.raises(
        SnapshotError, match=r"inconsistent at training\.passes: the series has 3 passes; the snapshot has 4"
    ):
        snapshot.loads(json.dumps(doc))


def test_a_scalar_logged_in_a_pass_past_the_run_is_inconsistent():
    doc = doc_of(trained())
    doc["training"]["scalars"][0]["pass"] = doc_of(_with_scalar_pass(9))["training"]["scalars"][0]["pass"]
    with pytest.raises(SnapshotError, match=r"inconsistent at training\.scalars\[0\]\.pass\[1\]: pass 9 of a run of 4"):
        snapshot.loads(json.dumps(doc))


def _with_scalar_pass(last):
    rec = Record(passes=[BackwardPass(i) for i in range(last)])
    rec.training.scalars["t"] = ScalarSeries("t", np.array([0, 1]), np.array([0.0, 1.0]), np.array([1, last]))
    return rec
