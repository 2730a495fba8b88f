"""EncodedPool: a loaded snapshot's pool of tensor values kept as the file's base64 text, decoded where read.

A million-node record's previews are most of its file: decoding them all costs seconds, while a reader
shows a few rows. A row's values are decoded alone (the few base64 characters that hold them); a reader
that needs every value (a table taken apart, a record written again) decodes the pool once."""

from __future__ import annotations

import binascii
from typing import Any

import numpy as np
from numpy.typing import NDArray


class EncodedPool:
    """`size` values of `dtype` (little-endian) as base64 text, already checked to be base64 of
    that many values (`snapshot.columns_read`): decoding it cannot fail."""

    __slots__ = ("_decoded", "_text", "dtype", "size")

    def __init__(self, text: bytes | memoryview, dtype: np.dtype[Any], size: int) -> None:
        self._text, self.dtype, self.size = text, dtype, size
        self._decoded: NDArray[Any] | None = None

    @property
    def nbytes(self) -> int:
        """Bytes of the values, decoded."""
        return self.size * self.dtype.itemsize

    @property
    def text(self) -> bytes | memoryview:
        """The base64 text as the file held it (a writer copies it out as it is)."""
        return self._text

    def decoded(self) -> NDArray[Any]:
        """Every value, read-only (decoded on the first call, kept)."""
        if self._decoded is None:
            self._decoded = self._values(binascii.a2b_base64(self._text), self.size)
        return self._decoded

    def __getitem__(self, rows: slice) -> NDArray[Any]:
        """The values start:stop (a step of 1), read-only: decoded alone unless the whole pool is."""
        if self._decoded is not None:
            return self._decoded[rows]
        start, stop, step = rows.indices(self.size)
        assert step == 1, "a pool is read in runs of values"
        count = max(stop - start, 0)
        size = self.dtype.itemsize
        first, end = start * size, (start + count) * size
        quantum = first // 3  # base64 holds 3 bytes in each 4 characters
        raw = binascii.a2b_base64(self._text[4 * quantum : 4 * -(-end // 3)])
        skip = first - 3 * quantum
        return self._values(raw[skip : skip + count * size], count)

    def _values(self, raw: bytes, count: int) -> NDArray[Any]:
        out = np.frombuffer(raw, dtype=self.dtype.newbyteorder("<"), count=count).astype(self.dtype, copy=False)
        out.flags.writeable = False
        return out
