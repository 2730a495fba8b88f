"""default_collate and default_convert: samples to batches of tensors, with torch's rules for each kind of value."""

from __future__ import annotations

import collections.abc
import copy

from ...creation import as_tensor, tensor
from ...dtypes import float64
from ...ops import stack
from ...tensor import Tensor

_NOT_NUMBERS = "SUO"  # the kinds of NumPy dtype that hold strings, bytes or objects
_UNSUPPORTED = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _numpy_kind(value) -> str | None:
    """ "array" or "scalar" for NumPy values, else None (told apart without importing NumPy)."""
    kind = type(value)
    if kind.__module__ != "numpy" or kind.__name__ in ("str_", "bytes_", "string_"):
        return None
    return "array" if kind.__name__ in ("ndarray", "memmap") else "scalar"


def default_collate(batch):
    """A list of samples as one batch: tensors, NumPy values and numbers stacked into tensors;
    dicts, named tuples and sequences collated field by field; strings kept as a list."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    numpy_kind = _numpy_kind(elem)
    if numpy_kind == "array":
        if elem.dtype.kind in _NOT_NUMBERS:
            raise TypeError(_UNSUPPORTED.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if numpy_kind == "scalar":
        return stack([as_tensor(b) for b in batch], 0)
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _same_mapping(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(samples) for samples in zip(*batch)]
        return fields if isinstance(elem, tuple) else _same_sequence(elem, fields)
    raise TypeError(_UNSUPPORTED.format(type(elem)))


def default_convert(data):
    """One sample (no batching) with its NumPy arrays and scalars turned into tensors, as torch's."""
    numpy_kind = _numpy_kind(data)
    if isinstance(data, Tensor) or (numpy_kind == "array" and data.dtype.kind in _NOT_NUMBERS):
        return data
    if numpy_kind is not None:
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _same_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as torch's
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _same_sequence(data, [default_convert(d) for d in data])
    return data


def _same_mapping(like, items: dict):
    """`items` in a mapping of `like`'s type where it can be copied, else a dict."""
    try:
        clone = copy.copy(like)
        clone.update(items)
        return clone
    except (TypeError, AttributeError):
        return items


def _same_sequence(like, items: list):
    """`items` in a sequence of `like`'s type where it can be built, else a list."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            clone[:] = items
            return clone
        return type(like)(items)
    except TypeError:
        return items
