"""torch.save's zip archive: `<name>/data.pkl`, one `<name>/data/<key>` record per storage, and
the byteorder and version records, with each storage 64-byte aligned as torch writes it."""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import struct
import zipfile

ARCHIVE_NAME = "archive"  # torch names the folder after the file; any name reads back
_ALIGNMENT = 64
_LOCAL_HEADER = 30  # bytes of a zip local file header before the name
_PADDING_TAG = b"FB"  # the extra field id torch pads with
_ZIP64_EXTRA = 20  # bytes of the zip64 field zipfile adds to the header of a record over 2 GiB


@contextlib.contextmanager
def opened(f, mode: str):
    """A binary file for `f`: a path (str or os.PathLike), opened and closed here, or a file object."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, mode) as file:
            yield file
        return
    needed = "write" if "w" in mode else "read"
    if not callable(getattr(f, needed, None)):
        raise TypeError(
            f"expected a path (str or os.PathLike) or a binary file object with {needed}(), "
            f"got {type(f).__name__}"
        )
    yield f


def write(file, pickle: bytes, storages: list) -> None:
    """Write torch's archive: `pickle` as data.pkl, storage i's bytes as data/i (in key order)."""
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        _record(archive, "data.pkl", pickle)
        _record(archive, ".format_version", b"1")
        _record(archive, ".storage_alignment", str(_ALIGNMENT).encode())
        _record(archive, "byteorder", b"little")
        for key, data in enumerate(storages):
            _record(archive, f"data/{key}", data, aligned=True)
        _record(archive, "version", b"3\n")
        _record(archive, ".data/serialization_id", str(secrets.randbits(128)).encode())


def _record(archive: zipfile.ZipFile, name: str, data, aligned=False) -> None:
    info = zipfile.ZipInfo(f"{ARCHIVE_NAME}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
    if aligned:  # pad the header's extra field so the data starts on a 64-byte boundary (mmap)
        start = archive.fp.tell() + _LOCAL_HEADER + len(info.filename.encode()) + 4
        if len(data) * 1.05 > zipfile.ZIP64_LIMIT:
            start += _ZIP64_EXTRA  # zipfile appends its zip64 sizes after our padding
        padding = -start % _ALIGNMENT
        info.extra = _PADDING_TAG + struct.pack("<H", padding) + b"Z" * padding
    archive.writestr(info, data)


class Archive:
    """A torch.save zip archive opened for reading, with its records found by their short names."""

    def __init__(self, file, what: str):
        if not _seekable(file):
            file = io.BytesIO(file.read())
        start = file.tell()
        if not zipfile.is_zipfile(file):
            file.seek(start)
            raise RuntimeError(f"{what} is not a file written by torch.save or graphscope.save "
                               f"({_not_zip_reason(file.read(8))})")
        file.seek(start)
        self.zip = zipfile.ZipFile(file)
        names = self.zip.namelist()
        self.prefix = names[0].partition("/")[0] + "/" if names and "/" in names[0] else ""
        if self.prefix + "constants.pkl" in names:
            raise RuntimeError(
                f"{what} is a TorchScript archive (torch.jit.save), which graphscope cannot load: "
                "in PyTorch, save the model's state_dict() with torch.save and load that instead"
            )
        if self.prefix + "data.pkl" not in names:
            raise RuntimeError(f"{what} is a zip archive but not one written by torch.save or "
                               "graphscope.save (it has no data.pkl record)")
        self.what = what

    def read(self, name: str) -> bytes:
        return self.zip.read(self.prefix + name)

    def read_storage(self, key: str, nbytes: int) -> bytearray:
        """The bytes of storage `key` (a writable buffer), checked to hold `nbytes`."""
        name = f"{self.prefix}data/{key}"
        try:
            info = self.zip.getinfo(name)
        except KeyError:
            raise RuntimeError(f"{self.what} is damaged: it has no record {name!r} for storage {key!r}") from None
        if info.file_size != nbytes:
            raise RuntimeError(f"{self.what} is damaged: storage {key!r} holds {info.file_size} bytes, "
                               f"its tensors need {nbytes}")
        buffer = bytearray(nbytes)
        with self.zip.open(info) as record:
            record.readinto(buffer)
        return buffer

    def big_endian(self) -> bool:
        """Whether the storages are big-endian (torch records the saving machine's byte order)."""
        try:
            order = self.read("byteorder").decode()
        except KeyError:
            return False
        if order not in ("little", "big"):
            raise RuntimeError(f"{self.what} is damaged: unknown byteorder record {order!r}")
        return order == "big"


def _seekable(file) -> bool:
    try:
        return file.seekable()
    except AttributeError:
        return False


def _not_zip_reason(head: bytes) -> str:
    if head[:2] == b"\x80\x02":
        return ("it looks like PyTorch's legacy format from before PyTorch 1.6, which graphscope "
                "cannot read: load it with PyTorch and save it again with torch.save")
    if not head:
        return "it is empty"
    return "it is not a zip archive"
