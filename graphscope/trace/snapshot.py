"""Snapshot JSON: the record written atomically, read back with errors naming file, place and problem."""

from __future__ import annotations

import binascii
import gc
import json
import math
import os
import stat
import sys
import uuid
from contextlib import contextmanager
from itertools import chain

import numpy as np

from .atomic_file import write_atomically
from .limits import LONG_TEXT_LIMIT, NAME_LIMIT, TEXT_LIMIT
from .literal import has_control, visible
from .pass_history import PassHistory
from .record import (
    FINDING_KINDS,
    BackwardPass,
    ConsoleLine,
    Finding,
    LeafGrad,
    Metadata,
    Node,
    Record,
    ScriptError,
    SourceSite,
    Step,
)
from .summary import ARRAY_DTYPES, HISTOGRAM_BINS, PREVIEW_SIZE, TensorSummary

FORMAT = "graphscope-snapshot"
VERSION = 2  # 2: nodes.args (non-tensor arguments); version 1 files still load

MAX_VALUES = 2**26          # elements in one summary's full values
MAX_NDIM = 64
_ID_LIMIT = 2**53
_FLOAT_MAX = int(sys.float_info.max)


class SnapshotError(Exception):
    """A snapshot that cannot be read: which file, where in it, and what is wrong."""

    def __init__(self, file: str, where: str, problem: str):
        self.file, self.where, self.problem = str(file), where, problem
        place = f"{self.file}: {where}: " if where else f"{self.file}: "
        super().__init__(place + problem)


# --- writing -------------------------------------------------------------------------------

@contextmanager
def _gc_paused():
    """Hold the cyclic garbage collector while building or parsing many small containers
    (none of them cyclic), which otherwise rescans the whole heap again and again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def dumps(record: Record) -> str:
    """The record as strict JSON text."""
    return "".join(p if isinstance(p, str) else p.decode("ascii") for p in _pieces(record))


def dump(record: Record, path) -> None:
    """Write the record to `path` atomically: a complete new file replaces the old, or nothing
    changes (WriteError, from atomic_file, when it cannot be written)."""
    write_atomically(path, [p.encode("ascii") if isinstance(p, str) else p for p in _pieces(record)], "snapshot")


def _pieces(record: Record) -> list:
    """The JSON text in pieces: the document with each base64 array spliced in where its
    placeholder was, so the encoder never scans megabytes of base64 for characters to escape."""
    token = f"@blob-{uuid.uuid4().hex}-"
    blobs: list[bytes] = []

    def blob(raw: bytes) -> str:
        blobs.append(raw)
        return f"{token}{len(blobs) - 1}"

    with _gc_paused():
        text = json.dumps(to_json(record, blob), ensure_ascii=True, allow_nan=False,
                          check_circular=False, separators=(",", ":"))
    pieces: list = []
    for i, raw in enumerate(blobs):
        before, text = text.split(f'"{token}{i}"', 1)
        pieces += [before, b'"', raw, b'"']
    pieces.append(text)
    return pieces


def _num(x):
    """A number as strict JSON: non-finite floats become "nan", "inf", "-inf"."""
    if type(x) is float and x - x != 0.0:
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    return x


def _raw(array: np.ndarray) -> bytes:
    """An array's little-endian bytes, base64-encoded."""
    if array.dtype.byteorder == ">" or (array.dtype.byteorder == "=" and sys.byteorder != "little"):
        array = array.astype(array.dtype.newbyteorder("<"))
    return binascii.b2a_base64(np.ascontiguousarray(array).tobytes(), newline=False)


def _inline(raw: bytes) -> str:
    return raw.decode("ascii")


_NO_HISTOGRAM = np.zeros(HISTOGRAM_BINS, dtype=np.int64)
STAT_FIELDS = ("min", "max", "mean", "std", "norm", "zero_fraction")


def host_dtype(dtype: str) -> np.dtype:
    """The NumPy dtype a summary's preview and values are stored in."""
    return np.dtype(dtype if dtype in ARRAY_DTYPES else "float64")


def _tensor_columns(items: list[TensorSummary], blob) -> dict:
    """Every summary as one table: JSON columns for the small fields, base64 arrays for the rest."""
    previews: dict[np.dtype, list] = {}
    values: dict[np.dtype, list] = {}
    full, dropped, exact = [], [], []
    hosts: dict[str, np.dtype] = {}
    for i, s in enumerate(items):
        host = hosts.get(s.dtype)
        if host is None:
            host = hosts[s.dtype] = host_dtype(s.dtype)
        if s.values is not None:
            full.append(i)
            v = s.values if s.values.dtype is host else s.values.astype(host)
            values.setdefault(host, []).append(v.reshape(-1))
        elif s.dropped:
            dropped.append(i)
        else:
            previews.setdefault(host, []).append(s.preview if s.preview.dtype is host else s.preview.astype(host))
        if type(s.min) is int and not (-2**53 <= s.min <= 2**53 and -2**53 <= s.max <= 2**53):
            exact.append([i, s.min, s.max])
    stats = np.array([(s.min, s.max, s.mean, s.std, s.norm, s.zero_fraction) for s in items],
                     dtype=np.float64).reshape(len(items), len(STAT_FIELDS))
    counts = np.concatenate([h if h.size else _NO_HISTOGRAM for h in (s.histogram for s in items)]
                            + [np.zeros(0, dtype=np.int64)]).astype(np.int64, copy=False)
    wide = bool(counts.size) and int(counts.max()) >= 2**32
    return {
        "shape": [list(s.shape) for s in items],
        "dtype": [s.dtype for s in items],
        "device": [s.device for s in items],
        "nan": [s.nan_count for s in items],
        "inf": [s.inf_count for s in items],
        "stats": blob(_raw(stats)),
        "exact": exact,
        "histogram": {"dtype": "int64" if wide else "uint32",
                      "data": blob(_raw(counts if wide else counts.astype(np.uint32)))},
        "full": full,
        "dropped": dropped,
        "preview": {k.name: blob(_raw(np.concatenate(v))) for k, v in previews.items()},
        "values": {k.name: blob(_raw(np.concatenate(v))) for k, v in values.items()},
    }


def to_json(record: Record, blob=_inline) -> dict:
    """The record as JSON-ready data: small sections as objects; nodes, steps and summaries as
    columns. `blob` turns base64 bytes into what the document holds (by default, the text)."""
    sites: dict[SourceSite, int] = {}

    def site(x: SourceSite | None):
        if x is None:
            return None
        i = sites.get(x)
        if i is None:
            i = sites[x] = len(sites)
        return i

    items: list[TensorSummary] = []

    def add(s: TensorSummary | None):
        if s is None:
            return None
        items.append(s)
        return len(items) - 1

    nodes = list(record.nodes.values())
    node_columns = {
        "id": [n.id for n in nodes],
        "op": [n.op for n in nodes],
        "name": [n.name for n in nodes],
        "inputs": [list(n.inputs) for n in nodes],
        "pass": [n.pass_index for n in nodes],
        "output": [add(n.output) for n in nodes],
        "requires_grad": [n.requires_grad for n in nodes],
        "is_leaf": [n.is_leaf for n in nodes],
        "parameter": [n.parameter for n in nodes],
        "module": [n.module for n in nodes],
        "site": [site(n.site) for n in nodes],
        "saved": [list(n.saved) for n in nodes],
        "dead_units": [None if n.dead_units is None else list(n.dead_units) for n in nodes],
        "args": [[list(a) for a in n.args] for n in nodes],
    }
    passes = []
    for p in record.passes:
        steps = p.steps
        passes.append({
            "index": p.index, "loss": _num(p.loss),
            "grad_norms": {k: _num(v) for k, v in p.grad_norms.items()},
            "node_count": p.node_count, "detailed": p.detailed, "finished": p.finished,
            "root": p.root, "order": list(p.order),
            "steps": {
                "node": [st.node for st in steps],
                "grad_output": [add(st.grad_output) for st in steps],
                "grad_inputs": [[add(g) for g in st.grad_inputs] for st in steps],
                "leaf_grads": [[[lg.node, add(lg.grad)] for lg in st.leaf_grads] for st in steps],
            },
        })
    error = record.error
    error_json = None if error is None else {
        "type": error.type, "message": error.message, "traceback": error.traceback,
        "node": error.node, "site": site(error.site),
    }
    findings = [{"kind": f.kind, "message": f.message, "node": f.node, "pass": f.pass_index,
                 "parameter": f.parameter, "site": site(f.site)} for f in record.findings]
    m = record.metadata
    return {
        "format": FORMAT,
        "version": VERSION,
        "metadata": {
            "script": m.script, "argv": list(m.argv), "started": m.started, "finished": m.finished,
            "exit_code": m.exit_code, "graphscope_version": m.graphscope_version,
            "python_version": m.python_version, "numpy_version": m.numpy_version,
            "device": m.device, "keep_first": m.keep_first, "keep_last": m.keep_last,
            "full_values_limit": m.full_values_limit, "memory_budget": m.memory_budget,
        },
        "sites": [{"file": s.file, "line": s.line, "function": s.function, "text": s.text} for s in sites],
        "tensors": _tensor_columns(items, blob),
        "nodes": node_columns,
        "passes": passes,
        "console": [{"stream": c.stream, "text": c.text, "pass": c.pass_index} for c in record.console],
        "error": error_json,
        "findings": findings,
        "dropped_values": record.dropped_values,
        "trimmed_nodes": record.trimmed_nodes,
        "dropped_console": record.dropped_console,
    }


# --- reading -------------------------------------------------------------------------------

def load(path) -> Record:
    """Read and validate a snapshot file; raises SnapshotError for anything wrong with it."""
    path = os.fspath(path)
    return loads(read_snapshot_bytes(path), path)


# The largest snapshot file read; GRAPHSCOPE_MAX_SNAPSHOT (bytes) changes it.
MAX_SNAPSHOT_BYTES = 2 * 2**30
_READ_CHUNK = 1 << 24
_JSON_SPACE = b" \t\r\n"


def max_snapshot_bytes() -> int:
    text = os.environ.get("GRAPHSCOPE_MAX_SNAPSHOT", "").strip()
    try:
        return int(text) if text else MAX_SNAPSHOT_BYTES
    except ValueError:
        raise SnapshotError("GRAPHSCOPE_MAX_SNAPSHOT", "", f"{visible(text)[:40]!r} is not a number of bytes") from None


def read_snapshot_bytes(path: str) -> bytes:
    """The bytes of a snapshot file: only a regular file (never a FIFO or device, which could
    block or never end), at most max_snapshot_bytes(), read in chunks; leading whitespace is
    skipped, and reading stops at once when the first other byte cannot begin a snapshot."""
    limit = max_snapshot_bytes()
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except IsADirectoryError:
        raise SnapshotError(path, "", "is a folder, not a snapshot file") from None
    except OSError as e:
        raise SnapshotError(path, "", f"cannot read the file: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode)
                    else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                    else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
            raise SnapshotError(path, "", f"is {kind}, not a snapshot file")
        if st.st_size > limit:
            raise SnapshotError(path, "", f"the file is {_size(st.st_size)}, more than the {_size(limit)} "
                                          "a snapshot may be (set GRAPHSCOPE_MAX_SNAPSHOT, in bytes, to raise it)")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        chunks, total, lines, skipped = [], 0, 1, 0
        while True:
            chunk = os.read(fd, _READ_CHUNK)
            if not chunk:
                break
            if not chunks:
                start = len(chunk) - len(chunk.lstrip(_JSON_SPACE))
                lines += chunk.count(b"\n", 0, start)
                skipped += start
                if start == len(chunk):
                    continue
                first = chunk[start:start + 1]
                if first != b"{":
                    _refuse_start(path, first, lines, start - chunk.rfind(b"\n", 0, start))
                chunk = chunk[start:]
            nul = chunk.find(b"\0")  # never in JSON text; a binary file soon has one (memchr: cheap)
            if nul >= 0:
                raise SnapshotError(path, "", f"not a snapshot: byte {skipped + total + nul:,} is a NUL byte, which "
                                              "JSON text never holds; is this a binary file?")
            total += len(chunk)
            if total > limit:  # the file grew while being read
                raise SnapshotError(path, "", f"the file is more than the {_size(limit)} a snapshot may be "
                                              "(set GRAPHSCOPE_MAX_SNAPSHOT, in bytes, to raise it)")
            chunks.append(chunk)
    except OSError as e:
        raise SnapshotError(path, "", f"cannot read the file: {e.strerror or e}") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


# What a JSON document is, by its first character.
_JSON_STARTS = {b"[": "a list", b'"': "a string", b"t": "a boolean", b"f": "a boolean", b"n": "null",
                **{bytes([c]): "a number" for c in b"-0123456789"}}


def _refuse_start(path: str, first: bytes, line: int, column: int):
    """A file whose first character (after whitespace) cannot begin a snapshot: said at once."""
    if first >= b"\x80" or first < b" ":
        raise SnapshotError(path, "", f"not a snapshot: not UTF-8 text (byte {first[0]:#04x} where JSON "
                                      "text should begin); is this a binary file?")
    kind = _JSON_STARTS.get(first)
    if kind is not None:
        raise SnapshotError(path, "", f"not a graphscope snapshot: the JSON is {kind}, not an object")
    raise SnapshotError(path, f"line {line:,}, column {column}",
                        f"not valid JSON: a snapshot begins with {{, not {first.decode('ascii')!r}")


def _size(n: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit} ({n:,} bytes)"
    return f"{n:,} bytes"


def loads(data: str | bytes, source: str = "<snapshot>") -> Record:
    """Validate snapshot text (or bytes) and build the record; nothing in it is ever executed."""
    if isinstance(data, bytes):
        if not data.strip():
            raise SnapshotError(source, "", "the file is empty")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SnapshotError(source, "", f"not a snapshot: not UTF-8 text (byte {e.start} "
                                            "cannot be decoded); is this a binary file?") from None
    else:
        text = data
        if not text.strip():
            raise SnapshotError(source, "", "the file is empty")
    try:
        with _gc_paused():
            doc = json.loads(text, parse_constant=_bare_constant)
    except json.JSONDecodeError as e:
        where = f"line {e.lineno}, column {e.colno}"
        if e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string"):
            raise SnapshotError(source, where, "the JSON ends too early: the file is truncated "
                                               "(was it written completely?)") from None
        raise SnapshotError(source, where, f"not valid JSON: {e.msg}") from None
    except _BareConstant as e:
        raise SnapshotError(source, "", f"not strict JSON: it contains a bare {e.args[0]} "
                                        '(a snapshot writes "nan", "inf", "-inf" as strings)') from None
    except RecursionError:
        raise SnapshotError(source, "", "not a snapshot: its JSON is nested too deeply") from None
    except ValueError as e:  # e.g. an integer with thousands of digits
        raise SnapshotError(source, "", f"not valid JSON: {e}") from None
    with _gc_paused():
        return _Reader(source).record(doc)


class _BareConstant(ValueError):
    pass


def _bare_constant(name):
    raise _BareConstant(name)


def _kind(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    return "an object"


class _Reader:
    """Builds a Record from parsed JSON, checking every value's type, size and references.

    Columns are checked whole (a pass over the list) and searched element by element only
    to name the place of a problem once one is known to be there.
    """

    def __init__(self, source: str):
        self.source = source
        self.sites: list[SourceSite] = []
        self.tensors: list[TensorSummary] = []

    def fail(self, where: str, problem: str):
        raise SnapshotError(self.source, where, problem)

    # --- single values ---

    def obj(self, v, where: str, keys: tuple[str, ...]) -> dict:
        if type(v) is not dict:
            self.fail(where, f"expected an object, found {_kind(v)}")
        for k in keys:
            if k not in v:
                self.fail(where, f'missing "{k}"')
        return v

    def seq(self, v, where: str, length: int | None = None) -> list:
        if type(v) is not list:
            self.fail(where, f"expected a list, found {_kind(v)}")
        if length is not None and len(v) != length:
            self.fail(where, f"expected {length:,} entries (one per row), found {len(v):,}")
        return v

    def integer(self, v, where: str, low: int = 0, high: int = _ID_LIMIT) -> int:
        if type(v) is not int:
            self.fail(where, f"expected an integer, found {_kind(v)}")
        if not low <= v <= high:
            self.fail(where, f"{v} is out of range ({low} to {high})")
        return v

    def opt_integer(self, v, where: str, low: int = 0, high: int = _ID_LIMIT):
        return None if v is None else self.integer(v, where, low, high)

    def boolean(self, v, where: str) -> bool:
        if type(v) is not bool:
            self.fail(where, f"expected true or false, found {_kind(v)}")
        return v

    def name(self, v, where: str, limit: int = NAME_LIMIT) -> str:
        """A short identifier-like string: bounded, with no control characters."""
        if type(v) is not str:
            self.fail(where, f"expected a string, found {_kind(v)}")
        if len(v) > limit:
            self.fail(where, f"a string of {len(v):,} characters is longer than the {limit:,} allowed")
        if has_control(v):
            self.fail(where, f"the string {visible(v[:80])!r} contains control characters")
        return v

    def opt_name(self, v, where: str):
        return None if v is None else self.name(v, where)

    def text(self, v, where: str, limit: int = TEXT_LIMIT) -> str:
        """Free text (any character; shown literally): bounded in length."""
        if type(v) is not str:
            self.fail(where, f"expected a string, found {_kind(v)}")
        if len(v) > limit:
            self.fail(where, f"a string of {len(v):,} characters is longer than the {limit:,} allowed")
        return v

    def number(self, v, where: str):
        """A number, null, or one of "nan", "inf", "-inf" (read back as floats)."""
        t = type(v)
        if t is float or t is int or v is None:
            return v
        if t is str:
            if v == "nan":
                return math.nan
            if v == "inf":
                return math.inf
            if v == "-inf":
                return -math.inf
        self.fail(where, f'expected a number (or "nan", "inf", "-inf"), found {_kind(v)}')

    def real(self, v, where: str):
        v = self.number(v, where)
        if type(v) is int and not -_FLOAT_MAX <= v <= _FLOAT_MAX:
            self.fail(where, f"an integer of {len(str(abs(v)))} digits is too large for a number")
        return None if v is None else float(v)

    def site(self, v, where: str) -> SourceSite | None:
        if v is None:
            return None
        if type(v) is not int or not 0 <= v < len(self.sites):
            self.fail(where, f"{v!r} is not an index into the {len(self.sites)} sites")
        return self.sites[v]

    def tensor(self, v, where: str) -> TensorSummary | None:
        if v is None:
            return None
        if type(v) is not int or not 0 <= v < len(self.tensors):
            self.fail(where, f"{v!r} is not an index into the {len(self.tensors)} tensors")
        return self.tensors[v]

    def node_id(self, v, where: str, nodes, optional: bool = True):
        if v is None and optional:
            return None
        if type(v) is not int:
            self.fail(where, f"expected a node id (an integer), found {_kind(v)}")
        if v not in nodes:
            self.fail(where, f"node id {v} does not exist in the snapshot")
        return v

    # --- whole columns ---

    def ints(self, col, where: str, count: int | None, low: int = 0, high: int = _ID_LIMIT,
             nullable: bool = False) -> list:
        self.seq(col, where, count)
        types = set(map(type, col))
        present = [v for v in col if v is not None] if nullable and type(None) in types else col
        if not types <= ({int, type(None)} if nullable else {int}) or (
                present and (min(present) < low or max(present) > high)):
            for i, v in enumerate(col):
                if not (nullable and v is None):
                    self.integer(v, f"{where}[{i}]", low, high)
        return col

    def bools(self, col, where: str, count: int) -> list:
        self.seq(col, where, count)
        if not set(map(type, col)) <= {bool}:
            for i, v in enumerate(col):
                self.boolean(v, f"{where}[{i}]")
        return col

    def names(self, col, where: str, count: int, nullable: bool = False, limit: int = NAME_LIMIT) -> list:
        self.seq(col, where, count)
        types = set(map(type, col))
        present = [v for v in col if v is not None] if nullable and type(None) in types else col
        if (not types <= ({str, type(None)} if nullable else {str})
                or (present and max(map(len, present)) > limit) or has_control("".join(present))):
            for i, v in enumerate(col):
                if not (nullable and v is None):
                    self.name(v, f"{where}[{i}]", limit)
        return col

    def numbers(self, col, where: str, count: int, real: bool = False) -> list:
        self.seq(col, where, count)
        types = set(map(type, col))
        if types <= {float, type(None)} or (not real and types <= {float, int, type(None)}):
            return col
        out = []
        for i, v in enumerate(col):
            v = self.number(v, f"{where}[{i}]")
            out.append(float(v) if real and v is not None else v)
        return out

    def nested_ints(self, col, where: str, count: int | None, low: int = 0, high: int = _ID_LIMIT) -> list:
        """A column whose rows are lists of integers."""
        self.seq(col, where, count)
        if not set(map(type, col)) <= {list}:
            for i, row in enumerate(col):
                self.seq(row, f"{where}[{i}]")
        flat = list(chain.from_iterable(col))
        if not set(map(type, flat)) <= {int} or (flat and (min(flat) < low or max(flat) > high)):
            for i, row in enumerate(col):
                for j, v in enumerate(row):
                    self.integer(v, f"{where}[{i}][{j}]", low, high)
        return col

    # --- the document ---

    _TOP = ("metadata", "sites", "tensors", "nodes", "passes", "console", "error", "findings",
            "dropped_values", "trimmed_nodes", "dropped_console")

    def record(self, doc) -> Record:
        if type(doc) is not dict:
            self.fail("", f"not a graphscope snapshot: the JSON is {_kind(doc)}, not an object")
        fmt = doc.get("format")
        if fmt != FORMAT:
            if fmt is None:
                self.fail("format", f'not a graphscope snapshot: no "format": "{FORMAT}"')
            self.fail("format", f"not a graphscope snapshot: its format is {visible(str(fmt))[:100]!r}")
        version = doc.get("version")
        if type(version) is not int:
            self.fail("version", f"expected an integer version, found {_kind(version)}")
        if version > VERSION:
            self.fail("version", f"snapshot version {version} is newer than this graphscope reads "
                                 f"(version {VERSION}): upgrade graphscope to open it")
        if version < 1:
            self.fail("version", f"unknown snapshot version {version}")
        self.version = version
        self.obj(doc, "", self._TOP)
        self.sites = [self.source_site(s, f"sites[{i}]") for i, s in enumerate(self.seq(doc["sites"], "sites"))]
        self.tensors = self.tensor_table(doc["tensors"], "tensors")
        record = Record(metadata=self.metadata(doc["metadata"], "metadata"))
        record.nodes = nodes = self.nodes(doc["nodes"], "nodes")
        record.passes = passes = PassHistory()  # the passes without detail as rows, as when recorded
        for i, p in enumerate(self.seq(doc["passes"], "passes")):
            passes.append(self.backward_pass(p, f"passes[{i}]", nodes))
            if passes.compactable(i):
                passes.compact(i)
        record.console = [self.console_line(c, f"console[{i}]")
                          for i, c in enumerate(self.seq(doc["console"], "console"))]
        if doc["error"] is not None:
            record.error = self.script_error(doc["error"], "error", nodes)
        record.findings = [self.finding(f, f"findings[{i}]", nodes)
                           for i, f in enumerate(self.seq(doc["findings"], "findings"))]
        record.dropped_values = self.integer(doc["dropped_values"], "dropped_values")
        record.trimmed_nodes = self.integer(doc["trimmed_nodes"], "trimmed_nodes")
        record.dropped_console = self.integer(doc["dropped_console"], "dropped_console")
        return record

    def source_site(self, d, where: str) -> SourceSite:
        self.obj(d, where, ("file", "line", "function", "text"))
        return SourceSite(self.name(d["file"], where + ".file"), self.integer(d["line"], where + ".line"),
                          self.name(d["function"], where + ".function"), self.text(d["text"], where + ".text"))

    def metadata(self, d, where: str) -> Metadata:
        keys = ("script", "argv", "started", "finished", "exit_code", "graphscope_version",
                "python_version", "numpy_version", "device", "keep_first", "keep_last",
                "full_values_limit", "memory_budget")
        self.obj(d, where, keys)
        argv = [self.text(a, f"{where}.argv[{i}]") for i, a in enumerate(self.seq(d["argv"], where + ".argv"))]
        return Metadata(
            script=self.text(d["script"], where + ".script"), argv=argv,
            started=self.name(d["started"], where + ".started"),
            finished=self.name(d["finished"], where + ".finished"),
            exit_code=self.opt_integer(d["exit_code"], where + ".exit_code", -2**31, 2**31),
            graphscope_version=self.name(d["graphscope_version"], where + ".graphscope_version"),
            python_version=self.name(d["python_version"], where + ".python_version"),
            numpy_version=self.name(d["numpy_version"], where + ".numpy_version"),
            device=self.name(d["device"], where + ".device"),
            keep_first=self.integer(d["keep_first"], where + ".keep_first"),
            keep_last=self.opt_integer(d["keep_last"], where + ".keep_last"),
            full_values_limit=self.integer(d["full_values_limit"], where + ".full_values_limit"),
            memory_budget=self.integer(d["memory_budget"], where + ".memory_budget", 0, 2**62),
        )

    _TENSOR_KEYS = ("shape", "dtype", "device", "nan", "inf", "stats", "exact", "histogram", "full",
                    "dropped", "preview", "values")

    def tensor_table(self, d, where: str) -> list[TensorSummary]:
        self.obj(d, where, self._TENSOR_KEYS)
        shapes = self.seq(d["shape"], where + ".shape")
        n = len(shapes)
        self.nested_ints(shapes, where + ".shape", n, 0, 2**62)
        dtypes = self.names(d["dtype"], where + ".dtype", n, limit=64)
        devices = self.names(d["device"], where + ".device", n, limit=64)
        nans = self.ints(d["nan"], where + ".nan", n, 0, 2**62)
        infs = self.ints(d["inf"], where + ".inf", n, 0, 2**62)
        stats = self.array(d["stats"], where + ".stats", np.dtype(np.float64), n * len(STAT_FIELDS))
        stats = stats.reshape(n, len(STAT_FIELDS))
        missing = np.isnan(stats)
        columns = stats.T.tolist()
        for j, column in enumerate(columns):
            for i in np.flatnonzero(missing[:, j]).tolist():
                column[i] = None
        lows, highs, means, stds, norms, zeros = columns
        exact = {}
        for k, row in enumerate(self.seq(d["exact"], where + ".exact")):
            if type(row) is not list or len(row) != 3:
                self.fail(f"{where}.exact[{k}]", "expected [row, min, max]")
            i = self.integer(row[0], f"{where}.exact[{k}][0]", 0, max(n - 1, 0))
            exact[i] = (self.integer(row[1], f"{where}.exact[{k}][1]", -2**64, 2**64),
                        self.integer(row[2], f"{where}.exact[{k}][2]", -2**64, 2**64))
        hist = self.obj(d["histogram"], where + ".histogram", ("dtype", "data"))
        if hist["dtype"] not in ("uint32", "int64"):
            self.fail(where + ".histogram.dtype", 'expected "uint32" or "int64"')
        counts = self.array(hist["data"], where + ".histogram.data", np.dtype(hist["dtype"]), n * HISTOGRAM_BINS)
        if counts.dtype.kind == "i" and counts.size and counts.min() < 0:
            self.fail(where + ".histogram.data", "a histogram count is negative")
        histograms = counts.astype(np.int64).reshape(n, HISTOGRAM_BINS)
        histograms.flags.writeable = False
        filled = histograms.any(axis=1).tolist()
        full = set(self.ints(d["full"], where + ".full", None, 0, max(n - 1, 0)))
        dropped = set(self.ints(d["dropped"], where + ".dropped", None, 0, max(n - 1, 0)))
        blobs = {}
        for part in ("preview", "values"):
            given = d[part]
            if type(given) is not dict:
                self.fail(f"{where}.{part}", f"expected an object, found {_kind(given)}")
            for key, text in given.items():
                if key not in ARRAY_DTYPES:
                    self.fail(f"{where}.{part}", f"unknown array dtype {visible(key)[:40]!r}")
                dtype = np.dtype(key)
                if type(text) is not str or len(text) % 4:
                    self.fail(f"{where}.{part}.{key}", "expected base64 text")
                raw_len = len(text) // 4 * 3 - text[-2:].count("=")
                if raw_len % dtype.itemsize:
                    self.fail(f"{where}.{part}.{key}", f"not a whole number of {key} values")
                blobs[part, key] = [self.array(text, f"{where}.{part}.{key}", dtype, raw_len // dtype.itemsize), 0]
        out = []
        hosts = {}
        for i in range(n):
            shape = tuple(shapes[i])
            if len(shape) > MAX_NDIM:
                self.fail(f"{where}.shape[{i}]", f"{len(shape)} dimensions is more than the {MAX_NDIM} allowed")
            numel = math.prod(shape)
            dtype = dtypes[i]
            host = hosts.get(dtype)
            if host is None:
                kind = np.dtype(dtype).kind if dtype in ARRAY_DTYPES else "f"
                host = hosts[dtype] = (host_dtype(dtype).name, kind in "iub")
            host, integral = host
            if nans[i] + infs[i] > numel:
                self.fail(f"{where}.nan[{i}]", f"{nans[i]} NaNs and {infs[i]} Infs in {numel} elements")
            zf = zeros[i]
            if zf is None or not 0.0 <= zf <= 1.0:
                self.fail(f"{where}.stats", f"row {i}: zero_fraction {zf!r} is not a fraction from 0 to 1")
            lo, hi = lows[i], highs[i]
            if integral and lo is not None:
                lo, hi = exact.get(i) or (int(lo), int(hi))
            values = None
            if i in full:
                values = self.take(blobs, "values", host, numel, where, i).reshape(shape)
                preview = values.reshape(-1)[:PREVIEW_SIZE]
            elif i in dropped:
                preview = _NO_VALUES
            else:
                preview = self.take(blobs, "preview", host, min(numel, PREVIEW_SIZE), where, i)
            out.append(TensorSummary(shape, dtype, devices[i], numel, lo, hi, means[i], stds[i],
                                     norms[i], nans[i], infs[i], zf,
                                     histograms[i] if filled[i] else _NO_COUNTS, preview, values, i in dropped))
        for (part, key), (array, used) in blobs.items():
            if used != array.size:
                self.fail(f"{where}.{part}.{key}", f"holds {array.size:,} values; the tensors use {used:,}")
        return out

    def take(self, blobs, part: str, dtype: str, count: int, where: str, i: int) -> np.ndarray:
        """The next `count` values of tensor `i` from the `part` blob of `dtype`."""
        entry = blobs.get((part, dtype))
        if entry is None:
            if count == 0:
                return np.zeros(0, dtype=dtype)
            self.fail(f"{where}.{part}", f"tensor {i} needs {dtype} values, and there are none")
        array, used = entry
        if used + count > array.size:
            self.fail(f"{where}.{part}.{dtype}", f"ends before tensor {i}'s {count:,} values")
        entry[1] = used + count
        return array[used:used + count]

    def array(self, v, where: str, dtype: np.dtype, count: int) -> np.ndarray:
        if type(v) is not str:
            self.fail(where, f"expected base64 text, found {_kind(v)}")
        expected = 4 * ((count * dtype.itemsize + 2) // 3)
        if len(v) != expected:
            self.fail(where, f"expected {expected:,} base64 characters for {count:,} {dtype.name} "
                             f"values, found {len(v):,}")
        try:
            raw = binascii.a2b_base64(v, strict_mode=True)
        except (binascii.Error, ValueError) as e:
            self.fail(where, f"not valid base64: {e}")
        return np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype, copy=False)

    _NODE_KEYS = ("id", "op", "name", "inputs", "pass", "output", "requires_grad", "is_leaf",
                  "parameter", "module", "site", "saved", "dead_units")

    def nodes(self, d, where: str) -> dict[int, Node]:
        self.obj(d, where, self._NODE_KEYS + (("args",) if self.version >= 2 else ()))
        ids = self.seq(d["id"], where + ".id")
        n = len(ids)
        self.ints(ids, where + ".id", n)
        if len(set(ids)) != n:
            seen = set()
            for i, k in enumerate(ids):
                if k in seen:
                    self.fail(f"{where}.id[{i}]", f"node id {k} appears twice")
                seen.add(k)
        known = set(ids)
        ops = self.names(d["op"], where + ".op", n)
        names = self.names(d["name"], where + ".name", n)
        inputs = self.nested_ints(d["inputs"], where + ".inputs", n)
        if not known.issuperset(chain.from_iterable(inputs)):
            for i, row in enumerate(inputs):
                for j, k in enumerate(row):
                    if k not in known:
                        self.fail(f"{where}.inputs[{i}][{j}]", f"node id {k} does not exist in the snapshot")
        passes = self.ints(d["pass"], where + ".pass", n)
        outputs = self.ints(d["output"], where + ".output", n, 0, len(self.tensors) - 1, nullable=True)
        requires = self.bools(d["requires_grad"], where + ".requires_grad", n)
        leaves = self.bools(d["is_leaf"], where + ".is_leaf", n)
        parameters = self.names(d["parameter"], where + ".parameter", n, nullable=True)
        modules = self.names(d["module"], where + ".module", n, nullable=True)
        sites = self.ints(d["site"], where + ".site", n, 0, len(self.sites) - 1, nullable=True)
        saved = self.seq(d["saved"], where + ".saved", n)
        if not set(map(type, saved)) <= {list}:
            for i, row in enumerate(saved):
                self.seq(row, f"{where}.saved[{i}]")
        flat = list(chain.from_iterable(saved))
        self.names(flat, where + ".saved", len(flat))
        dead = self.seq(d["dead_units"], where + ".dead_units", n)
        if not set(map(type, dead)) <= {type(None)}:
            for i, du in enumerate(dead):
                if du is not None:
                    if type(du) is not list or len(du) != 2:
                        self.fail(f"{where}.dead_units[{i}]", "expected null or [dead, units]")
                    dead[i] = (self.integer(du[0], f"{where}.dead_units[{i}][0]"),
                               self.integer(du[1], f"{where}.dead_units[{i}][1]"))
        args = self.arguments(d["args"], where + ".args", n) if self.version >= 2 else [()] * n
        tensors, site_list = self.tensors, self.sites
        return {k: Node(k, op, nm, tuple(inp), ps, None if o is None else tensors[o], rq, lf, pr, md,
                        None if st is None else site_list[st], tuple(sv), du, ar)
                for k, op, nm, inp, ps, o, rq, lf, pr, md, st, sv, du, ar in zip(
                    ids, ops, names, inputs, passes, outputs, requires, leaves, parameters, modules, sites,
                    saved, dead, args)}

    def arguments(self, rows, where: str, n: int) -> list[tuple]:
        """Each node's [[name, literal], ...]."""
        rows = self.seq(rows, where, n)
        out = []
        for i, row in enumerate(rows):
            pairs = []
            for j, pair in enumerate(self.seq(row, f"{where}[{i}]")):
                if type(pair) is not list or len(pair) != 2:
                    self.fail(f"{where}[{i}][{j}]", "expected [name, literal]")
                name, text = self.names(pair, f"{where}[{i}][{j}]", 2)
                pairs.append((name, text))
            out.append(tuple(pairs))
        return out

    def backward_pass(self, d, where: str, nodes) -> BackwardPass:
        self.obj(d, where, ("index", "loss", "grad_norms", "node_count", "detailed", "finished",
                            "root", "order", "steps"))
        norms = d["grad_norms"]
        if type(norms) is not dict:
            self.fail(where + ".grad_norms", f"expected an object, found {_kind(norms)}")
        grad_norms = {}
        for k, v in norms.items():
            self.name(k, where + ".grad_norms")
            v = self.real(v, f"{where}.grad_norms[{visible(k)!r}]")
            if v is None:
                self.fail(f"{where}.grad_norms[{visible(k)!r}]", "expected a number, found null")
            grad_norms[k] = v
        order = self.seq(d["order"], where + ".order")
        if not all(type(k) is int and k in nodes for k in order):
            for j, k in enumerate(order):
                self.node_id(k, f"{where}.order[{j}]", nodes, optional=False)
        return BackwardPass(
            index=self.integer(d["index"], where + ".index"),
            loss=self.real(d["loss"], where + ".loss"),
            grad_norms=grad_norms,
            node_count=self.integer(d["node_count"], where + ".node_count"),
            detailed=self.boolean(d["detailed"], where + ".detailed"),
            finished=self.boolean(d["finished"], where + ".finished"),
            root=self.node_id(d["root"], where + ".root", nodes),
            order=tuple(order),
            steps=self.steps(d["steps"], where + ".steps", nodes),
        )

    def steps(self, d, where: str, nodes) -> list[Step]:
        self.obj(d, where, ("node", "grad_output", "grad_inputs", "leaf_grads"))
        at = self.seq(d["node"], where + ".node")
        n = len(at)
        if not all(type(k) is int and k in nodes for k in at):
            for i, k in enumerate(at):
                self.node_id(k, f"{where}.node[{i}]", nodes, optional=False)
        grad_outputs = self.seq(d["grad_output"], where + ".grad_output", n)
        grad_inputs = self.seq(d["grad_inputs"], where + ".grad_inputs", n)
        leaf_grads = self.seq(d["leaf_grads"], where + ".leaf_grads", n)
        tensor = self.tensor
        out = []
        for i in range(n):
            gi = self.seq(grad_inputs[i], f"{where}.grad_inputs[{i}]")
            lg = self.seq(leaf_grads[i], f"{where}.leaf_grads[{i}]")
            leaves = []
            for j, pair in enumerate(lg):
                if type(pair) is not list or len(pair) != 2:
                    self.fail(f"{where}.leaf_grads[{i}][{j}]", "expected [node id, tensor index or null]")
                leaves.append(LeafGrad(self.node_id(pair[0], f"{where}.leaf_grads[{i}][{j}][0]", nodes, False),
                                       tensor(pair[1], f"{where}.leaf_grads[{i}][{j}][1]")))
            out.append(Step(at[i], tensor(grad_outputs[i], f"{where}.grad_output[{i}]"),
                            [tensor(g, f"{where}.grad_inputs[{i}][{j}]") for j, g in enumerate(gi)], leaves))
        return out

    def console_line(self, d, where: str) -> ConsoleLine:
        self.obj(d, where, ("stream", "text", "pass"))
        stream = self.name(d["stream"], where + ".stream")
        if stream not in ("stdout", "stderr"):
            self.fail(where + ".stream", f'expected "stdout" or "stderr", found {stream[:40]!r}')
        return ConsoleLine(stream, self.text(d["text"], where + ".text", LONG_TEXT_LIMIT),
                           self.integer(d["pass"], where + ".pass"))

    def script_error(self, d, where: str, nodes) -> ScriptError:
        self.obj(d, where, ("type", "message", "traceback", "node", "site"))
        return ScriptError(self.name(d["type"], where + ".type"),
                           self.text(d["message"], where + ".message", LONG_TEXT_LIMIT),
                           self.text(d["traceback"], where + ".traceback", LONG_TEXT_LIMIT),
                           self.node_id(d["node"], where + ".node", nodes),
                           self.site(d["site"], where + ".site"))

    def finding(self, d, where: str, nodes) -> Finding:
        self.obj(d, where, ("kind", "message", "node", "pass", "parameter", "site"))
        kind = self.name(d["kind"], where + ".kind")
        if kind not in FINDING_KINDS:
            self.fail(where + ".kind", f"unknown finding kind {kind[:40]!r}")
        return Finding(kind, self.text(d["message"], where + ".message"),
                       self.node_id(d["node"], where + ".node", nodes),
                       self.opt_integer(d["pass"], where + ".pass"),
                       self.opt_name(d["parameter"], where + ".parameter"),
                       self.site(d["site"], where + ".site"))


_NO_VALUES = np.zeros(0, dtype=np.float64)
_NO_VALUES.flags.writeable = False
_NO_COUNTS = np.zeros(0, dtype=np.int64)
_NO_COUNTS.flags.writeable = False
