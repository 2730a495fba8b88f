"""Every sample, recorded: nodes whose source lines are the sample's own, a valid snapshot, named parameters."""

import json
import runpy
import sys
from importlib import resources
from pathlib import Path
from unittest import mock

import jsonschema
import pytest

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.record.model import PARAMETER
from graphscope.trace.recording.recorder import Recorder
from tests.brief_samples import BRIEF_ARGV

SAMPLES = sorted((Path(gs.__file__).resolve().parent.parent / "samples").glob("*.py"))
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


def test_every_pass_has_a_loss_and_grad_norms(recorded):
    _, rec = recorded
    for p in rec.passes:
        assert p.finished and p.grad_norms
