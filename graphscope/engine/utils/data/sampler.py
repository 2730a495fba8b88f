"""Samplers: the order in which a DataLoader visits a dataset's indices, and their grouping into batches."""

from __future__ import annotations

from ...creation import randint, randperm, tensor
from ...ops import multinomial
from ...random import Generator

# Indices drawn with replacement are drawn in groups as they are used, never all num_samples at once
# (num_samples=int(1e10) is a way to say "as many as the script wants"): RandomSampler draws torch's 32
# at a time; WeightedRandomSampler, whose each draw reads every weight, more.
_DRAWN_AT_ONCE = 32
_WEIGHTED_DRAWN_AT_ONCE = 4096


class Sampler:
    """Yields dataset indices (or lists of them, for a batch sampler); subclasses give __iter__."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _positive_int(value, name: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


def _epoch_generator(generator) -> Generator:
    """`generator`, or a new CPU one seeded from the global generator (so manual_seed governs it)."""
    if generator is not None:
        return generator
    seed = int(randint(0, 2**62, (), device="cpu").item())
    return Generator("cpu").manual_seed(seed)


class RandomSampler(Sampler):
    """The indices in a random order (a new one each pass), or `num_samples` drawn with replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        _positive_int(self.num_samples, "num_samples")  # an empty dataset too, as torch

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = _epoch_generator(self.generator)
        if self.replacement:  # drawn 32 at a time, as torch: num_samples may be far more than memory holds
            for start in range(0, self.num_samples, _DRAWN_AT_ONCE):
                count = min(_DRAWN_AT_ONCE, self.num_samples - start)
                yield from randint(0, n, (count,), device="cpu", generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, device="cpu", generator=generator).tolist()
        yield from randperm(n, device="cpu", generator=generator).tolist()[: self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order, a new one each pass."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        order = randperm(len(self.indices), device="cpu", generator=self.generator).tolist()
        return (self.indices[i] for i in order)

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probabilities proportional to `weights`."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _positive_int(num_samples, "num_samples")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = tensor(weights, dtype="float64", device="cpu")
        if weights.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        if not self.replacement:  # at most one of each index: no more than the weights
            yield from multinomial(self.weights, self.num_samples, False, generator=self.generator).tolist()
            return
        for start in range(0, self.num_samples, _WEIGHTED_DRAWN_AT_ONCE):  # drawn as they are used
            count = min(_WEIGHTED_DRAWN_AT_ONCE, self.num_samples - start)
            yield from multinomial(self.weights, count, True, generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of `batch_size` indices from `sampler`; the last, shorter one is dropped if drop_last."""

    def __init__(self, sampler, batch_size, drop_last):
        _positive_int(batch_size, "batch_size")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return -(-len(self.sampler) // self.batch_size)  # noqa: PLE0303 (ceiling division: never negative)
