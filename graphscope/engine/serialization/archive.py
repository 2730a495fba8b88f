"""torch.save's zip archive: `<name>/data.pkl`, one `<name>/data/<key>` record per storage, and
the byteorder and version records, with each storage 64-byte aligned as torch writes it."""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import struct
import zipfile
import zlib

from .short_repr import short_repr

ARCHIVE_NAME = "archive"  # torch names the folder after the file; any name reads back
_ALIGNMENT = 64
_LOCAL_HEADER = 30  # bytes of a zip local file header before the name
_PADDING_TAG = b"FB"  # the extra field id torch pads with
_ZIP64_EXTRA = 20  # bytes of the zip64 field zipfile adds to the header of a record over 2 GiB
_LOCAL_SIGNATURE = b"PK\x03\x04"
_ENCRYPTED = 0x1  # zip flag bits
_UTF8 = 0x800


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
            f"expected a path (str or os.PathLike) or a binary file object with {needed}(), got {type(f).__name__}"
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
        assert archive.fp is not None  # open for writing
        start = archive.fp.tell() + _LOCAL_HEADER + len(info.filename.encode()) + 4
        if len(data) * 1.05 > zipfile.ZIP64_LIMIT:
            start += _ZIP64_EXTRA  # zipfile appends its zip64 sizes after our padding
        padding = -start % _ALIGNMENT
        info.extra = _PADDING_TAG + struct.pack("<H", padding) + b"Z" * padding
    archive.writestr(info, data)


class Archive:
    """A torch.save zip archive opened for reading, with its records found by their short names.

    Records are read straight from the file into the buffer that keeps them, after their sizes are
    checked against the file's: a few hundred bytes of zip can claim a 4 GiB record, and records can
    nest one inside another so that each byte is claimed a thousand times.
    """

    def __init__(self, file, what: str):
        if not (_seekable(file) and callable(getattr(file, "readinto", None))):
            file = io.BytesIO(file.read())
        start = file.tell()
        if not zipfile.is_zipfile(file):
            file.seek(start)
            raise RuntimeError(
                f"{what} is not a file written by torch.save or graphscope.save ({_not_zip_reason(file.read(8))})"
            )
        self.file, self.what = file, what
        self.size = file.seek(0, io.SEEK_END)
        self.claimed = 0  # bytes of the file the records read so far hold
        file.seek(start)
        try:
            self.zip = zipfile.ZipFile(file)
        except (zipfile.BadZipFile, ValueError, EOFError) as error:
            raise self.damaged(f"its zip directory cannot be read ({error})") from None
        names = self.zip.namelist()
        self.prefix = names[0].partition("/")[0] + "/" if names and "/" in names[0] else ""
        if self.prefix + "constants.pkl" in names:
            raise RuntimeError(
                f"{what} is a TorchScript archive (torch.jit.save), which graphscope cannot load: "
                "in PyTorch, save the model's state_dict() with torch.save and load that instead"
            )
        if self.prefix + "data.pkl" not in names:
            raise RuntimeError(
                f"{what} is a zip archive but not one written by torch.save or "
                "graphscope.save (it has no data.pkl record)"
            )

    def damaged(self, text: str) -> RuntimeError:
        return RuntimeError(f"{self.what} is damaged: {text}")

    def read(self, name: str) -> bytearray:
        """The bytes of record `name` (KeyError when the archive has none)."""
        return self._read(self.zip.getinfo(self.prefix + name))

    def read_storage(self, key: str, nbytes: int) -> bytearray:
        """The bytes of storage `key` (a writable buffer), checked to hold `nbytes`."""
        name = f"{self.prefix}data/{key}"
        try:
            info = self.zip.getinfo(name)
        except KeyError:
            raise RuntimeError(f"{self.what} is damaged: it has no record {name!r} for storage {key!r}") from None
        if info.file_size != nbytes:
            raise RuntimeError(
                f"{self.what} is damaged: storage {key!r} holds {info.file_size} bytes, its tensors need {nbytes}"
            )
        return self._read(info)

    def _read(self, info: zipfile.ZipInfo) -> bytearray:
        """The record's bytes, read into one buffer (torch checks no checksum; one of 0 means none was written)."""
        start = self._data_start(info)
        if info.file_size != info.compress_size or start + info.file_size > self.size:
            raise self.damaged(
                f"its record {info.filename!r} claims {info.file_size:,} bytes, but only "
                f"{max(self.size - start, 0):,} follow its header"
            )
        self.claimed += info.file_size
        if self.claimed > self.size:
            raise self.damaged(
                f"its records overlap (those read so far hold {self.claimed:,} bytes of a {self.size:,}-byte file)"
            )
        buffer = bytearray(info.file_size)
        self.file.seek(start)
        view = memoryview(buffer)
        while view:
            got = self.file.readinto(view)
            if not got:
                raise self.damaged(f"it ends inside its record {info.filename!r}")
            view = view[got:]
        if info.CRC and zlib.crc32(buffer) != info.CRC:
            raise self.damaged(f"its record {info.filename!r} does not match its CRC-32 checksum")
        return buffer

    def _data_start(self, info: zipfile.ZipInfo) -> int:
        """Where the record's bytes begin: after its local header, checked to be the record's own."""
        if info.flag_bits & _ENCRYPTED:
            raise RuntimeError(
                f"{self.what} is encrypted (its record {info.filename!r}), and torch.save never "
                "encrypts: decrypt the archive, or load it with PyTorch and save it again"
            )
        if info.compress_type != zipfile.ZIP_STORED:
            raise RuntimeError(
                f"{self.what} holds its record {info.filename!r} compressed, and torch.save "
                "never compresses: unzip the archive and zip it again with `zip -0 -r`, or load "
                "it with PyTorch and save it again"
            )
        self.file.seek(info.header_offset)
        header = self.file.read(_LOCAL_HEADER)
        name = info.orig_filename.encode("utf-8" if info.flag_bits & _UTF8 else "cp437")
        if len(header) < _LOCAL_HEADER or header[:4] != _LOCAL_SIGNATURE or self.file.read(len(name)) != name:
            raise self.damaged(
                f"its record {info.filename!r} has no header at byte {info.header_offset:,}, "
                "where its zip directory says"
            )
        name_length, extra_length = struct.unpack_from("<HH", header, 26)
        return info.header_offset + _LOCAL_HEADER + name_length + extra_length

    def big_endian(self) -> bool:
        """Whether the storages are big-endian (torch records the saving machine's byte order)."""
        try:
            order = bytes(self.read("byteorder"))
        except KeyError:
            return False
        if order not in (b"little", b"big"):
            raise self.damaged(f"unknown byteorder record {short_repr(order)}")
        return order == b"big"


def _seekable(file) -> bool:
    try:
        return file.seekable()
    except AttributeError:
        return False


def _not_zip_reason(head: bytes) -> str:
    if head[:2] == b"\x80\x02":
        return (
            "it looks like PyTorch's legacy format from before PyTorch 1.6, which graphscope "
            "cannot read: load it with PyTorch and save it again with torch.save"
        )
    if not head:
        return "it is empty"
    return "it is not a zip archive"
