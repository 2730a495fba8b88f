"""Samplers: orders, lengths and errors as torch.utils.data's; random ones reproducible under seeds."""

import tracemalloc
from collections import Counter

import numpy as np
import pytest
import torch
from torch.utils import data as torch_data

import graphscope as gs
from graphscope.utils import data
from tests.engine.utils.data_reference import raises_as_torch


def test_sequential_sampler_as_torch():
    assert list(data.SequentialSampler(range(5))) == list(torch_data.SequentialSampler(range(5))) == [0, 1, 2, 3, 4]
    assert len(data.SequentialSampler(range(5))) == 5


@pytest.mark.parametrize(
    "size,batch_size,drop_last", [(5, 2, False), (5, 2, True), (6, 3, True), (2, 5, False), (2, 5, True)], ids=str
)
def test_batch_sampler_as_torch(size, batch_size, drop_last):
    got = data.BatchSampler(range(size), batch_size, drop_last)
    expected = torch_data.BatchSampler(range(size), batch_size, drop_last)
    assert list(got) == list(expected)
    assert len(got) == len(expected)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.BatchSampler(range(5), 0, False),
        lambda lib: lib.BatchSampler(range(5), 2.5, False),
        lambda lib: lib.BatchSampler(range(5), True, False),
        lambda lib: lib.BatchSampler(range(5), 2, 1),
        lambda lib: lib.RandomSampler(range(5), replacement=1),
        lambda lib: lib.RandomSampler(range(5), num_samples=0),
        lambda lib: lib.RandomSampler(range(5), num_samples=2.0),
        lambda lib: lib.RandomSampler(range(0)),
        lambda lib: lib.WeightedRandomSampler([0.0, 1.0], 0),
        lambda lib: lib.WeightedRandomSampler([0.0, 1.0], 2, replacement=2),
        lambda lib: lib.WeightedRandomSampler([[0.0, 1.0]], 2),
    ],
    ids=[
        "batch_size 0",
        "float batch_size",
        "bool batch_size",
        "int drop_last",
        "int replacement",
        "0 samples",
        "float samples",
        "empty dataset",
        "weighted 0 samples",
        "weighted int replacement",
        "2-d weights",
    ],
)
def test_sampler_errors_as_torch(call):
    raises_as_torch(lambda: call(data), lambda: call(torch_data))


def test_random_sampler_gives_a_new_permutation_each_pass():
    sampler = data.RandomSampler(range(50))
    first, second = list(sampler), list(sampler)
    assert sorted(first) == sorted(second) == list(range(50)) and first != second
    assert len(sampler) == 50


def test_random_sampler_with_more_samples_than_items_repeats_whole_permutations():
    draws = list(data.RandomSampler(range(10), num_samples=25))
    assert len(draws) == len(data.RandomSampler(range(10), num_samples=25)) == 25
    assert sorted(draws[:10]) == sorted(draws[10:20]) == list(range(10)) and len(set(draws[20:])) == 5


def test_random_sampler_with_replacement_draws_in_range():
    gs.manual_seed(0)
    draws = list(data.RandomSampler(range(4), replacement=True, num_samples=4000))
    assert len(draws) == 4000 and set(draws) == {0, 1, 2, 3}
    np.testing.assert_allclose(np.bincount(draws) / 4000, 0.25, atol=0.04)


@pytest.mark.parametrize(
    "make",
    [
        lambda g: data.RandomSampler(range(30), generator=g),
        lambda g: data.RandomSampler(range(30), replacement=True, num_samples=40, generator=g),
        lambda g: data.SubsetRandomSampler(list(range(5, 35)), generator=g),
        lambda g: data.WeightedRandomSampler([1.0, 2.0, 3.0], 20, generator=g),
    ],
    ids=["random", "random with replacement", "subset random", "weighted"],
)
def test_random_samplers_follow_their_generator_and_the_global_seed(make):
    def run(g):
        sampler = make(g)
        return list(sampler), list(sampler)

    first, second = run(gs.Generator().manual_seed(3))
    assert (first, second) == run(gs.Generator().manual_seed(3)) and first != second
    assert first != run(gs.Generator().manual_seed(4))[0]
    gs.manual_seed(8)
    unseeded = run(None)
    gs.manual_seed(8)
    assert run(None) == unseeded


def test_subset_random_sampler_permutes_the_given_indices():
    sampler = data.SubsetRandomSampler([4, 5, 6, 9])
    assert sorted(sampler) == [4, 5, 6, 9] and len(sampler) == 4


def test_weighted_random_sampler_follows_the_weights():
    gs.manual_seed(0)
    draws = list(data.WeightedRandomSampler([0.0, 1.0, 3.0], 8000))
    counts = Counter(draws)
    assert set(counts) == {1, 2} and len(draws) == 8000
    assert abs(counts[2] / 8000 - 0.75) < 0.03
    without = list(data.WeightedRandomSampler([0.0, 1.0, 0.5, 2.0], 3, replacement=False))
    assert sorted(without) == [1, 2, 3]


def peak_bytes_of_first_draws(sampler, count=100) -> tuple[list, int]:
    """The first `count` indices a sampler yields, and the most memory drawing them held at once."""
    tracemalloc.start()
    try:
        iterator = iter(sampler)
        draws = [next(iterator) for _ in range(count)]
        return draws, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, n: lib.RandomSampler(range(10), replacement=True, num_samples=n),
        lambda lib, n: lib.WeightedRandomSampler([1.0, 2.0, 3.0], n),
    ],
    ids=["random with replacement", "weighted"],
)
def test_samples_with_replacement_are_drawn_as_used_not_all_at_once(make):
    draws, peak = peak_bytes_of_first_draws(make(data, 10**7))  # all at once: 80 MB of int64
    assert all(0 <= i < 10 for i in draws) and peak < 2**20
    assert len(make(data, int(1e10))) == len(make(torch_data, int(1e10))) == 10**10


def test_a_loader_on_a_sampler_of_1e10_samples_gives_its_first_batches_as_torch_does():
    """makemore's loader: an endless supply of random batches."""
    for lib in (data, torch_data):
        dataset = lib.TensorDataset((gs if lib is data else torch).arange(20.0))
        sampler = lib.RandomSampler(dataset, replacement=True, num_samples=int(1e10))
        loader = lib.DataLoader(dataset, batch_size=32, sampler=sampler)
        batches = iter(loader)
        for _ in range(3):
            (x,) = next(batches)
            assert tuple(x.shape) == (32,)
        assert len(loader) == 312500000
