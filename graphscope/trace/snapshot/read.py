"""Reading a snapshot: its JSON parsed (`parse`), validated and built into the record; nothing in it is ever executed.

One reader method per part of the record, in the document's order; the checks of single values and
columns they share are `fields`, the columns (version 4 on) `columns_read`, the older lists `rows_read`."""

from __future__ import annotations

import os

import numpy as np
from numpy.typing import NDArray

from ..record.limits import FIELDS, ID_LIMIT
from ..record.literal import visible
from ..record.model import (
    FINDING_KINDS,
    OPTIMIZER_EVENT_KINDS,
    BackwardPass,
    ConsoleLine,
    Finding,
    Metadata,
    OptimizerEvent,
    ParamChange,
    Record,
    ScriptError,
    SourceSite,
)
from ..record.node_columns import offsets
from ..record.node_fields import NONE
from ..record.node_table import NodeTable
from ..record.pass_history import PassHistory
from ..record.step_table import StepColumns, StepTable
from ..record.summary_table import SummaryTable
from ..record.training import TrainingSeries
from .consistency import check_consistency
from .fields import Json, kind_of
from .file import read_snapshot_bytes, size_text
from .format import (
    COLUMNS_VERSION,
    CONSOLE_STAMPS_VERSION,
    FORMAT,
    STEPS_VERSION,
    TRAINING_VERSION,
    VERSION,
    SnapshotError,
    gc_paused,
)
from .parse import parse
from .rows_read import RowReader
from .training_columns import TrainingReader


def load(path: str | os.PathLike[str]) -> Record:
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
            record = RecordReader(source, blobs).record(doc)
            check_consistency(record, source)
            return record
    except MemoryError:  # building what the estimate did not foresee
        raise _short_of_memory(source, len(data)) from None


def _short_of_memory(source: str, size: int) -> SnapshotError:
    return SnapshotError(source, "", f"not enough memory to read it (the file is {size_text(size)})")


class RecordReader(RowReader, TrainingReader):
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

    def record(self, doc: Json) -> Record:
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
        passes = PassHistory()  # the passes without detail as rows, as when recorded
        # (a PassHistory reads as the list Record.passes is declared as; the recorder holds one too)
        record.passes = passes  # type: ignore[assignment]
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
        if self.version >= TRAINING_VERSION:
            record.training = self.training(self.obj(doc, "", ("training",))["training"], "training")
        else:
            record.training = TrainingSeries.from_passes(record.passes)
        return record

    def rules(self, d: Json, where: str) -> dict[str, str]:
        """op -> its derivative rule's text."""
        self.obj(d, where, ())
        return {
            self.name(op, where, FIELDS["rules.op"]): self.text(rule, f"{where}.{visible(op[:80])}", FIELDS["rules"])
            for op, rule in d.items()
        }

    def source_site(self, d: Json, where: str) -> SourceSite:
        self.obj(d, where, ("file", "line", "function", "text"))
        return SourceSite(
            self.name(d["file"], where + ".file", FIELDS["sites.file"]),
            self.integer(d["line"], where + ".line"),
            self.name(d["function"], where + ".function", FIELDS["sites.function"]),
            self.text(d["text"], where + ".text", FIELDS["sites.text"]),
        )

    def metadata(self, d: Json, where: str) -> Metadata:
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
            started=self.name(d["started"], where + ".started", FIELDS["metadata.started"]),
            finished=self.name(d["finished"], where + ".finished", FIELDS["metadata.finished"]),
            exit_code=self.opt_integer(d["exit_code"], where + ".exit_code", *FIELDS["metadata.exit_code"]),
            graphscope_version=self.name(
                d["graphscope_version"], where + ".graphscope_version", FIELDS["metadata.graphscope_version"]
            ),
            python_version=self.name(d["python_version"], where + ".python_version", FIELDS["metadata.python_version"]),
            numpy_version=self.name(d["numpy_version"], where + ".numpy_version", FIELDS["metadata.numpy_version"]),
            device=self.name(d["device"], where + ".device", FIELDS["metadata.device"]),
            keep_first=self.integer(d["keep_first"], where + ".keep_first"),
            keep_last=self.opt_integer(d["keep_last"], where + ".keep_last"),
            full_values_limit=self.integer(d["full_values_limit"], where + ".full_values_limit"),
            memory_budget=self.integer(d["memory_budget"], where + ".memory_budget", 0, 2**62),
        )

    def backward_pass(self, d: Json, where: str, nodes: NodeTable) -> BackwardPass:
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
        if self.version >= STEPS_VERSION:  # a column with its count
            given = self.obj(d["order"], where + ".order", ("count",))
            order = self.column(given, where + ".order", self.count(given, where + ".order"), 0, ID_LIMIT)
        else:
            order = np.array(self.ints(d["order"], where + ".order", None), dtype=np.int64)
        self.known(order, nodes.columns().id, where + ".order")
        return BackwardPass(
            index=self.integer(d["index"], where + ".index"),
            loss=self.real(d["loss"], where + ".loss"),
            grad_norms=grad_norms,
            node_count=self.integer(d["node_count"], where + ".node_count"),
            detailed=self.boolean(d["detailed"], where + ".detailed"),
            finished=self.boolean(d["finished"], where + ".finished"),
            root=self.node_id(d["root"], where + ".root", nodes),
            order=tuple(order.tolist()),
            steps=StepTable(
                self.step_columns(d["steps"], where + ".steps", nodes.columns().id, self.step_summaries())
                if self.version >= STEPS_VERSION
                else self.step_lists(d["steps"], where + ".steps", nodes)
            ),
        )

    def step_lists(self, d: Json, where: str, nodes: NodeTable) -> StepColumns:
        """A pass's steps as versions before 6 wrote them (lists), checked and made into columns."""
        self.obj(d, where, ("node", "grad_output", "grad_inputs", "leaf_grads"))
        at = self.ints(d["node"], where + ".node", None)
        n = len(at)
        self.known(np.array(at, dtype=np.int64), nodes.columns().id, where + ".node")
        top = len(self.tensors) - 1
        grad_output = self.ints(d["grad_output"], where + ".grad_output", n, 0, top, nullable=True)
        grad_inputs = self.seq(d["grad_inputs"], where + ".grad_inputs", n)
        leaf_grads = self.seq(d["leaf_grads"], where + ".leaf_grads", n)
        width, shape = (
            (4, "[node id, then tensor indexes or null: added, before, now]")
            if self.version >= 3
            else (2, "[node id, tensor index or null]")
        )
        inputs: list[int | None] = []
        leaves: list[tuple[int, int | None, int | None, int | None]] = []
        for i in range(n):
            inputs += self.ints(grad_inputs[i], f"{where}.grad_inputs[{i}]", None, 0, top, nullable=True)
            lg = self.seq(leaf_grads[i], f"{where}.leaf_grads[{i}]")
            for j, row in enumerate(lg):
                place = f"{where}.leaf_grads[{i}][{j}]"
                if type(row) is not list or len(row) != width:
                    self.fail(place, f"expected {shape}")
                leaf = self.node_id(row[0], place + "[0]", nodes, False)
                grads = [self.opt_integer(row[k], f"{place}[{k}]", 0, top) for k in range(1, width)]
                leaves.append((leaf, grads[0], *grads[1:], *[None] * (4 - width)))  # type: ignore[arg-type]  # four in all
        leaf_columns = np.array([[NONE if v is None else v for v in row] for row in leaves], np.int64).reshape(-1, 4)
        return StepColumns(
            np.array(at, dtype=np.int64),
            _rows(grad_output),
            offsets([len(g) for g in grad_inputs]),
            _rows(inputs),
            offsets([len(g) for g in leaf_grads]),
            leaf_columns[:, 0].copy(),
            leaf_columns[:, 1].copy(),
            leaf_columns[:, 2].copy(),
            leaf_columns[:, 3].copy(),
            self.step_summaries(),
        )

    def step_summaries(self) -> SummaryTable:
        """The tensors as the steps' rows point into them: the document's table (before version 4,
        its list of summaries, made into a table once)."""
        if not isinstance(self.tensors, SummaryTable):
            self.tensors = SummaryTable.from_summaries(self.tensors)
        return self.tensors

    def console_line(self, d: Json, where: str) -> ConsoleLine:
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

    def script_error(self, d: Json, where: str, nodes: NodeTable) -> ScriptError:
        self.obj(d, where, ("type", "message", "traceback", "node", "site"))
        return ScriptError(
            self.name(d["type"], where + ".type", FIELDS["error.type"]),
            self.text(d["message"], where + ".message", FIELDS["error.message"]),
            self.text(d["traceback"], where + ".traceback", FIELDS["error.traceback"]),
            self.node_id(d["node"], where + ".node", nodes),
            self.site(d["site"], where + ".site"),
        )

    def finding(self, d: Json, where: str, nodes: NodeTable) -> Finding:
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

    def optimizer_events(self, events: Json, where: str) -> list[OptimizerEvent]:
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
                name, value = self.names(pair, f"{at}.settings[{j}]", 2, limit=FIELDS["optimizer.settings"])
                settings.append((name, value))
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

    def param_changes(self, d: Json, where: str) -> list[ParamChange]:
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


def _rows(values: list[int | None]) -> NDArray[np.int64]:
    """Summary rows from a list (None: NONE)."""
    return np.array([NONE if v is None else v for v in values], dtype=np.int64)
