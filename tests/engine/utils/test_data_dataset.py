"""Datasets: TensorDataset, Subset, ConcatDataset and random_split behave as torch.utils.data's."""

import warnings

import pytest
import torch
from torch.utils import data as torch_data

import graphscope as gs
from graphscope.utils import data
from tests.engine.utils.data_reference import raises_as_torch, same, torch_error


def tensors(lib):
    return lib.arange(10.0), lib.arange(20).reshape(10, 2)


@pytest.mark.parametrize("index", [0, 3, -1, slice(2, 5)], ids=str)
def test_tensor_dataset_items_and_length_as_torch(index):
    got, expected = data.TensorDataset(*tensors(gs)), torch_data.TensorDataset(*tensors(torch))
    same(got[index], expected[index])
    assert len(got) == len(expected) == 10
    same(got.tensors, expected.tensors)


def test_tensor_dataset_needs_one_first_dimension():
    raises_as_torch(
        lambda: data.TensorDataset(gs.zeros(3), gs.zeros(4)),
        lambda: torch_data.TensorDataset(torch.zeros(3), torch.zeros(4)),
        ValueError,
    )
    with pytest.raises(TypeError, match="TensorDataset takes tensors, got list"):
        data.TensorDataset([1, 2])


def test_a_dataset_without_getitem_says_what_to_write():
    raises_as_torch(lambda: data.Dataset()[0], lambda: torch_data.Dataset()[0])
    torch_error(lambda: torch_data.IterableDataset())
    with pytest.raises(TypeError, match="Can't instantiate abstract class IterableDataset"):
        data.IterableDataset()


@pytest.mark.parametrize("index", [0, 9, 10, 15, 19, -1, -20], ids=str)
def test_adding_datasets_concatenates_them_as_torch(index):
    got = data.TensorDataset(*tensors(gs)) + data.TensorDataset(*tensors(gs))
    expected = torch_data.TensorDataset(*tensors(torch)) + torch_data.TensorDataset(*tensors(torch))
    assert isinstance(got, data.ConcatDataset) and len(got) == len(expected) == 20
    assert got.cumulative_sizes == expected.cumulative_sizes
    same(got[index], expected[index])


def test_concat_dataset_errors_as_torch():
    raises_as_torch(lambda: data.ConcatDataset([range(3)])[-4], lambda: torch_data.ConcatDataset([range(3)])[-4])
    raises_as_torch(lambda: data.ConcatDataset([]), lambda: torch_data.ConcatDataset([]), ValueError)


@pytest.mark.parametrize("index", [1, [0, 1]], ids=str)
def test_subset_as_torch(index):
    got = data.Subset(data.TensorDataset(*tensors(gs)), [1, 3])
    expected = torch_data.Subset(torch_data.TensorDataset(*tensors(torch)), [1, 3])
    same(got[index], expected[index])
    assert len(got) == len(expected) == 2


@pytest.mark.parametrize(
    "size,lengths",
    [
        (10, [3, 7]),
        (10, [0.33, 0.33, 0.34]),
        (11, [0.5, 0.5]),
        (3, [0.1, 0.9]),
        (10, [0.25, 0.25, 0.5]),
    ],
    ids=str,
)
def test_random_split_lengths_as_torch(size, lengths):
    got = data.random_split(range(size), lengths)
    expected = torch_data.random_split(range(size), lengths)
    assert [len(s) for s in got] == [len(s) for s in expected]
    assert all(isinstance(s, data.Subset) for s in got)
    assert sorted(i for s in got for i in s) == list(range(size))


def test_random_split_warns_of_an_empty_split_as_torch():
    with pytest.warns(UserWarning) as expected:
        torch_data.random_split(range(2), [0.1, 0.1, 0.8])
    with pytest.warns(UserWarning) as got:
        data.random_split(range(2), [0.1, 0.1, 0.8])
    assert [str(w.message) for w in got] == [str(w.message) for w in expected]


@pytest.mark.parametrize("lengths", [[3, 3], [0.3, 0.3], [1.5, -0.5]], ids=str)
def test_random_split_errors_as_torch(lengths):
    raises_as_torch(lambda: data.random_split(range(10), lengths), lambda: torch_data.random_split(range(10), lengths))


def test_random_split_refuses_negative_lengths():
    with pytest.raises(ValueError, match="random_split: length at index 0 is -1; give non-negative integer lengths"):
        data.random_split(range(10), [-1, 11])


def test_random_split_follows_its_generator_and_the_global_seed():
    def split(generator=None):
        return [s.indices for s in data.random_split(range(20), [0.5, 0.5], generator=generator)]

    assert split(gs.Generator().manual_seed(1)) == split(gs.Generator().manual_seed(1))
    assert split(gs.Generator().manual_seed(1)) != split(gs.Generator().manual_seed(2))
    gs.manual_seed(4)
    first = split()
    gs.manual_seed(4)
    assert split() == first
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(split()) == 2
