"""DataLoader: batches, lengths, shuffling and errors as torch.utils.data's, in the main process."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
from torch.utils import data as torch_data

import graphscope as gs
from graphscope.utils import data
from tests.engine.utils.data_reference import raises_as_torch, same
from tests.graphscope_command import HANG_SECONDS, env


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
    "negative prefetch_factor": dict(num_workers=2, prefetch_factor=-1),
    "context without workers": dict(multiprocessing_context="spawn"),
    "unknown start method": dict(num_workers=2, multiprocessing_context="threads"),
    "context of another type": dict(num_workers=1, multiprocessing_context=3),
}


@pytest.mark.parametrize("options", ERRORS)
def test_option_errors_as_torch(options):
    raises_as_torch(
        lambda: data.DataLoader(tensor_dataset(gs), **ERRORS[options]),
        lambda: torch_data.DataLoader(tensor_dataset(torch), **ERRORS[options]),
    )


WORKER_OPTIONS = dict(num_workers=2, persistent_workers=True, prefetch_factor=3, worker_init_fn=print)


def test_workers_give_torchs_batches_in_torchs_order():
    got = data.DataLoader(Numbers(7), batch_size=3, **WORKER_OPTIONS)
    expected = torch_data.DataLoader(Numbers(7), batch_size=3, **WORKER_OPTIONS)  # real worker processes
    same(list(got), list(expected))
    assert len(got) == len(expected) == 3


def test_workers_shuffle_as_the_main_process_does():
    def order(**options):
        loader = data.DataLoader(
            tensor_dataset(gs, 20), 5, shuffle=True, generator=gs.Generator().manual_seed(4), **options
        )
        return [x.cpu().numpy().tolist() for x, _ in loader]

    assert order(num_workers=3) == order()


def test_worker_options_are_kept_as_torch():
    for lib in (gs, torch):
        loader = lib_data(lib).DataLoader(tensor_dataset(lib), num_workers=2, multiprocessing_context="spawn")
        assert (loader.num_workers, loader.prefetch_factor, loader.persistent_workers) == (2, 2, False)
        assert loader.multiprocessing_context.get_start_method() == "spawn"
        assert lib_data(lib).DataLoader(tensor_dataset(lib)).prefetch_factor is None


def test_workers_are_said_once_on_stderr(tmp_path):
    script = tmp_path / "workers.py"
    script.write_text(
        "import graphscope as gs\n"
        "from graphscope.utils import data\n"
        "dataset = data.TensorDataset(gs.arange(6.0))\n"
        "for workers in (2, 4):\n"
        "    print([x.tolist() for x, in data.DataLoader(dataset, batch_size=4, num_workers=workers)])\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True, env=env(), timeout=HANG_SECONDS
    )
    assert done.stdout == "[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0]]\n" * 2
    assert done.stderr.splitlines() == [
        "graphscope: DataLoader(num_workers>0) loads its batches in the main process, where the debugger "
        "sees every op (the same batches, in the same order)"
    ]


def test_pin_memory_warns_as_torch_without_an_accelerator():
    for lib in (gs, torch):
        loader = lib_data(lib).DataLoader(tensor_dataset(lib), pin_memory=True)
        if lib.accelerator.is_available():
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                list(loader)
        else:
            with pytest.warns(UserWarning, match="^'pin_memory' argument is set as true but no accelerator is found"):
                list(loader)
