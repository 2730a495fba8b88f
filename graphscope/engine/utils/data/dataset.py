"""Datasets as torch.utils.data has them: map-style and iterable, tensors, subsets, concatenation, random_split."""

from __future__ import annotations

import bisect
import collections.abc
import itertools
import math
import warnings

from ...creation import randperm
from ...tensor import Tensor


class Dataset:
    """A map-style dataset: subclasses give __getitem__ (and usually __len__)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset, collections.abc.Iterable):
    """A dataset read as a stream: subclasses give __iter__ (it is abstract); a DataLoader batches what it yields."""


class TensorDataset(Dataset):
    """Sample i is (t[i] for t in tensors): every tensor must have the same first dimension."""

    def __init__(self, *tensors: Tensor):
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset takes tensors, got {type(t).__name__}")
        sizes = [t.shape[0] if t.ndim else None for t in tensors]
        if len(set(sizes)) > 1 or None in sizes:
            raise ValueError(
                f"Size mismatch between tensors: their first dimensions are {sizes}, and "
                "TensorDataset needs one size for all (the number of samples)"
            )
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class ConcatDataset(Dataset):
    """Several map-style datasets, one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None) -> list[Subset]:
    """Split `dataset` at random into Subsets of the given lengths, or fractions summing to 1."""
    lengths = list(lengths)
    if lengths and math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _counts(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError(
            "Sum of input lengths does not equal the length of the input dataset! "
            f"({sum(lengths)} != {len(dataset)}; give lengths, or fractions that sum to 1)"
        )
    for i, length in enumerate(lengths):
        if not isinstance(length, int) or length < 0:
            raise ValueError(
                f"random_split: length at index {i} is {length!r}; give non-negative integer "
                "lengths, or fractions that sum to 1"
            )
    indices = randperm(sum(lengths), device="cpu", generator=generator).tolist()
    return [Subset(dataset, indices[end - length : end]) for end, length in zip(itertools.accumulate(lengths), lengths)]


def _counts(fractions, total: int) -> list[int]:
    """Fractions of `total` as whole counts, the remainder handed out one by one from the first."""
    counts = []
    for i, fraction in enumerate(fractions):
        if not 0 <= fraction <= 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        counts.append(math.floor(total * fraction))
    for i in range(total - sum(counts)):
        counts[i % len(counts)] += 1
    for i, count in enumerate(counts):
        if count == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.", stacklevel=3)
    return counts
