"""A loaded snapshot's values stay base64 until read: a row decoded alone is the row of the whole pool."""

import binascii
import json

import numpy as np
import pytest

from graphscope.trace import snapshot
from graphscope.trace.record.encoded_pool import EncodedPool
from graphscope.trace.record.model import Node, Record
from graphscope.trace.snapshot import SnapshotError
from graphscope.trace.stats.summarize import summarize


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "uint8", "bool", "float16"])
def test_every_run_of_values_decoded_alone_equals_that_run_of_the_whole_pool(dtype):
    values = (np.arange(23) * 7 % 5).astype(dtype)
    pool = EncodedPool(binascii.b2a_base64(values.tobytes(), newline=False), np.dtype(dtype), values.size)
    runs = [(a, b) for a in range(values.size + 1) for b in range(a, values.size + 1)]
    alone = [pool[a:b] for a, b in runs]
    assert all(np.array_equal(part, values[a:b]) and part.dtype == values.dtype for part, (a, b) in zip(alone, runs))
    assert np.array_equal(pool.decoded(), values) and not pool.decoded().flags.writeable
    assert all(np.array_equal(pool[a:b], part) for part, (a, b) in zip(alone, runs))  # from the decoded pool now


def _record() -> Record:
    nodes = {
        i: Node(i, "tensor", output=summarize(np.arange(i, i + 200, dtype=np.float32) / 3), is_leaf=True)
        for i in range(3)
    }
    return Record(nodes=nodes)  # type: ignore[arg-type]  # Record makes its NodeTable of the dict


def test_a_loaded_records_previews_and_values_read_as_they_were_recorded_and_write_back_the_same():
    record = _record()
    text = snapshot.dumps(record)
    loaded = snapshot.loads(text)
    assert loaded == record
    assert snapshot.dumps(loaded) == text


@pytest.mark.parametrize("bad, problem", [("!", "character 5 is '!'"), ("=", "character 5 is '='")])
def test_values_outside_the_base64_alphabet_are_refused_with_the_place(bad, problem):
    doc = json.loads(snapshot.dumps(_record()))
    text = doc["tensors"]["values"]["float32"]
    doc["tensors"]["values"]["float32"] = text[:5] + bad + text[6:]
    with pytest.raises(SnapshotError) as refused:
        snapshot.loads(json.dumps(doc).encode())  # bytes: the values are lifted out of the text
    assert refused.value.where == "tensors.values.float32" and problem in refused.value.problem
