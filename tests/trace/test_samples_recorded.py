"""Every sample, recorded: nodes whose source lines are the sample's own, a valid snapshot, named parameters,
and an export whose bytes are those committed in sample_export_digests.json (a refactor changes no byte)."""

import json
import os
import runpy
import subprocess
import sys
from importlib import resources
from pathlib import Path
from unittest import mock

import jsonschema
import numpy as np
import pytest

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.record.model import PARAMETER
from graphscope.trace.recording.recorder import Recorder
from tests.brief_samples import BRIEF_ARGV
from tests.trace.sample_digest import PINNED_ARITHMETIC
from tests.trace.snapshot_v7 import every_figure_stored

SAMPLES = sorted((Path(gs.__file__).resolve().parent.parent / "samples").glob("*.py"))
ROOT = Path(__file__).resolve().parents[2]
DIGESTS = Path(__file__).with_name("sample_export_digests.json")
SCHEMA = json.loads(resources.files("graphscope.trace.snapshot").joinpath("schema/snapshot.schema.json").read_text())


@pytest.fixture(scope="module", params=SAMPLES, ids=[p.name for p in SAMPLES])
def recorded(request):
    path = request.param
    argv = [str(path), *BRIEF_ARGV[path.name]]  # as `python sample.py N` would see it
    recorder = Recorder(script=str(path), argv=argv)
    with hooks.observe(recorder), mock.patch.object(sys, "argv", argv):
        runpy.run_path(str(path), run_name="__main__")
    return path, recorder.finish(0)


def test_the_sample_builds_a_graph(recorded):
    _, rec = recorded
    assert rec.nodes and rec.passes


def test_every_source_site_is_a_line_of_the_sample_with_its_text(recorded):
    path, rec = recorded
    lines = path.read_text().splitlines()
    sites = {n.site for n in rec.nodes.values() if n.site is not None}
    assert sites
    for site in sites:
        assert site.file == str(path)
        assert lines[site.line - 1].strip() == site.text


def test_parameters_have_names_and_module_paths_start_at_a_model(recorded):
    _, rec = recorded
    for node in rec.nodes.values():
        if node.op == PARAMETER:
            assert node.parameter
        if node.module is not None:
            assert node.module.split(".")[0].isidentifier()


def test_the_snapshot_round_trips_and_matches_the_schema(recorded, tmp_path):
    _, rec = recorded
    target = tmp_path / "snap.json"
    snapshot.dump(rec, target)
    assert snapshot.load(target) == rec
    jsonschema.validate(json.loads(target.read_text()), SCHEMA)


def test_statistics_left_out_of_the_export_are_derived_bit_for_bit_as_recorded(recorded):
    _, rec = recorded
    stored = snapshot.loads(json.dumps(every_figure_stored(rec))).nodes.columns().summaries  # as recorded
    derived = snapshot.loads(snapshot.dumps(rec)).nodes.columns().summaries
    assert np.array_equal(derived.stats.view(np.int64), stored.stats.view(np.int64))
    assert np.array_equal(derived.histogram, stored.histogram)


def test_every_pass_has_a_loss_and_grad_norms(recorded):
    _, rec = recorded
    for p in rec.passes:
        assert p.finished and p.grad_norms


# The samples whose digest run (a `python` of its own that records the sample again) takes about a second of CPU
# or more: the quick run (`-m "not slow"`) checks the bytes of the others' exports.
DIGEST_OVER_A_SECOND = {
    "char_bigram_mlp.py",
    "char_lstm.py",
    "small_cnn.py",
    "spiral_classifier.py",
    "tiny_transformer.py",
}


@pytest.mark.cpu_only  # the digests are of CPU recordings (a device's name is in the export)
@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.slow) if p.name in DIGEST_OVER_A_SECOND else p for p in SAMPLES],
    ids=[p.name for p in SAMPLES],
)
def test_the_export_is_byte_identical_to_the_committed_one(path):
    env = {**os.environ, **PINNED_ARITHMETIC, "PYTHONPATH": str(ROOT)}
    digest = subprocess.run(
        [sys.executable, "-m", "tests.trace.sample_digest", str(path)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()[-1]  # the sample prints its own lines first
    digests = json.loads(DIGESTS.read_text())
    if os.environ.get("GRAPHSCOPE_UPDATE_DIGESTS") == "1":  # after a change to the format that is meant
        DIGESTS.write_text(json.dumps({**digests, path.name: digest}, indent=1, sort_keys=True) + "\n")
        return
    assert digest == digests.get(path.name), (
        f"{path.name}'s export changed. If the snapshot format was meant to change, re-take the digests with "
        "GRAPHSCOPE_UPDATE_DIGESTS=1 python -m pytest tests/trace/test_samples_recorded.py -k byte_identical"
    )
