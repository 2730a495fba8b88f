"""TensorSummary: what the debugger shows of a tensor (the type; `summary` computes it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import NDArray

from .equality import Same

HISTOGRAM_BINS = 16
PREVIEW_SIZE = 64
FULL_VALUES_LIMIT = 4096
# Histograms count every finite value up to this many; past it they are estimated from an
# evenly strided sample of this size, scaled to the finite count (binning costs several
# nanoseconds an element, the rest of a summary well under one).
HISTOGRAM_EXACT = 4096

# Host dtypes a preview or full values may have (and a snapshot may carry); anything
# else is converted to float64 on its way to the host.
ARRAY_DTYPES = frozenset(
    {
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
    }
)


def host_dtype(dtype: str) -> np.dtype:
    """The NumPy dtype a summary's preview and values are kept in (float64 for any other)."""
    return np.dtype(dtype if dtype in ARRAY_DTYPES else "float64")


EMPTY = np.zeros(0, dtype=np.float64)
EMPTY.flags.writeable = False
NO_COUNTS = np.zeros(0, dtype=np.int64)
NO_COUNTS.flags.writeable = False


@dataclass(eq=False, slots=True)
class TensorSummary(Same):
    """Shape, dtype, statistics of the finite values, NaN/Inf/zero counts, histogram, preview.

    min/max/mean/std/norm and the histogram cover the finite values only (None when there
    are none); the NaNs and Infs are counted apart. std is the sample std (as `Tensor.std()`).
    The histogram (16 int64 counts, read-only; empty when no value is finite) has equal bins
    from min to max, all counts in bin 0 when min == max; on the CPU, past 4,096 finite values
    it is estimated from an evenly strided sample of about 4,096 and scaled to the finite count
    (another device bins every value: a device's bincount is cheap).
    `preview` holds the first 64 elements in row-major order, `values` every element
    (in the tensor's shape) when there are at most `full_values_limit`; both are read-only
    NumPy host arrays. `dropped` says the memory budget took them away.

    A summary of a small array kept whole may be made `deferred`: its statistics and histogram
    are worked out, bit for bit as they would have been at once, when one of them is first read
    (`pending` says from where until then): a kept value needs no statistics until it is shown.
    """

    shape: tuple[int, ...]
    dtype: str
    device: str = "cpu"
    numel: int = 0
    min: float | int | None = None
    max: float | int | None = None
    mean: float | None = None
    std: float | None = None
    norm: float | None = None
    nan_count: int = 0
    inf_count: int = 0
    zero_fraction: float = 0.0
    histogram: np.ndarray = field(default_factory=lambda: NO_COUNTS)  # int64 counts
    preview: np.ndarray = field(default_factory=lambda: EMPTY)
    values: np.ndarray | None = None
    dropped: bool = False
    # (the batch that works out its figures, its index there), until they are read; then None
    pending: tuple[PendingFigures, int] | None = field(default=None, compare=False, repr=False)

    if not TYPE_CHECKING:  # (mypy would take any attribute name of a class with __getattr__)

        def __getattr__(self, name: str) -> object:
            """A figure of a deferred summary, read for the first time: worked out now, with the rest."""
            if name in _FIGURES and self.pending is not None:  # (else unset for good: no loop)
                self.settle()
                return getattr(self, name)
            raise AttributeError(f"'TensorSummary' object has no attribute '{name}'")

    def settle(self) -> None:
        """Work out the figures of a deferred summary (nothing for any other)."""
        pending = self.pending
        if pending is not None:
            pending[0].fill(self, pending[1])
            self.pending = None

    @property
    def has_nonfinite(self) -> bool:
        return self.nan_count > 0 or self.inf_count > 0

    @property
    def captured_bytes(self) -> int:
        """Host bytes held by the preview and the full values (what the memory budget counts)."""
        total = 0 if self.values is None else self.values.nbytes
        if self.preview.base is None or self.values is None:
            total += self.preview.nbytes
        return total

    def drop_values(self) -> int:
        """Let go of the preview and full values (the memory budget is spent); bytes freed."""
        self.settle()  # (its figures come from the values: worked out while they are here)
        freed = self.captured_bytes
        self.preview = EMPTY
        self.values = None
        self.dropped = True
        return freed


# The fields a deferred summary leaves unset until one is read.
_FIGURES = frozenset(("min", "max", "mean", "std", "norm", "zero_fraction", "histogram"))


class PendingFigures(Protocol):
    """A batch of deferred summaries' figures: `fill` sets the statistics and histogram of its `index`th;
    `figures` gives the whole batch's as a SummaryTable holds them (statistics [k, 6] in STAT_FIELDS'
    order, NaN for None; histograms [k, 16])."""

    def fill(self, summary: TensorSummary, index: int) -> None: ...

    def figures(self) -> tuple[NDArray[np.float64], NDArray[np.integer[Any]]]: ...


def deferred(
    shape: tuple[int, ...],
    dtype: str,
    numel: int,
    preview: np.ndarray,
    values: np.ndarray,
    later: PendingFigures,
    index: int,
) -> TensorSummary:
    """A summary of a host array of `numel` finite values, all kept, whose statistics and histogram
    `later` works out when one of them is first read."""
    s: TensorSummary = object.__new__(TensorSummary)
    s.shape, s.dtype, s.device, s.numel = shape, dtype, "cpu", numel
    s.nan_count = s.inf_count = 0
    s.preview, s.values, s.dropped, s.pending = preview, values, False, (later, index)
    return s


class Summarized:
    """An array already summarised, standing in for a copy of it: a recorder keeps this, not a
    copy, of an array too large to copy (summarize_many returns its summary as it is)."""

    __slots__ = ("summary",)

    def __init__(self, summary: TensorSummary):
        self.summary = summary
