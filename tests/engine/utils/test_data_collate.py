"""default_collate and default_convert give torch's batches: the same containers, tensors, dtypes and errors."""

from collections import namedtuple

import numpy as np
import pytest
import torch
from torch.utils import data as torch_data

import graphscope as gs
from graphscope.utils import data
from tests.engine.utils.data_reference import same, torch_error

Point = namedtuple("Point", "x y")

# Each case builds a batch for a library (tensors made by it); NumPy values and plain Python are shared.
BATCHES = {
    "tensors": lambda lib: [lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])],
    "0-d tensors": lambda lib: [lib.tensor(1), lib.tensor(2)],
    "floats": lambda lib: [1.5, 2],
    "ints": lambda lib: [1, 2, 3],
    "bools": lambda lib: [True, False],
    "tuples": lambda lib: [(1, 2.0), (3, 4.0)],
    "lists": lambda lib: [[1, 2], [3, 4]],
    "dicts with strings": lambda lib: [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}],
    "named tuples": lambda lib: [Point(1, lib.zeros(2)), Point(3, lib.ones(2))],
    "numpy float64 arrays": lambda lib: [np.zeros(2), np.ones(2)],
    "numpy int32 arrays": lambda lib: [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32)],
    "numpy float32 scalars": lambda lib: [np.float32(1), np.float32(2)],
    "numpy int32 scalars": lambda lib: [np.int32(1), np.int32(2)],
    "numpy float64 scalars": lambda lib: [np.float64(1), np.float64(2)],
    "strings": lambda lib: ["a", "b"],
    "bytes": lambda lib: [b"a", b"b"],
    "nested": lambda lib: [([lib.tensor(1.0), {"k": 2}], "s"), ([lib.tensor(3.0), {"k": 4}], "t")],
}


@pytest.mark.parametrize("batch", BATCHES)
def test_default_collate_as_torch(batch):
    same(data.default_collate(BATCHES[batch](gs)), torch_data.default_collate(BATCHES[batch](torch)))


SAMPLES = {
    "tensor": lambda lib: lib.tensor([1.0, 2.0]),
    "tuple": lambda lib: (np.zeros(2), 3),
    "list": lambda lib: [np.ones(1, dtype=np.float32), "x"],
    "dict": lambda lib: {"a": np.ones(1), "b": 2.5},
    "named tuple": lambda lib: Point(np.int64(3), 1),
    "numpy scalar": lambda lib: np.float64(2),
    "number": lambda lib: 7,
    "string": lambda lib: "text",
}


@pytest.mark.parametrize("sample", SAMPLES)
def test_default_convert_as_torch(sample):
    same(data.default_convert(SAMPLES[sample](gs)), torch_data.default_convert(SAMPLES[sample](torch)))


def test_default_convert_leaves_a_numpy_string_array_alone():
    strings = np.array(["a", "b"])
    assert data.default_convert(strings) is strings
    assert torch_data.default_convert(strings) is strings


@pytest.mark.parametrize(
    "batch",
    [
        lambda lib: [[1, 2], [3]],
        lambda lib: [object()],
        lambda lib: [np.array(["a"])],
    ],
    ids=["unequal sizes", "object", "numpy strings"],
)
def test_default_collate_errors_as_torch(batch):
    kind, message = torch_error(lambda: torch_data.default_collate(batch(torch)))
    with pytest.raises(kind) as caught:
        data.default_collate(batch(gs))
    assert str(caught.value) == message


def test_default_collate_of_unequal_tensors_says_which():
    torch_error(lambda: torch_data.default_collate([torch.zeros(2), torch.zeros(3)]))
    with pytest.raises(
        RuntimeError,
        match=r"stack expects each tensor to be equal size, but got \(2,\) at entry 0 "
        r"and \(3,\) at entry 1",
    ):
        data.default_collate([gs.zeros(2), gs.zeros(3)])


def test_default_collate_keeps_tensors_on_their_device():
    batch = data.default_collate([gs.zeros(2), gs.ones(2)])
    assert batch.device == gs.get_default_device()
