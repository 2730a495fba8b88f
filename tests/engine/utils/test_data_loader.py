"""DataLoader: batches, lengths, shuffling and errors as torch.utils.data's, in the main process."""

import numpy as np
import pytest
import torch
from torch.utils import data as torch_data

import graphscope as gs
from graphscope.utils import data
from tests.engine.utils.data_reference import raises_as_torch, same


def tensor_dataset(lib, n=10):
    return lib_data(lib).TensorDataset(lib.arange(float(n)), lib.arange(2 * n).reshape(n, 2))


def lib_data(lib):
    return data if lib is gs else torch_data


class Numbers:
    """A map-style dataset of (numpy array, int, dict) samples, not derived from Dataset (torch allows it)."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return np.full(3, i, dtype=np.float32), i, {"label": f"#{i}", "weight": i / 2}

    def __len__(self):
        return self.n


def doubled(lib):
    """A TensorDataset subclass whose own __getitem__ must be used, not the loader's gather of rows."""

    class Doubled(lib_data(lib).TensorDataset):
        def __getitem__(self, i):
            x, y = super().__getitem__(i)
            return x * 2, y

    return Doubled(*tensor_dataset(lib).tensors)


LOADERS = {
    "batch 4": lambda lib: lib_data(lib).DataLoader(tensor_dataset(lib), batch_size=4),
    "batch 4, drop_last": lambda lib: lib_data(lib).DataLoader(tensor_dataset(lib), batch_size=4, drop_last=True),
    "batch 5, drop_last": lambda lib: lib_data(lib).DataLoader(tensor_dataset(lib), batch_size=5, drop_last=True),
    "batch 20": lambda lib: lib_data(lib).DataLoader(tensor_dataset(lib), batch_size=20),
    "batch 20, drop_last": lambda lib: lib_data(lib).DataLoader(tensor_dataset(lib), batch_size=20, drop_last=True),
    "default batch": lambda lib: lib_data(lib).DataLoader(tensor_dataset(lib, 3)),
    "batch_size=None": lambda lib: lib_data(lib).DataLoader(tensor_dataset(lib, 3), batch_size=None),
    "shuffle=False": lambda lib: lib_data(lib).DataLoader(tensor_dataset(lib), batch_size=3, shuffle=False),
    "sampler list": lambda lib: lib_data(lib).DataLoader(tensor_dataset(lib), batch_size=2, sampler=[9, 8, 7]),
    "batch_sampler": lambda lib: lib_data(lib).DataLoader(
        tensor_dataset(lib), batch_sampler=lib_data(lib).BatchSampler(range(10), 3, False)
    ),
    "collate_fn": lambda lib: lib_data(lib).DataLoader(tensor_dataset(lib, 4), batch_size=2, collate_fn=lambda b: b),
    "mixed samples": lambda lib: lib_data(lib).DataLoader(Numbers(5), batch_size=2),
    "mixed samples, unbatched": lambda lib: lib_data(lib).DataLoader(Numbers(2), batch_size=None),
    "list of dicts": lambda lib: lib_data(lib).DataLoader(
        [{"x": lib.zeros(2), "y": 1}, {"x": lib.ones(2), "y": 2}, {"x": lib.ones(2), "y": 3}], batch_size=2
    ),
    "dataset subclass": lambda lib: lib_data(lib).DataLoader(doubled(lib), batch_size=4),
    "subset of a subset": lambda lib: lib_data(lib).DataLoader(
        lib_data(lib).Subset(lib_data(lib).Subset(tensor_dataset(lib), [9, 7, 1, 4]), [3, 0, 1]), batch_size=2
    ),
    "subset": lambda lib: lib_data(lib).DataLoader(lib_data(lib).Subset(tensor_dataset(lib), [7, 1, 4]), batch_size=2),
}


@pytest.mark.parametrize("loader", LOADERS)
def test_batches_and_length_as_torch(loader):
    got, expected = LOADERS[loader](gs), LOADERS[loader](torch)
    same(list(got), list(expected))
    assert len(got) == len(expected)


class Stream:
    """An IterableDataset of 0..n-1 (with a length if asked), built for either library."""

    @staticmethod
    def make(lib, n=7, sized=False):
        class Counting(lib_data(lib).IterableDataset):
            def __iter__(self):
                return iter(range(n))

        class Sized(Counting):
            def __len__(self):
                return n

        return Sized() if sized else Counting()


@pytest.mark.parametrize(
    "options", [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None), dict()], ids=str
)
def test_iterable_dataset_batches_and_length_as_torch(options):
    got = data.DataLoader(Stream.make(gs, sized=True), **options)
    expected = torch_data.DataLoader(Stream.make(torch, sized=True), **options)
    same(list(got), list(expected))
    assert len(got) == len(expected)


def test_iterable_dataset_without_length_has_no_loader_length_as_torch():
    raises_as_torch(
        lambda: len(data.DataLoader(Stream.make(gs), batch_size=3)),
        lambda: len(torch_data.DataLoader(Stream.make(torch), batch_size=3)),
    )


@pytest.mark.parametrize("options", [dict(shuffle=True), dict(sampler=[1]), dict(batch_sampler=[[1]])], ids=str)
def test_iterable_dataset_refuses_an_order_as_torch(options):
    raises_as_torch(
        lambda: data.DataLoader(Stream.make(gs), **options),
        lambda: torch_data.DataLoader(Stream.make(torch), **options),
    )


ERRORS = {
    "sampler and shuffle": dict(batch_size=3, shuffle=True, sampler=[0, 1]),
    "batch_sampler and batch_size": dict(batch_size=3, batch_sampler=[[0, 1]]),
    "batch_sampler and drop_last": dict(batch_sampler=[[0, 1]], drop_last=True),
    "batch_sampler and shuffle": dict(batch_sampler=[[0, 1]], shuffle=True),
    "batch_size None and drop_last": dict(batch_size=None, drop_last=True),
    "negative num_workers": dict(num_workers=-1),
    "negative timeout": dict(timeout=-1),
    "batch_size 0": dict(batch_size=0),
    "float batch_size": dict(batch_size=2.5),
    "int drop_last": dict(drop_last=1),
    "prefetch_factor": dict(prefetch_factor=2),
    "persistent_workers": dict(persistent_workers=True),
}


@pytest.mark.parametrize("options", ERRORS)
def test_option_errors_as_torch(options):
    raises_as_torch(
        lambda: data.DataLoader(tensor_dataset(gs), **ERRORS[options]),
        lambda: torch_data.DataLoader(tensor_dataset(torch), **ERRORS[options]),
    )


def test_workers_are_refused_with_what_to_do():
    with pytest.raises(
        NotImplementedError,
        match=r"DataLoader\(num_workers=2\): graphscope loads batches in the "
        r"main process only.*pass num_workers=0",
    ):
        data.DataLoader(tensor_dataset(gs), num_workers=2)


def test_shuffle_visits_every_sample_once_per_epoch_in_a_new_order():
    loader = data.DataLoader(tensor_dataset(gs, 30), batch_size=4, shuffle=True)
    epochs = [np.concatenate([x.cpu().numpy() for x, _ in loader]) for _ in range(2)]
    for epoch in epochs:
        assert sorted(epoch) == list(range(30))
    assert not np.array_equal(*epochs)
    assert [len(x) for x, _ in loader] == [4] * 7 + [2] and len(loader) == 8


def test_shuffle_follows_the_generator_and_the_global_seed():
    def order(generator=None):
        loader = data.DataLoader(tensor_dataset(gs, 20), batch_size=5, shuffle=True, generator=generator)
        return [x.cpu().numpy().tolist() for x, _ in loader]

    assert order(gs.Generator().manual_seed(2)) == order(gs.Generator().manual_seed(2))
    assert order(gs.Generator().manual_seed(2)) != order(gs.Generator().manual_seed(3))
    gs.manual_seed(6)
    first = order()
    gs.manual_seed(6)
    assert order() == first


def test_loader_attributes_as_torch():
    got = data.DataLoader(tensor_dataset(gs), batch_size=3, drop_last=True)
    expected = torch_data.DataLoader(tensor_dataset(torch), batch_size=3, drop_last=True)
    assert (got.batch_size, got.drop_last, got.num_workers, got.generator) == (
        expected.batch_size,
        expected.drop_last,
        expected.num_workers,
        expected.generator,
    )
    assert type(got.sampler).__name__ == type(expected.sampler).__name__ == "SequentialSampler"
    assert type(got.batch_sampler).__name__ == type(expected.batch_sampler).__name__ == "BatchSampler"
    shuffled = data.DataLoader(tensor_dataset(gs), shuffle=True)
    assert isinstance(shuffled.sampler, data.RandomSampler)
    unbatched = data.DataLoader(tensor_dataset(gs), batch_size=None)
    assert unbatched.batch_sampler is None and unbatched.collate_fn is data.default_convert


def test_batches_live_on_the_datasets_device():
    x, y = next(iter(data.DataLoader(tensor_dataset(gs), batch_size=4)))
    assert x.device == y.device == gs.get_default_device()


def test_graphscope_utils_data_is_reachable_as_torchs_is():
    import graphscope.utils.data as imported

    assert gs.utils.data is imported is data
    assert gs.utils.data.DataLoader is data.DataLoader


def test_as_torch_aliases_torch_utils_data():
    from graphscope.session.torch_alias import TorchAliases

    with TorchAliases():
        import torch as aliased
        import torch.utils.data as aliased_data
        from torch.utils.data import DataLoader, TensorDataset

        assert DataLoader is data.DataLoader and TensorDataset is data.TensorDataset
        assert aliased.utils.data.random_split is data.random_split
        assert aliased_data.Dataset is data.Dataset
        from torch.utils.data.dataloader import default_collate
        from torch.utils.data.dataset import Subset
        from torch.utils.data.sampler import SubsetRandomSampler

        assert (default_collate, Subset, SubsetRandomSampler) == (
            data.default_collate,
            data.Subset,
            data.SubsetRandomSampler,
        )
    assert torch.utils.data.DataLoader is torch_data.DataLoader
