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

from graphscope.engine.serialization import archive
from graphscope.engine.serialization.pickle_writer import Call, Global, PersistentId, PickleWriter
from tests.graphscope_command import ROOT, env
from tests.hostile.hostile_helpers import one_line_error

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

    return subprocess.run(
        [sys.executable, "-c", code, str(path), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        preexec_fn=limit,
        cwd=ROOT,
        check=False,
        env=env(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1"),
    )


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


# --- pickles made of opcodes (pickle.DUP, pickle.TUPLE2, ...) -----------------------------------------

PROTO = pickle.PROTO + b"\x02"


def shared_tuple(levels=100, dup=False) -> bytes:
    """A tuple of two of a tuple of two of ... `levels` deep, each level one tuple shared twice: a few
    bytes, and 2**levels paths to walk for whoever hashes, compares or prints it."""
    if dup:
        return pickle.EMPTY_TUPLE + (pickle.DUP + pickle.TUPLE2) * levels
    get, put = pickle.BINGET + b"\x00", pickle.BINPUT + b"\x00" + pickle.POP
    return pickle.EMPTY_TUPLE + put + (get + get + pickle.TUPLE2 + put) * levels + get


def call(module: str, name: str, args: bytes) -> bytes:
    """`module.name(*args)`, args being opcodes that leave one tuple on the stack."""
    return pickle.GLOBAL + f"{module}\n{name}\n".encode() + args + pickle.REDUCE


def as_key(value: bytes) -> bytes:
    return pickle.EMPTY_DICT + value + pickle.NONE + pickle.SETITEM


def in_frozenset(value: bytes) -> bytes:
    return pickle.MARK + value + pickle.FROZENSET


def in_set(value: bytes) -> bytes:
    return pickle.EMPTY_SET + pickle.MARK + value + pickle.ADDITEMS


def in_builtin_set(value: bytes) -> bytes:
    return call("builtins", "set", pickle.EMPTY_LIST + value + pickle.APPEND + pickle.TUPLE1)


def long1(n: int) -> bytes:
    data = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
    return pickle.LONG1 + bytes([len(data)]) + data


def unicode(text: str) -> bytes:
    data = text.encode("utf-8", "surrogatepass")
    return pickle.BINUNICODE + struct.pack("<I", len(data)) + data


# --- a tuple shared 2**100 ways, hashed (issue 26, item 2) --------------------------------------------


@pytest.mark.parametrize("use", [as_key, in_frozenset], ids=["dict key", "frozenset"])
def test_dup_is_refused_as_torch_refuses_it(tmp_path, use):
    refused(checkpoint(tmp_path, PROTO + use(shared_tuple(dup=True)) + pickle.STOP), "unsupported pickle opcode DUP")


@pytest.mark.parametrize(
    "use", [as_key, in_frozenset, in_set, in_builtin_set], ids=["dict key", "frozenset", "set", "builtins.set"]
)
def test_a_tuple_shared_through_the_memo_is_refused_before_it_is_hashed(tmp_path, use):
    refused(checkpoint(tmp_path, PROTO + use(shared_tuple()) + pickle.STOP), "crafted to stall loaders")


@pytest.mark.parametrize("use", [as_key, in_set], ids=["dict", "set"])
def test_keys_crafted_to_share_one_hash_are_refused(tmp_path, use):
    """Ints k * (2**61 - 1) + 1 all hash to 1: each insertion would walk past all the others."""
    keys = b"".join(long1(k * (2**61 - 1) + 1) + (b"" if use is in_set else pickle.NONE) for k in range(1, 50_001))
    container = (
        pickle.EMPTY_DICT + pickle.MARK + keys + pickle.SETITEMS
        if use is as_key
        else pickle.EMPTY_SET + pickle.MARK + keys + pickle.ADDITEMS
    )
    refused(checkpoint(tmp_path, PROTO + container + pickle.STOP), "share one hash")


def test_a_dict_set_as_attributes_again_and_again_is_refused(tmp_path):
    state = pickle.EMPTY_DICT + pickle.MARK + b"".join(unicode(f"a{i}") + pickle.NONE for i in range(20_000))
    builds = (pickle.BINGET + b"\x01" + pickle.BUILD) * 100_000
    data = (
        PROTO
        + call("collections", "OrderedDict", pickle.EMPTY_TUPLE)
        + state
        + pickle.SETITEMS
        + pickle.BINPUT
        + b"\x01"
        + pickle.BUILD
        + builds
        + pickle.STOP
    )
    refused(checkpoint(tmp_path, data), "crafted to stall loaders")


def test_a_long_text_encoded_again_and_again_is_refused(tmp_path):
    args = unicode("x" * 500_000) + unicode("latin1") + pickle.TUPLE2 + pickle.BINPUT + b"\x01"
    encode = pickle.GLOBAL + b"_codecs\nencode\n" + pickle.BINPUT + b"\x00" + args + pickle.REDUCE + pickle.POP
    again = (pickle.BINGET + b"\x00" + pickle.BINGET + b"\x01" + pickle.REDUCE + pickle.POP) * 80_000
    refused(checkpoint(tmp_path, PROTO + encode + again + pickle.NONE + pickle.STOP), "crafted to stall loaders")


@pytest.mark.parametrize("size", [long1(2**40), pickle.BININT + struct.pack("<i", 10**9)], ids=["2**40", "10**9"])
def test_a_bytearray_of_a_size_instead_of_bytes_is_refused(tmp_path, size):
    refused(
        checkpoint(tmp_path, PROTO + call("builtins", "bytearray", size + pickle.TUPLE1) + pickle.STOP), "bytearray"
    )


# --- errors about such values are short (item 3) ------------------------------------------------------


@pytest.mark.parametrize(
    "value, needle",
    [
        (shared_tuple() + pickle.EMPTY_TUPLE + pickle.REDUCE, "refusing to call tuple object"),
        (call("torch", "Size", shared_tuple() + pickle.TUPLE1), "torch.Size needs ints"),
        (shared_tuple() + pickle.BINPERSID, "a persistent id must be"),
    ],
    ids=["REDUCE on a tuple", "torch.Size", "persistent id"],
)
def test_an_error_about_a_widely_shared_tuple_is_short(tmp_path, value, needle):
    refused(checkpoint(tmp_path, PROTO + value + pickle.STOP), needle)


def test_an_error_about_a_deeply_nested_list_is_short(tmp_path):
    depth = 100_000
    nested = pickle.EMPTY_LIST * depth + pickle.APPEND * (depth - 1)
    refused(
        checkpoint(tmp_path, PROTO + nested + pickle.EMPTY_TUPLE + pickle.REDUCE + pickle.STOP),
        "refusing to call list object",
    )


# --- claimed sizes and nesting depth (item 4) ---------------------------------------------------------


def central_entry(zip_bytes: bytes, name: str) -> int:
    """Where the central directory entry of record `name` starts in `zip_bytes`."""
    at = zip_bytes.find(b"PK\x01\x02")
    while at >= 0:
        length = struct.unpack_from("<H", zip_bytes, at + 28)[0]
        if zip_bytes[at + 46 : at + 46 + length] == name.encode():
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


@pytest.mark.parametrize("use", [lambda v: v, as_key, in_frozenset], ids=["alone", "dict key", "frozenset"])
def test_a_tuple_nested_a_million_deep_is_refused(tmp_path, use):
    nested = pickle.EMPTY_TUPLE + pickle.TUPLE1 * 1_000_000
    refused(checkpoint(tmp_path, PROTO + use(nested) + pickle.STOP), "nests tuples more than 1,000 deep")


def nested_records(count: int, payload: bytes) -> bytes:
    """A zip whose storage records nest: record i's data is record i+1's header and data, and so on,
    so `count` records of about len(payload) bytes each share one payload (a bomb without compression)."""
    names = [f"archive/data/{i}".encode() for i in range(count)]
    headers, suffix = [], payload
    for name in reversed(names):
        header = (
            struct.pack(
                "<4sHHHHHIIIHH",
                b"PK\x03\x04",
                20,
                0,
                0,
                0,
                0x21,
                zlib.crc32(suffix),
                len(suffix),
                len(suffix),
                len(name),
                0,
            )
            + name
        )
        headers.append((name, zlib.crc32(suffix), len(suffix)))
        suffix = header + suffix
    headers.reverse()
    tensors = [
        rebuild(str(i), numel=size, storage="ByteStorage", size=(size,)) for i, (_, _, size) in enumerate(headers)
    ]
    head = io.BytesIO()
    with zipfile.ZipFile(head, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", written(tensors))
    pkl = zipfile.ZipFile(head).getinfo("archive/data.pkl")
    local = head.getvalue()[: head.getvalue().find(b"PK\x01\x02")]
    entries, offset = [], len(local)
    for name, crc, size in [(b"archive/data.pkl", pkl.CRC, pkl.file_size)] + headers:
        at = 0 if name.endswith(b".pkl") else offset
        entries.append(
            struct.pack(
                "<4sHHHHHHIIIHHHHHII",
                b"PK\x01\x02",
                20,
                20,
                0,
                0,
                0,
                0x21,
                crc,
                size,
                size,
                len(name),
                0,
                0,
                0,
                0,
                0,
                at,
            )
            + name
        )
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


# --- every damage is one line of graphscope's (item 16) -----------------------------------------------


@pytest.mark.parametrize(
    "data, needle",
    [
        (PROTO + in_frozenset(pickle.EMPTY_LIST) + pickle.STOP, "unhashable type: 'list'"),
        (PROTO + in_builtin_set(pickle.EMPTY_LIST) + pickle.STOP, "unhashable type: 'list'"),
        (PROTO + pickle.BINUNICODE + b"\x01\x00\x00\x00\xff" + pickle.STOP, "not valid utf-8"),
        (PROTO + pickle.GLOBAL + b"mod\xff\nname\n" + pickle.STOP, "not valid utf-8"),
        (PROTO + pickle.SHORT_BINSTRING + b"\x01\xff" + pickle.STOP, "encoding='latin1'"),
        (PROTO + call("torch._utils", "_rebuild_tensor_v2", pickle.EMPTY_TUPLE) + pickle.STOP, "missing"),
        (PROTO + call("torch", "device", unicode("x" * 100_000) + pickle.TUPLE1) + pickle.STOP, "torch.device"),
        (PROTO + call("builtins", "complex", unicode("1") + pickle.TUPLE1) + pickle.STOP, "complex"),
        (
            PROTO
            + pickle.EMPTY_DICT
            + pickle.MARK
            + (pickle.EMPTY_TUPLE + pickle.TUPLE1 * 1000 + pickle.NONE) * 2
            + pickle.SETITEMS
            + pickle.STOP,
            "nested too deeply for Python",
        ),
    ],
    ids=[
        "unhashable in frozenset",
        "unhashable in set()",
        "BINUNICODE",
        "GLOBAL",
        "Python 2 str",
        "rebuild without arguments",
        "unknown device",
        "complex of a str",
        "equal keys 1,000 deep",
    ],
)
def test_a_damaged_pickle_is_one_line(tmp_path, data, needle):
    refused(checkpoint(tmp_path, data), needle)


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
    data[at : at + 4] = b"XXXX"
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
    data[at : at + 4] = b"XXXX"
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


@pytest.mark.slow
def test_a_large_checkpoint_loads_in_little_more_memory_than_its_tensors(tmp_path):
    torch = pytest.importorskip("torch")
    size = 256 * 2**20
    torch.save({"weight": torch.ones(size // 4)}, tmp_path / "big.pt")
    torch.save({"warm": torch.ones(1)}, tmp_path / "small.pt")
    result = load(
        tmp_path / "big.pt", LOAD_IN_ROOM, tmp_path / "small.pt", int(size * 1.5), memory=resource.RLIM_INFINITY
    )
    assert result.returncode == 0 and result.stdout.strip() == "loaded", result.stderr[-2000:]
