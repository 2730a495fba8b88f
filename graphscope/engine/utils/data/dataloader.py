"""DataLoader: batches from a dataset in a sampler's order, collated into tensors, in the main process."""

from __future__ import annotations

import functools
import multiprocessing
import sys
import warnings

from ... import accelerator
from .collate import default_collate, default_convert
from .dataset import IterableDataset, Subset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler


class DataLoader:
    """Iterates over `dataset` in batches of `batch_size` (None: one sample at a time), shuffled
    each pass if `shuffle`, with torch's options and checks. Workers (`num_workers` > 0) are accepted and
    checked as torch's, and the batches loaded in the main process all the same: the same batches in the
    same order, and ops the debugger sees."""

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
        in_order=True,
    ):
        # worker_init_fn, multiprocessing_context, pin_memory_device and in_order concern workers or
        # pinned memory, which a main-process loader has none of: accepted as torch's, unused.
        prefetch_factor = _checked_process_options(num_workers, timeout, prefetch_factor, persistent_workers)
        multiprocessing_context = _checked_context(multiprocessing_context, num_workers)
        if num_workers > 0:
            _say_workers_load_in_the_main_process()
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
                if value not in (None, False):
                    raise ValueError(
                        f"DataLoader with IterableDataset: expected unspecified {name} option, but got {name}={value}"
                    )
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None and not iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None:
            # An IterableDataset's own items are grouped, in the order it yields them.
            batch_sampler = BatchSampler(dataset if iterable else sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self.generator = generator
        self.collate_fn = collate_fn or (default_convert if batch_sampler is None else default_collate)

    def __iter__(self):
        if self.pin_memory and not accelerator.is_available():
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, "
                "then device pinned memory won't be used.",
                stacklevel=2,
            )
        collate, dataset = self.collate_fn, self.dataset
        if isinstance(dataset, IterableDataset):
            yield from map(collate, dataset if self.batch_sampler is None else self.batch_sampler)
        elif self.batch_sampler is None:
            for index in self.sampler:
                yield collate(dataset[index])
        else:
            getitems = getattr(dataset, "__getitems__", None)
            gather = collate is default_collate and getitems is None
            for indices in self.batch_sampler:
                batch = _gathered(dataset, indices) if gather else None
                if batch is None:
                    batch = collate(getitems(indices) if getitems else [dataset[i] for i in indices])
                yield batch

    def __len__(self):
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.dataset if self.sampler is None else self.sampler)


def _gathered(dataset, indices):
    """The batch default_collate makes from a TensorDataset's samples (or a Subset's of one), gathered
    with one index per tensor rather than a getitem per sample and a stack (~10x faster); else None."""
    while type(dataset) is Subset:
        indices = [int(dataset.indices[i]) for i in indices]
        dataset = dataset.dataset
    if type(dataset) is not TensorDataset:
        return None
    return [t[indices] for t in dataset.tensors]


def _checked_process_options(num_workers, timeout, prefetch_factor, persistent_workers):
    """torch's checks of the worker options; the prefetch_factor torch keeps (2 with workers, by default)."""
    if not isinstance(num_workers, int) or num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
            "to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if num_workers > 0 and prefetch_factor is None:
        return 2
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    return prefetch_factor


def _checked_context(context, num_workers):
    """torch's checks of multiprocessing_context: a start method's name (made a context) or a context."""
    if context is None:
        return None
    if num_workers == 0:
        raise ValueError(
            "multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
            f"but got num_workers={num_workers}"
        )
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError(
                f"multiprocessing_context option should specify a valid start method in {methods!r}, "
                f"but got multiprocessing_context={context!r}"
            )
        context = multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError(
            "multiprocessing_context option should be a valid context object or a string specifying "
            f"the start method, but got multiprocessing_context={context}"
        )
    return context


@functools.cache
def _say_workers_load_in_the_main_process() -> None:
    """Once per process, one line on stderr: the workers asked for are not started, and why."""
    print(
        "graphscope: DataLoader(num_workers>0) loads its batches in the main process, where the debugger "
        "sees every op (the same batches, in the same order)",
        file=sys.stderr,
    )
