"""Summarising arrays: one, many (batched by dtype and by device), or a Python constant.

The type is `record.tensor_summary`; the statistics `host`, `batched` and `device`. This module is the
public face of summarising: it re-exports them (drawing a summary is `report.summary_render`'s)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from graphscope.engine.backend import device_of
from graphscope.engine.backend import numpy_dtype_name as dtype_name

from ..record.tensor_summary import (
    ARRAY_DTYPES,
    FULL_VALUES_LIMIT,
    HISTOGRAM_BINS,
    PREVIEW_SIZE,
    Summarized,
    TensorSummary,
)
from .batched import summarize_batch
from .device import DeviceArray, summarize_on_device, summarize_on_device_batch
from .host import (
    PIECE,
    counts,
    single_bin,
    summarize_host,
    summarize_hosts,
)

__all__ = [
    "ARRAY_DTYPES",
    "BATCH_LIMIT",
    "FULL_VALUES_LIMIT",
    "HISTOGRAM_BINS",
    "PIECE",
    "PREVIEW_SIZE",
    "Summarized",
    "TensorSummary",
    "counts",
    "dtype_name",
    "summarize",
    "summarize_many",
    "summarize_on_device",
    "summarize_value",
]


def summarize(
    array: DeviceArray, full_values_limit: int = FULL_VALUES_LIMIT, device: str | None = None
) -> TensorSummary:
    """Summarise an array of any graphscope device on that device."""
    if type(array) is np.ndarray or isinstance(array, np.generic):
        return summarize_host(np.asarray(array), full_values_limit, device or "cpu")
    return summarize_on_device_batch([array], full_values_limit, device)[0]


def summarize_value(value: Any) -> TensorSummary | None:  # Any: what the script passed
    """Summarise a Python number passed to an op as a constant (None for anything else)."""
    kind = type(value)
    dtype: type[np.generic]
    if kind is bool:
        dtype = np.bool_
    elif kind is int:
        dtype = np.int64 if -(2**63) <= value < 2**63 else np.float64
    elif kind is float:
        dtype = np.float64
    else:
        return None
    values = np.array(value, dtype=dtype)
    values.flags.writeable = False
    s = TensorSummary((), dtype_name(values.dtype), "cpu", 1, preview=values.reshape(1), values=values)
    v = values.item()
    if kind is float and not math.isfinite(v):
        s.nan_count, s.inf_count = (1, 0) if v != v else (0, 1)
        return s
    s.min = s.max = int(v) if kind is not float and dtype is not np.float64 else v
    s.mean = float(v)
    s.norm = abs(float(v))
    s.zero_fraction = 1.0 if v == 0 else 0.0
    s.histogram = single_bin(1)
    return s


BATCH_LIMIT = 4096  # arrays up to this size share the vectorised statistics of summarize_many


def summarize_many(
    arrays: Sequence[DeviceArray | Summarized], full_values_limit: int = FULL_VALUES_LIMIT
) -> list[TensorSummary]:
    """Summaries of many device arrays at once. Small float NumPy arrays are reduced together,
    a batch per dtype (one segmented pass per statistic instead of a dozen small calls each);
    other NumPy arrays one by one, their histograms binned together; the arrays of each other
    device are summarised there as one batch, with a couple of copies to the host."""
    out: list[TensorSummary | None] = [None] * len(arrays)
    batches: dict[np.dtype, list[int]] = {}  # NumPy dtype -> indices of its small float arrays
    devices: dict[object, list[int]] = {}  # device -> indices of its arrays (not NumPy's)
    singles: list[int] = []  # indices of the other NumPy arrays, reduced one by one
    for i, a in enumerate(arrays):
        if type(a) is Summarized:
            out[i] = a.summary
        elif type(a) is np.ndarray:
            dtype = a.dtype
            if dtype in _BATCHED and 0 < a.size <= BATCH_LIMIT:
                batch = batches.get(dtype)
                if batch is None:
                    batches[dtype] = [i]
                else:
                    batch.append(i)
            else:
                singles.append(i)
        elif isinstance(a, np.generic):
            singles.append(i)
        else:
            devices.setdefault(device_of(a), []).append(i)
    for device, indices in devices.items():
        for i, s in zip(
            indices, summarize_on_device_batch([arrays[i] for i in indices], full_values_limit, str(device))
        ):
            out[i] = s
    for indices in batches.values():
        alike = cast(list[np.ndarray], [arrays[i] for i in indices])  # NumPy arrays, as sorted above
        for i, s in zip(indices, summarize_batch(alike, full_values_limit)):
            out[i] = s
    if singles:
        for i, s in zip(singles, summarize_hosts([np.asarray(arrays[i]) for i in singles], full_values_limit)):
            out[i] = s
    return out  # type: ignore[return-value]  # every array was summarized by one of the branches


_BATCHED = frozenset(np.dtype(d) for d in ("float16", "float32", "float64"))
