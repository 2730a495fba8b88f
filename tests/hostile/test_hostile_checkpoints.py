"""graphscope.load (torch.load under --as-torch) on hostile checkpoints: each is made here, loaded in a
fresh process under a time and a memory limit, and refused in one line that names the file (never a
hang, a memory blow-up, a crash, or an error of some other module), or loaded as torch loads it."""

import io
import pickle
import resource
import struct
import subprocess
import sys
import zipfile
import zlib
from collections import OrderedDict

import pytest
from hostile_helpers import ROOT, env, one_line_error

from graphscope.engine.serialization import archive
from graphscope.engine.serialization.pickle_writer import Call, Global, PersistentId, PickleWriter

MEMORY_LIMIT = 1536 * 2**20  # RLIMIT_AS: room for python, numpy and graphscope to start, and little more
TIME_LIMIT = 60  # a hang fails the test (generous: the machines are shared)

LOAD = """
import pickle, sys
import graphscope
try:
    graphscope.load(sys.argv[1])
except (pickle.UnpicklingError, RuntimeError) as error:
    print(f"{type(error).__name__}: {error}", file=sys.stderr)
    sys.exit(2)
print("loaded")
"""


def load(path, code=LOAD, *args, memory=MEMORY_LIMIT):
    """graphscope.load(path) in a fresh process under the limits; the CompletedProcess."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run([sys.executable, "-c", code, str(path), *map(str, args)], capture_output=True, text=True,
                          timeout=TIME_LIMIT, preexec_fn=limit, cwd=ROOT, check=False,
                          env=env(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"))


def refused(path, *needles) -> str:
    """Assert loading `path` is refused in one short line that names it and holds each needle."""
    line = one_line_error(load(path), 2, repr(str(path)), *needles)
    assert len(line) < 1000, line[:2000]
    return line


def checkpoint(tmp_path, data: bytes, storages=(), name="hostile.pt"):
    """A torch.save archive holding the pickle `data` (and `storages`), written to tmp_path/name."""
    buffer = io.BytesIO()
    archive.write(buffer, data, list(storages))
    path = tmp_path / name
    path.write_bytes(buffer.getvalue())
    return path


def written(obj) -> bytes:
    return PickleWriter(lambda o: (_ for _ in ()).throw(TypeError(type(o)))).dumps(obj)


def rebuild(key="0", numel=4, storage="FloatStorage", size=(4,), stride=(1,)):
    pid = PersistentId(("storage", Global("torch", storage), key, "cpu", numel))
    return Call(Global("torch._utils", "_rebuild_tensor_v2"), (pid, 0, size, stride, False, OrderedDict()))


# --- claimed sizes and nesting depth (item 4) ---------------------------------------------------------


def central_entry(zip_bytes: bytes, name: str) -> int:
    """Where the central directory entry of record `name` starts in `zip_bytes`."""
    at = zip_bytes.find(b"PK\x01\x02")
    while at >= 0:
        length = struct.unpack_from("<H", zip_bytes, at + 28)[0]
        if zip_bytes[at + 46:at + 46 + length] == name.encode():
            return at
        at = zip_bytes.find(b"PK\x01\x02", at + 4)
    raise KeyError(name)


def patched(path, name: str, *, size=None, flags=None, method=None):
    """The archive at `path` with the central directory's word on record `name` changed."""
    data = bytearray(path.read_bytes())
    at = central_entry(data, name)
    if size is not None:
        struct.pack_into("<II", data, at + 20, size, size)
    if flags is not None:
        struct.pack_into("<H", data, at + 8, flags)
    if method is not None:
        struct.pack_into("<H", data, at + 10, method)
    path.write_bytes(bytes(data))
    return path


def record_data_at(path, name: str) -> int:
    info = zipfile.ZipFile(path).getinfo(name)
    data = path.read_bytes()
    name_length, extra_length = struct.unpack_from("<HH", data, info.header_offset + 26)
    return info.header_offset + 30 + name_length + extra_length


FOUR_GIB = 2**32 - 4


@pytest.mark.parametrize("record", ["archive/data/0", "archive/data.pkl"])
def test_a_record_that_claims_4_gib_is_refused_before_anything_is_allocated(tmp_path, record):
    numel = FOUR_GIB // 4 if record.endswith("/0") else 4
    path = checkpoint(tmp_path, written(rebuild(numel=numel, size=(numel,))), [b"\x00" * 16])
    refused(patched(path, record, size=FOUR_GIB), f"{record}' claims {FOUR_GIB:,} bytes")


def nested_records(count: int, payload: bytes) -> bytes:
    """A zip whose storage records nest: record i's data is record i+1's header and data, and so on,
    so `count` records of about len(payload) bytes each share one payload (a bomb without compression)."""
    names = [f"archive/data/{i}".encode() for i in range(count)]
    headers, suffix = [], payload
    for name in reversed(names):
        header = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0x21, zlib.crc32(suffix), len(suffix),
                             len(suffix), len(name), 0) + name
        headers.append((name, zlib.crc32(suffix), len(suffix)))
        suffix = header + suffix
    headers.reverse()
    tensors = [rebuild(str(i), numel=size, storage="ByteStorage", size=(size,))
               for i, (_, _, size) in enumerate(headers)]
    head = io.BytesIO()
    with zipfile.ZipFile(head, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", written(tensors))
    pkl = zipfile.ZipFile(head).getinfo("archive/data.pkl")
    local = head.getvalue()[:head.getvalue().find(b"PK\x01\x02")]
    entries, offset = [], len(local)
    for name, crc, size in [(b"archive/data.pkl", pkl.CRC, pkl.file_size)] + headers:
        at = 0 if name.endswith(b".pkl") else offset
        entries.append(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21, crc, size, size,
                                   len(name), 0, 0, 0, 0, 0, at) + name)
        if not name.endswith(b".pkl"):
            offset += 30 + len(name)
    directory = b"".join(entries)
    start = len(local) + len(suffix)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(directory), start, 0)
    return local + suffix + directory + end


def test_records_that_overlap_are_refused(tmp_path):
    path = tmp_path / "nested.pt"
    path.write_bytes(nested_records(1000, b"\x00" * 500_000))
    refused(path, "records overlap")


def test_a_record_that_claims_more_than_the_file_holds_is_refused(tmp_path):
    path = checkpoint(tmp_path, written(rebuild()), [b"\x00" * 16])
    length = zipfile.ZipFile(path).getinfo("archive/data.pkl").file_size
    refused(patched(path, "archive/data.pkl", size=length + path.stat().st_size), "claims")


# --- every damage is one line of graphscope's (item 16) ---------------------------------------------


def test_a_checksum_that_does_not_match_is_one_line(tmp_path):
    path = checkpoint(tmp_path, written(rebuild()), [b"\x00" * 16])
    data = bytearray(path.read_bytes())
    data[record_data_at(path, "archive/data/0")] ^= 0xFF
    path.write_bytes(bytes(data))
    refused(path, "archive/data/0", "CRC-32")


def test_a_record_without_its_header_is_one_line(tmp_path):
    path = checkpoint(tmp_path, written(rebuild()), [b"\x00" * 16])
    data = bytearray(path.read_bytes())
    at = zipfile.ZipFile(path).getinfo("archive/data.pkl").header_offset
    data[at:at + 4] = b"XXXX"
    path.write_bytes(bytes(data))
    refused(path, "archive/data.pkl", "header")


def test_an_encrypted_record_is_one_line(tmp_path):
    path = checkpoint(tmp_path, written(rebuild()), [b"\x00" * 16])
    refused(patched(path, "archive/data.pkl", flags=1), "encrypted")


def test_a_compressed_record_is_one_line(tmp_path):
    path = checkpoint(tmp_path, written(rebuild()), [b"\x00" * 16])
    refused(patched(path, "archive/data/0", method=zipfile.ZIP_DEFLATED), "compressed")


def test_a_damaged_central_directory_is_one_line(tmp_path):
    path = checkpoint(tmp_path, written(rebuild()), [b"\x00" * 16])
    data = bytearray(path.read_bytes())
    at = central_entry(data, "archive/data/0")
    data[at:at + 4] = b"XXXX"
    path.write_bytes(bytes(data))
    refused(path, "damaged")


# --- a large checkpoint is read into its arrays, not copied (item 5) ----------------------------------

LOAD_IN_ROOM = """
import resource, sys
import graphscope
graphscope.load(sys.argv[2])  # everything a load imports, imported before the limit
vm = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (vm + int(sys.argv[3]), resource.RLIM_INFINITY))
graphscope.load(sys.argv[1])
print("loaded")
"""


def test_a_large_checkpoint_loads_in_little_more_memory_than_its_tensors(tmp_path):
    torch = pytest.importorskip("torch")
    size = 256 * 2**20
    torch.save({"weight": torch.ones(size // 4)}, tmp_path / "big.pt")
    torch.save({"warm": torch.ones(1)}, tmp_path / "small.pt")
    result = load(tmp_path / "big.pt", LOAD_IN_ROOM, tmp_path / "small.pt", int(size * 1.5),
                  memory=resource.RLIM_INFINITY)
    assert result.returncode == 0 and result.stdout.strip() == "loaded", result.stderr[-2000:]
