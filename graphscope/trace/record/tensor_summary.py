"""TensorSummary: what the debugger shows of a tensor (the type; `summary` computes it)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

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
        freed = self.captured_bytes
        self.preview = EMPTY
        self.values = None
        self.dropped = True
        return freed


class Summarized:
    """An array already summarised, standing in for a copy of it: a recorder keeps this, not a
    copy, of an array too large to copy (summarize_many returns its summary as it is)."""

    __slots__ = ("summary",)

    def __init__(self, summary: TensorSummary):
        self.summary = summary
