"""Snapshot JSON round trip: load(dump(record)) == record, strict JSON, and the shipped schema describes it."""

import json
import math
from importlib import resources

import jsonschema
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from graphscope.trace import snapshot
from graphscope.trace.record.limits import FIELDS, LONG_TEXT_LIMIT, NAME_LIMIT, TEXT_LIMIT
from graphscope.trace.record.model import BackwardPass, ConsoleLine, Metadata, Node, Record
from graphscope.trace.snapshot.parse import SECTIONS
from graphscope.trace.stats.summarize import summarize
from tests.trace.snapshot_v7 import every_figure_stored
from tests.trace.trace_strategies import records

SCHEMA = json.loads(resources.files("graphscope.trace.snapshot").joinpath("schema/snapshot.schema.json").read_text())


def _strict(text):
    def refuse(name):
        raise AssertionError(f"bare {name} in the JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(records())
def test_load_of_dump_equals_the_record(record):
    assert snapshot.loads(snapshot.dumps(record)) == record


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(records())
def test_every_generated_export_is_strict_json_valid_against_the_schema(record):
    jsonschema.validate(_strict(snapshot.dumps(record)), SCHEMA)


def test_round_trip_through_a_file(tmp_path):
    record = Record(
        metadata=Metadata(script="train.py"),
        nodes={0: Node(0, "tensor", output=summarize(np.arange(6.0).reshape(2, 3)))},
    )
    path = tmp_path / "snap.json"
    snapshot.dump(record, path)
    assert snapshot.load(path) == record


def test_non_finite_numbers_are_written_as_strings_and_read_back_as_floats():
    record = Record(passes=[BackwardPass(0, loss=math.nan, grad_norms={"w": math.inf, "b": -math.inf})])
    doc = _strict(snapshot.dumps(record))
    assert doc["passes"][0]["loss"] == "nan"
    assert doc["passes"][0]["grad_norms"] == {"w": "inf", "b": "-inf"}
    loaded = snapshot.loads(snapshot.dumps(record)).passes[0]
    assert math.isnan(loaded.loss) and loaded.grad_norms == {"w": math.inf, "b": -math.inf}


def test_export_opens_with_format_and_version():
    doc = _strict(snapshot.dumps(Record()))
    assert list(doc)[:2] == ["format", "version"]
    assert (doc["format"], doc["version"]) == ("graphscope-snapshot", snapshot.VERSION)


def test_a_version_4_file_without_console_stamps_still_loads():
    record = Record(console=[ConsoleLine("stdout", "epoch 1", 1, 3, 2)])
    doc = _strict(snapshot.dumps(record))
    assert doc["console"] == [{"stream": "stdout", "text": "epoch 1", "pass": 1, "step": 3, "events": 2}]
    doc["version"] = 4
    del doc["console"][0]["step"], doc["console"][0]["events"]
    assert snapshot.loads(json.dumps(doc)).console == [ConsoleLine("stdout", "epoch 1", 1)]


def test_output_is_ascii_even_for_unicode_text():
    record = Record(metadata=Metadata(script="模型.py"))
    text = snapshot.dumps(record)
    assert text.isascii() and snapshot.loads(text).metadata.script == "模型.py"


def test_the_schema_states_the_limits_of_the_limits_table():
    strings = {"name": NAME_LIMIT, "text": TEXT_LIMIT, "long_text": LONG_TEXT_LIMIT}
    assert {k: SCHEMA["$defs"][k]["maxLength"] for k in strings} == strings
    exit_code = SCHEMA["properties"]["metadata"]["properties"]["exit_code"]
    assert (exit_code["minimum"], exit_code["maximum"]) == FIELDS["metadata.exit_code"]
    assert set(FIELDS.values()) <= {*strings.values(), FIELDS["metadata.exit_code"]}


def test_the_schema_names_the_sections_a_reader_takes():
    assert set(SCHEMA["properties"]) == SECTIONS and SCHEMA["additionalProperties"] is False


@pytest.mark.parametrize("size, dtype", [(3, "uint8"), (300, "uint8"), (5000, "uint16")])
def test_histogram_counts_are_written_in_the_narrowest_dtype_that_holds_them(size, dtype):
    # 300 distinct values: no bin holds 256; 5,000 zeros: all in one bin
    values = np.zeros(size, dtype=np.float32) if size == 5000 else np.arange(size, dtype=np.float32)
    record = Record(nodes={0: Node(0, "tensor", output=summarize(values), is_leaf=True)})
    doc = every_figure_stored(record)  # (a histogram its values derive is not written: version 8)
    assert doc["tensors"]["histogram"]["dtype"] == dtype
    assert snapshot.loads(json.dumps(doc)) == record


def test_values_with_no_histogram_from_their_min_are_written_with_their_recorded_figures():
    # Values a summary's counts deny (a hostile file loaded and exported again: a NaN and an Inf counted as
    # none), and finite values whose range passes float64's (found by the schema test's records): the writer
    # keeps the recorded figures rather than derive any (it failed in NumPy's bincount on a negative bin).
    denied = summarize(np.array([1.0, np.nan, 2.0, np.inf], dtype=np.float32))
    denied.nan_count = denied.inf_count = 0
    wide = summarize(np.array([-1.7e308, 0.0, 1.7e308]))
    record = Record(nodes={0: Node(0, "tensor", output=denied), 1: Node(1, "tensor", output=wide)})
    loaded = snapshot.loads(snapshot.dumps(record)).nodes
    assert (loaded[0].output, loaded[1].output) == (denied, wide)
