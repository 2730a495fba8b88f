"""Reading a snapshot: its JSON parsed (`snapshot_parse`), validated and built into the record;
nothing in it is ever executed.

Over 400 lines: one reader method per part of the record, in the document's order; the
checks of single values and columns they share are `snapshot_fields`."""

from __future__ import annotations

import binascii
import math
import os
from itertools import chain

import numpy as np

from ..record.limits import FIELDS
from ..record.literal import visible
from ..record.model import (
    FINDING_KINDS,
    OPTIMIZER_EVENT_KINDS,
    BackwardPass,
    ConsoleLine,
    Finding,
    LeafGrad,
    Metadata,
    OptimizerEvent,
    ParamChange,
    Record,
    ScriptError,
    SourceSite,
    Step,
)
from ..record.node_columns import NodeColumns
from ..record.node_fields import IS_LEAF, NONE, REQUIRES_GRAD
from ..record.node_table import NodeTable
from ..record.pass_history import PassHistory
from ..record.summary_table import STAT_FIELDS
from ..record.tensor_summary import host_dtype
from ..stats.summarize import ARRAY_DTYPES, HISTOGRAM_BINS, PREVIEW_SIZE, TensorSummary
from .blobs import padding
from .columns_read import ColumnReader
from .fields import kind_of
from .file import read_snapshot_bytes, size_text
from .format import (
    COLUMNS_VERSION,
    CONSOLE_STAMPS_VERSION,
    FORMAT,
    MAX_ELEMENTS,
    MAX_NDIM,
    VERSION,
    SnapshotError,
    gc_paused,
)
from .parse import parse


def load(path) -> Record:
    """Read and validate a snapshot file; raises SnapshotError for anything wrong with it."""
    path = os.fspath(path)
    try:
        return loads(read_snapshot_bytes(path), path)
    except MemoryError:  # reading the file (a parse past memory is refused before it begins)
        raise _short_of_memory(path, os.path.getsize(path)) from None


def loads(data: str | bytes, source: str = "<snapshot>") -> Record:
    """Validate snapshot text (or bytes) and build the record; nothing in it is ever executed."""
    try:
        doc, blobs = parse(data, source)
        with gc_paused():
            return RecordReader(source, blobs).record(doc)
    except MemoryError:  # building what the estimate did not foresee
        raise _short_of_memory(source, len(data)) from None


def _short_of_memory(source: str, size: int) -> SnapshotError:
    return SnapshotError(source, "", f"not enough memory to read it (the file is {size_text(size)})")


class RecordReader(ColumnReader):
    """Builds a Record from parsed JSON, checking every value's type, size and references."""

    # --- the document ---

    _TOP = (
        "metadata",
        "sites",
        "tensors",
        "nodes",
        "passes",
        "console",
        "error",
        "findings",
        "dropped_values",
        "trimmed_nodes",
        "dropped_console",
    )

    def record(self, doc) -> Record:
        if type(doc) is not dict:
            self.fail("", f"not a graphscope snapshot: the JSON is {kind_of(doc)}, not an object")
        fmt = doc.get("format")
        if fmt != FORMAT:
            if fmt is None:
                self.fail("format", f'not a graphscope snapshot: no "format": "{FORMAT}"')
            self.fail("format", f"not a graphscope snapshot: its format is {visible(str(fmt))[:100]!r}")
        version = doc.get("version")
        if type(version) is not int:
            self.fail("version", f"expected an integer version, found {kind_of(version)}")
        if version > VERSION:
            self.fail(
                "version",
                f"snapshot version {version} is newer than this graphscope reads "
                f"(version {VERSION}): upgrade graphscope to open it",
            )
        if version < 1:
            self.fail("version", f"unknown snapshot version {version}")
        self.version = version
        columnar = version >= COLUMNS_VERSION
        self.obj(doc, "", self._TOP + (("strings",) if columnar else ()))
        self.sites = [self.source_site(s, f"sites[{i}]") for i, s in enumerate(self.seq(doc["sites"], "sites"))]
        record = Record(metadata=self.metadata(doc["metadata"], "metadata"))
        if columnar:
            strings = self.strings(doc["strings"], "strings")
            self.tensors = self.tensor_columns(doc["tensors"], "tensors")
            record.nodes = nodes = NodeTable(columns=self.node_columns(doc["nodes"], "nodes", strings, self.tensors))
        else:
            self.tensors = self.tensor_table(doc["tensors"], "tensors")
            record.nodes = nodes = NodeTable(columns=self.nodes(doc["nodes"], "nodes"))
        record.passes = passes = PassHistory()  # the passes without detail as rows, as when recorded
        for i, p in enumerate(self.seq(doc["passes"], "passes")):
            passes.append(self.backward_pass(p, f"passes[{i}]", nodes))
            if passes.compactable(i):
                passes.compact(i)
        record.console = [
            self.console_line(c, f"console[{i}]") for i, c in enumerate(self.seq(doc["console"], "console"))
        ]
        if doc["error"] is not None:
            record.error = self.script_error(doc["error"], "error", nodes)
        record.findings = [
            self.finding(f, f"findings[{i}]", nodes) for i, f in enumerate(self.seq(doc["findings"], "findings"))
        ]
        if self.version >= 3:
            record.optimizer = self.optimizer_events(self.obj(doc, "", ("optimizer",))["optimizer"], "optimizer")
        record.dropped_values = self.integer(doc["dropped_values"], "dropped_values")
        record.trimmed_nodes = self.integer(doc["trimmed_nodes"], "trimmed_nodes")
        record.dropped_console = self.integer(doc["dropped_console"], "dropped_console")
        if "rules" in doc:  # optional: files written before rules load with none
            record.rules = self.rules(doc["rules"], "rules")
        return record

    def rules(self, d, where: str) -> dict[str, str]:
        """op -> its derivative rule's text."""
        self.obj(d, where, ())
        return {
            self.name(op, where): self.text(rule, f"{where}.{visible(op[:80])}", FIELDS["rules"])
            for op, rule in d.items()
        }

    def source_site(self, d, where: str) -> SourceSite:
        self.obj(d, where, ("file", "line", "function", "text"))
        return SourceSite(
            self.name(d["file"], where + ".file", FIELDS["sites.file"]),
            self.integer(d["line"], where + ".line"),
            self.name(d["function"], where + ".function", FIELDS["sites.function"]),
            self.text(d["text"], where + ".text", FIELDS["sites.text"]),
        )

    def metadata(self, d, where: str) -> Metadata:
        keys = (
            "script",
            "argv",
            "started",
            "finished",
            "exit_code",
            "graphscope_version",
            "python_version",
            "numpy_version",
            "device",
            "keep_first",
            "keep_last",
            "full_values_limit",
            "memory_budget",
        )
        self.obj(d, where, keys)
        argv = [
            self.text(a, f"{where}.argv[{i}]", FIELDS["metadata.argv"])
            for i, a in enumerate(self.seq(d["argv"], where + ".argv"))
        ]
        return Metadata(
            script=self.text(d["script"], where + ".script", FIELDS["metadata.script"]),
            argv=argv,
            started=self.name(d["started"], where + ".started"),
            finished=self.name(d["finished"], where + ".finished"),
            exit_code=self.opt_integer(d["exit_code"], where + ".exit_code", *FIELDS["metadata.exit_code"]),
            graphscope_version=self.name(d["graphscope_version"], where + ".graphscope_version"),
            python_version=self.name(d["python_version"], where + ".python_version"),
            numpy_version=self.name(d["numpy_version"], where + ".numpy_version"),
            device=self.name(d["device"], where + ".device"),
            keep_first=self.integer(d["keep_first"], where + ".keep_first"),
            keep_last=self.opt_integer(d["keep_last"], where + ".keep_last"),
            full_values_limit=self.integer(d["full_values_limit"], where + ".full_values_limit"),
            memory_budget=self.integer(d["memory_budget"], where + ".memory_budget", 0, 2**62),
        )

    _TENSOR_KEYS = (
        "shape",
        "dtype",
        "device",
        "nan",
        "inf",
        "stats",
        "exact",
        "histogram",
        "full",
        "dropped",
        "preview",
        "values",
    )

    def tensor_table(self, d, where: str) -> list[TensorSummary]:
        """Version 1 to 3: the tensors as JSON lists (and base64 arrays)."""
        self.obj(d, where, self._TENSOR_KEYS)
        shapes = self.seq(d["shape"], where + ".shape")
        n = len(shapes)
        self.nested_ints(shapes, where + ".shape", n, 0, MAX_ELEMENTS)
        dtypes = self.names(d["dtype"], where + ".dtype", n, limit=64)
        devices = self.names(d["device"], where + ".device", n, limit=64)
        nans = self.ints(d["nan"], where + ".nan", n, 0, MAX_ELEMENTS)
        infs = self.ints(d["inf"], where + ".inf", n, 0, MAX_ELEMENTS)
        stats = self.array(d["stats"], where + ".stats", np.dtype(np.float64), n * len(STAT_FIELDS))
        stats = stats.reshape(n, len(STAT_FIELDS))
        missing = np.isnan(stats)
        columns = stats.T.tolist()
        for j, column in enumerate(columns):
            for i in np.flatnonzero(missing[:, j]).tolist():
                column[i] = None
        lows, highs, means, stds, norms, zeros = columns
        exact, counts = self.exact_and_histograms(d, where, n)
        histograms = counts.astype(np.int64).reshape(n, HISTOGRAM_BINS)
        histograms.flags.writeable = False
        filled = histograms.any(axis=1).tolist()
        full = set(self.ints(d["full"], where + ".full", None, 0, max(n - 1, 0)))
        dropped = set(self.ints(d["dropped"], where + ".dropped", None, 0, max(n - 1, 0)))
        blobs = {}
        for part in ("preview", "values"):
            given = d[part]
            if type(given) is not dict:
                self.fail(f"{where}.{part}", f"expected an object, found {kind_of(given)}")
            for key, text in given.items():
                if key not in ARRAY_DTYPES:
                    self.fail(f"{where}.{part}", f"unknown array dtype {visible(key)[:40]!r}")
                dtype = np.dtype(key)
                if type(text) is not str or len(self.blobs.get(text, text)) % 4:
                    self.fail(f"{where}.{part}.{key}", "expected base64 text")
                raw_len = len(self.blobs.get(text, text)) // 4 * 3 - padding(self.blobs.get(text, text))
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
            if numel > MAX_ELEMENTS:
                self.fail(f"{where}.shape[{i}]", f"{numel:,} elements is more than the {MAX_ELEMENTS:,} allowed")
            dtype = dtypes[i]
            host = hosts.get(dtype)
            if host is None:
                kind = np.dtype(dtype).kind if dtype in ARRAY_DTYPES else "f"
                host = hosts[dtype] = (host_dtype(dtype).name, kind in "iub")
            host, integral = host
            if nans[i] + infs[i] > numel:
                self.fail(f"{where}.nan[{i}]", f"{nans[i]:,} NaNs and {infs[i]:,} Infs in {numel:,} elements")
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
            out.append(
                TensorSummary(
                    shape,
                    dtype,
                    devices[i],
                    numel,
                    lo,
                    hi,
                    means[i],
                    stds[i],
                    norms[i],
                    nans[i],
                    infs[i],
                    zf,
                    histograms[i] if filled[i] else _NO_COUNTS,
                    preview,
                    values,
                    i in dropped,
                )
            )
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
        return array[used : used + count]

    def array(self, v, where: str, dtype: np.dtype, count: int) -> np.ndarray:
        if type(v) is not str:
            self.fail(where, f"expected base64 text, found {kind_of(v)}")
        v = self.blobs.get(v, v)
        expected = 4 * ((count * dtype.itemsize + 2) // 3)
        if len(v) != expected:
            self.fail(
                where, f"expected {expected:,} base64 characters for {count:,} {dtype.name} values, found {len(v):,}"
            )
        try:
            raw = binascii.a2b_base64(v, strict_mode=True)
        except (binascii.Error, ValueError) as e:
            self.fail(where, f"not valid base64: {e}")
        if len(raw) != count * dtype.itemsize:
            self.fail(where, f"holds {len(raw):,} bytes; {count:,} {dtype.name} values take {count * dtype.itemsize:,}")
        return np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype, copy=False)

    _NODE_KEYS = (
        "id",
        "op",
        "name",
        "inputs",
        "pass",
        "output",
        "requires_grad",
        "is_leaf",
        "parameter",
        "module",
        "site",
        "saved",
        "dead_units",
    )

    def nodes(self, d, where: str) -> NodeColumns:
        """Version 1 to 3: the nodes as JSON lists."""
        self.obj(
            d,
            where,
            self._NODE_KEYS + (("args",) if self.version >= 2 else ()) + (("leaf",) if self.version >= 3 else ()),
        )
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
        ops = self.names(d["op"], where + ".op", n, limit=FIELDS["strings"])
        names = self.names(d["name"], where + ".name", n, limit=FIELDS["strings"])
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
        parameters = self.names(d["parameter"], where + ".parameter", n, nullable=True, limit=FIELDS["strings"])
        modules = self.names(d["module"], where + ".module", n, nullable=True, limit=FIELDS["strings"])
        sites = self.ints(d["site"], where + ".site", n, 0, len(self.sites) - 1, nullable=True)
        saved = self.seq(d["saved"], where + ".saved", n)
        if not set(map(type, saved)) <= {list}:
            for i, row in enumerate(saved):
                self.seq(row, f"{where}.saved[{i}]")
        flat = list(chain.from_iterable(saved))
        self.names(flat, where + ".saved", len(flat), limit=FIELDS["strings"])
        dead = self.seq(d["dead_units"], where + ".dead_units", n)
        if not set(map(type, dead)) <= {type(None)}:
            for i, du in enumerate(dead):
                if du is not None:
                    if type(du) is not list or len(du) != 2:
                        self.fail(f"{where}.dead_units[{i}]", "expected null or [dead, units]")
                    dead[i] = (
                        self.integer(du[0], f"{where}.dead_units[{i}][0]"),
                        self.integer(du[1], f"{where}.dead_units[{i}][1]"),
                    )
        args = self.arguments(d["args"], where + ".args", n) if self.version >= 2 else [()] * n
        identities = self.ints(d["leaf"], where + ".leaf", n, nullable=True) if self.version >= 3 else [None] * n
        tensors, site_list = self.tensors, self.sites
        return NodeColumns.from_values(
            {
                "id": ids,
                "op": ops,
                "name": names,
                "inputs": list(map(tuple, inputs)),
                "pass_index": passes,
                "output": [None if o is None else tensors[o] for o in outputs],
                "flags": [rq * REQUIRES_GRAD | lf * IS_LEAF for rq, lf in zip(requires, leaves)],
                "parameter": parameters,
                "module": modules,
                "site": [None if st is None else site_list[st] for st in sites],
                "saved": list(map(tuple, saved)),
                "dead": dead,
                "args": args,
                "leaf": [NONE if le is None else le for le in identities],
            },
            n,
        )

    def arguments(self, rows, where: str, n: int) -> list[tuple]:
        """Each node's [[name, literal], ...]."""
        rows = self.seq(rows, where, n)
        out = []
        for i, row in enumerate(rows):
            pairs = []
            for j, pair in enumerate(self.seq(row, f"{where}[{i}]")):
                if type(pair) is not list or len(pair) != 2:
                    self.fail(f"{where}[{i}][{j}]", "expected [name, literal]")
                name, text = self.names(pair, f"{where}[{i}][{j}]", 2, limit=FIELDS["strings"])
                pairs.append((name, text))
            out.append(tuple(pairs))
        return out

    def backward_pass(self, d, where: str, nodes) -> BackwardPass:
        self.obj(
            d, where, ("index", "loss", "grad_norms", "node_count", "detailed", "finished", "root", "order", "steps")
        )
        norms = d["grad_norms"]
        if type(norms) is not dict:
            self.fail(where + ".grad_norms", f"expected an object, found {kind_of(norms)}")
        grad_norms = {}
        for k, v in norms.items():
            self.name(k, where + ".grad_norms", FIELDS["passes.grad_norms"])
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
        width, shape = (
            (4, "[node id, then tensor indexes or null: added, before, now]")
            if self.version >= 3
            else (2, "[node id, tensor index or null]")
        )
        out = []
        for i in range(n):
            gi = self.seq(grad_inputs[i], f"{where}.grad_inputs[{i}]")
            lg = self.seq(leaf_grads[i], f"{where}.leaf_grads[{i}]")
            leaves = []
            for j, row in enumerate(lg):
                place = f"{where}.leaf_grads[{i}][{j}]"
                if type(row) is not list or len(row) != width:
                    self.fail(place, f"expected {shape}")
                leaves.append(
                    LeafGrad(
                        self.node_id(row[0], place + "[0]", nodes, False),
                        *[tensor(row[k], f"{place}[{k}]") for k in range(1, width)],
                    )
                )
            out.append(
                Step(
                    at[i],
                    tensor(grad_outputs[i], f"{where}.grad_output[{i}]"),
                    [tensor(g, f"{where}.grad_inputs[{i}][{j}]") for j, g in enumerate(gi)],
                    leaves,
                )
            )
        return out

    def console_line(self, d, where: str) -> ConsoleLine:
        stamped = self.version >= CONSOLE_STAMPS_VERSION
        self.obj(d, where, ("stream", "text", "pass") + (("step", "events") if stamped else ()))
        stream = self.name(d["stream"], where + ".stream")
        if stream not in ("stdout", "stderr"):
            self.fail(where + ".stream", f'expected "stdout" or "stderr", found {stream[:40]!r}')
        step = self.opt_integer(d["step"], where + ".step") if stamped else None
        return ConsoleLine(
            stream,
            self.text(d["text"], where + ".text", FIELDS["console.text"]),
            self.integer(d["pass"], where + ".pass"),
            step,
            self.integer(d["events"], where + ".events") if stamped else 0,
        )

    def script_error(self, d, where: str, nodes) -> ScriptError:
        self.obj(d, where, ("type", "message", "traceback", "node", "site"))
        return ScriptError(
            self.name(d["type"], where + ".type", FIELDS["error.type"]),
            self.text(d["message"], where + ".message", FIELDS["error.message"]),
            self.text(d["traceback"], where + ".traceback", FIELDS["error.traceback"]),
            self.node_id(d["node"], where + ".node", nodes),
            self.site(d["site"], where + ".site"),
        )

    def finding(self, d, where: str, nodes) -> Finding:
        self.obj(d, where, ("kind", "message", "node", "pass", "parameter", "site"))
        kind = self.name(d["kind"], where + ".kind")
        if kind not in FINDING_KINDS:
            self.fail(where + ".kind", f"unknown finding kind {kind[:40]!r}")
        return Finding(
            kind,
            self.text(d["message"], where + ".message", FIELDS["findings.message"]),
            self.node_id(d["node"], where + ".node", nodes),
            self.opt_integer(d["pass"], where + ".pass"),
            self.opt_name(d["parameter"], where + ".parameter", FIELDS["findings.parameter"]),
            self.site(d["site"], where + ".site"),
        )

    def optimizer_events(self, events, where: str) -> list[OptimizerEvent]:
        out = []
        for i, d in enumerate(self.seq(events, where)):
            at = f"{where}[{i}]"
            self.obj(d, at, ("kind", "passes", "optimizer", "settings", "site", "params"))
            kind = self.name(d["kind"], at + ".kind")
            if kind not in OPTIMIZER_EVENT_KINDS:
                self.fail(
                    at + ".kind",
                    f"unknown optimizer event {kind[:40]!r}: expected one of {', '.join(OPTIMIZER_EVENT_KINDS)}",
                )
            settings = []
            for j, pair in enumerate(self.seq(d["settings"], at + ".settings")):
                if type(pair) is not list or len(pair) != 2:
                    self.fail(f"{at}.settings[{j}]", "expected [name, literal]")
                settings.append(tuple(self.names(pair, f"{at}.settings[{j}]", 2, limit=FIELDS["optimizer.settings"])))
            out.append(
                OptimizerEvent(
                    kind,
                    self.integer(d["passes"], at + ".passes"),
                    self.name(d["optimizer"], at + ".optimizer", FIELDS["optimizer.optimizer"]),
                    tuple(settings),
                    self.site(d["site"], at + ".site"),
                    self.param_changes(d["params"], at + ".params"),
                )
            )
        return out

    def param_changes(self, d, where: str) -> list[ParamChange]:
        self.obj(d, where, ("leaf", "label", "before", "update", "after", "grad", "state"))
        leaves = self.ints(d["leaf"], where + ".leaf", None)
        n = len(leaves)
        labels = self.names(d["label"], where + ".label", n, limit=FIELDS["optimizer.params.label"])
        tensor = self.tensor
        columns = [
            [tensor(v, f"{where}.{key}[{i}]") for i, v in enumerate(self.seq(d[key], f"{where}.{key}", n))]
            for key in ("before", "update", "after", "grad")
        ]
        states = []
        for i, row in enumerate(self.seq(d["state"], where + ".state", n)):
            entries = []
            for j, pair in enumerate(self.seq(row, f"{where}.state[{i}]")):
                place = f"{where}.state[{i}][{j}]"
                if type(pair) is not list or len(pair) != 2:
                    self.fail(place, "expected [name, tensor index or literal]")
                value = pair[1]
                if type(value) is str:
                    value = self.name(value, place + "[1]", FIELDS["optimizer.params.state"])
                elif type(value) is int:
                    value = tensor(value, place + "[1]")
                else:
                    self.fail(place + "[1]", f"expected a tensor index or a literal, found {kind_of(value)}")
                entries.append((self.name(pair[0], place + "[0]", FIELDS["optimizer.params.state"]), value))
            states.append(tuple(entries))
        return [
            ParamChange(leaf, label, before, update, after, state, grad)
            for leaf, label, before, update, after, grad, state in zip(leaves, labels, *columns, states)
        ]


_NO_VALUES = np.zeros(0, dtype=np.float64)
_NO_VALUES.flags.writeable = False
_NO_COUNTS = np.zeros(0, dtype=np.int64)
_NO_COUNTS.flags.writeable = False
