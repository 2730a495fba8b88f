"""Hostile snapshots. Files generated here and read in a subprocess with a time and a memory limit
(counts that would overflow, JSON that would exhaust memory) are each one line and exit 2; runs that
give every limited field too much, and a writer killed mid-write, leave exports that load."""

import base64
import json
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from graphscope.trace.record.limits import FIELDS, clamp
from graphscope.trace.record.model import ACCUMULATED_GRAD, Metadata, Node, Record
from graphscope.trace.record.summary_table import FULL
from graphscope.trace.record.tensor_summary import HISTOGRAM_BINS
from graphscope.trace.snapshot.atomic_file import TEMP_MARK
from graphscope.trace.stats.summarize import summarize
from tests.graphscope_command import HANG_SECONDS, env, graphscope, script
from tests.hostile.hostile_helpers import loads, one_line_error
from tests.trace.snapshot_v7 import every_figure_stored

TRAIN = """
    import graphscope as gs
    w = gs.ones(3, requires_grad=True)
    (w * 2).sum().backward()
"""
SMALL_READ = 500 * 2**20  # the bar for a hostile file under 1 MB: refused within 500 MB
NAME, TEXT, LONG = FIELDS["strings"], FIELDS["metadata.argv"], FIELDS["console.text"]
EXIT_LOW, EXIT_HIGH = FIELDS["metadata.exit_code"]


def _doc() -> dict:
    """A valid snapshot of one 6-element tensor, as JSON data (its statistics stored, not derived)."""
    node = Node(0, "tensor", output=summarize(np.arange(6, dtype=np.float32)))
    return every_figure_stored(Record(metadata=Metadata(script="model.py"), nodes={0: node}))


def _column(values, dtype="int64") -> dict:
    return {"dtype": dtype, "data": base64.b64encode(np.array(values, dtype=dtype).tobytes()).decode()}


def _with_rows(doc: dict, n: int, dims: list[int], held: int) -> dict:
    """`doc` with its tensor table replaced by `n` float32 rows of shape `dims`, held as `held`."""
    t = doc["tensors"]
    t.update(
        count=n,
        dtype=_column([0] * n),
        device=_column([0] * n),
        ndim=_column([len(dims)] * n),
        dims=_column(dims * n),
        nan=_column([0] * n),
        inf=_column([0] * n),
        held=_column([held] * n),
        derived=_column([0] * n, "uint8"),
        stats=base64.b64encode(np.zeros((n, 6)).tobytes()).decode(),
        exact=[],
        histogram=_column([0] * (n * HISTOGRAM_BINS), "uint32"),
        values={},
    )
    doc["nodes"]["output"] = _column([-1])
    return doc


def _labels(record) -> set[str]:
    """The leaf labels of a record's passes."""
    return {k for p in record.passes for k in p.grad_norms}


def _write(tmp_path, doc: dict, name: str = "hostile.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


# --- counts (issue 26, item 7) --------------------------------------------------------------------


@pytest.mark.slow
def test_full_rows_whose_value_counts_wrap_a_64_bit_sum_are_refused(tmp_path):
    """Four rows of 2**62 values each: their sum wraps to 0, which the empty pools would match."""
    path = _write(tmp_path, _with_rows(_doc(), 4, [2**31, 2**31], FULL))
    for command in ("summary", "explain"):
        one_line_error(
            graphscope(command, path, memory=SMALL_READ), 2, str(path), "tensors.values", "18,446,744,073,709,551,616"
        )


def test_nan_and_inf_counts_whose_sum_wraps_are_refused(tmp_path):
    doc = _doc()
    doc["tensors"]["nan"] = _column([2**62])
    doc["tensors"]["inf"] = _column([2**62])
    path = _write(tmp_path, doc)
    one_line_error(
        graphscope("summary", path, memory=SMALL_READ),
        2,
        str(path),
        "tensors.nan[0]",
        "4,611,686,018,427,387,904 NaNs and 4,611,686,018,427,387,904 Infs in 6 elements",
    )


def test_a_histogram_count_past_the_tensors_elements_is_refused(tmp_path):
    doc = _doc()
    doc["tensors"]["histogram"] = _column([2**62] + [0] * (HISTOGRAM_BINS - 1))
    path = _write(tmp_path, doc)
    one_line_error(
        graphscope("summary", path, memory=SMALL_READ),
        2,
        str(path),
        "tensors.histogram.data",
        "row 0: a count of 4,611,686,018,427,387,904 in 6 elements",
    )


# --- memory (issue 26, item 6) ------------------------------------------------------------------------


def _with_json(tmp_path, section: str, junk: bytes, name: str) -> Path:
    """A valid snapshot whose `section` is `junk` (JSON text), written as bytes."""
    path = tmp_path / name
    text = json.dumps({**_doc(), section: None}).encode()
    before, after = text.split(f'"{section}": null'.encode())
    path.write_bytes(before + f'"{section}": '.encode() + junk + after)
    return path


@pytest.mark.slow
def test_json_that_would_take_more_memory_than_the_process_has_is_refused_before_it_is_built(tmp_path):
    """100 MB of empty objects (2.6 GB once parsed) in a process that may take 1.5 GB."""
    path = _with_json(tmp_path, "console", b"[" + b"{}," * (100 * 2**20 // 3) + b"{}]", "objects.json")
    one_line_error(graphscope("summary", path, memory=1500 * 2**20), 2, str(path), "100.0 MiB", "memory", "GiB")


@pytest.mark.slow
def test_a_long_list_of_numbers_past_the_memory_the_process_has_is_refused_before_it_is_built(tmp_path):
    """161 MB of floats (1.4 GB once parsed) in a process that may take 1 GB."""
    path = _with_json(tmp_path, "findings", b"[" + b"0.5," * (161 * 10**6 // 4) + b"1]", "floats.json")
    one_line_error(graphscope("summary", path, memory=2**30), 2, str(path), "MiB", "memory")


def test_a_file_larger_than_the_memory_the_process_has_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "sparse.json"
    with open(path, "wb") as f:
        f.write(b"{")
        f.truncate(2**30)  # sparse: a gigabyte that takes no disk
    one_line_error(graphscope("summary", path, memory=SMALL_READ), 2, str(path), "1.0 GiB", "memory")


# --- a writer killed mid-write (issue 26, item 11) ------------------------------------------------


@pytest.mark.slow
def test_the_partial_file_of_an_export_killed_mid_write_is_removed_by_the_next_export(tmp_path):
    killed_mid_write = (
        "import os, signal, sys\n"
        "real = os.write\n"
        "def write(fd, data):\n"
        "    if os.readlink(f'/proc/self/fd/{fd}').find('" + TEMP_MARK + "') >= 0:\n"
        "        real(fd, bytes(data[:10]))\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return real(fd, data)\n"
        "os.write = write\n"
        "from graphscope.cli import main\n"
        "sys.exit(main())\n"
    )
    model = script(tmp_path, TRAIN)
    out = tmp_path / "out.json"
    killed = subprocess.run(
        [sys.executable, "-c", killed_mid_write, "run", "--headless", "--export", str(out), str(model)],
        capture_output=True,
        env=env(),
        timeout=HANG_SECONDS,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL
    assert [p.name for p in tmp_path.iterdir() if TEMP_MARK in p.name]  # left behind
    result = graphscope("run", "--headless", "--export", out, model)
    assert result.returncode == 0, result.stderr[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.py", "out.json"]
    loads(out)


# --- every export loads (issue 26, item 8; issue 25's names) ------------------------------------------


@pytest.mark.slow
def test_the_runs_whose_exports_did_not_load_now_export_what_loads(tmp_path):
    model = script(
        tmp_path,
        """
        import sys
        import graphscope as gs
        from graphscope import nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                setattr(self, "a" * 5000, nn.Linear(2, 2))
                setattr(self, "sub\\x07" + "m" * 5000, nn.Linear(2, 2))
                setattr(self, "w\\x1b[2J\\nx", nn.Parameter(gs.ones(2)))

            def forward(self, x):
                for layer in list(self._modules.values()):
                    x = layer(x)
                return (x * getattr(self, "w\\x1b[2J\\nx")).sum()

        Model()(gs.ones(1, 2)).backward()
        print("p" * (4 * 2**20 + 10))
        sys.exit(2**40 + 3)
    """,
    )
    out = tmp_path / "out.json"
    result = graphscope("run", "--headless", "--export", out, model, "x" * 70_000)
    assert "snapshot written" in result.stderr, result.stderr[-2000:]
    record = loads(out)
    assert record.metadata.exit_code == 2**40 + 3
    assert len(record.metadata.argv[0]) == FIELDS["metadata.argv"] and len(record.console[0].text) == LONG
    labels = _labels(record)
    assert "w\\x1b[2J\\x0ax" in labels and len(labels) == 5 and max(map(len, labels)) == NAME


# --- every export loads: each limited field at its limit and one either side (issue 26, item 8) -----

# A script that gives every limited field a value of its limit + D characters (its first argument
# is TEXT + D long), ends as its second argument says: an exit code, or an exception whose type
# name and message are at their limits + D, or a ValueError of K characters (a traceback's length).
LIMITED = """
import sys
import graphscope as gs
from graphscope import nn, optim
from graphscope.engine.autograd.custom import _custom_rule

D = len(sys.argv[1]) - {TEXT}
N, T, L = {NAME} + D, {TEXT} + D, {LONG} + D
print("c" * L)

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        setattr(self, "m" * (N - len("model.")), nn.Linear(2, 2))  # a module "model.mmm"
        setattr(self, "p" * N, nn.Parameter(gs.ones(2)))  # a parameter "ppp"

    def forward(self, x):
        return getattr(self, "m" * (N - len("model.")))(x) * getattr(self, "p" * N)

class Op(gs.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2

Op.__name__ = "O" * N  # the op's name (and "OOO…Backward", its grad_fn's)
Op.__qualname__ = "Q" * (T - len(_custom_rule(Op)) + len(Op.__qualname__))  # its rule: T characters

class SGD(optim.SGD):
    def step(self):
        for p in self.param_groups[0]["params"]:
            self.state[p]["s" * N] = 1.0  # a state entry
        super().step()

SGD.__name__ = "S" * N
model = Model()
optimizer = SGD([{{"params": list(model.parameters()), "k" * N: 1}}], lr=0.1)  # a setting

def run(x):
    return Op.apply(model(x)).sum()

run.__code__ = run.__code__.replace(co_name="f" * N)  # a site's function
at_file = compile("loss = run(gs.ones(1, 2))", "F" * N, "exec")  # a site's file
for _ in range(3):  # grads accumulated, unzeroed: a finding naming the parameters
    exec(at_file)
    loss.backward()
    optimizer.step()
keep = []
for _ in range(2):  # two leaves held by one variable: "vvv" and "vvv#2"
    {VARIABLE} = gs.ones(2, requires_grad=True)
    keep.append({VARIABLE})
    ({VARIABLE} * 3).sum().backward()
y = (keep[0] * 4).sum()  # {LINE}
y.backward()
ending = sys.argv[2]
if ending == "error":
    raise type("E" * N, (Exception,), {{}})("e" * L)
if ending.startswith("traceback:"):
    raise ValueError("t" * int(ending.split(":")[1]))
sys.exit(int(ending))
"""


def _limited_run(tmp_path, d: int, ending: str):
    """Run LIMITED at limit + d, ending as `ending` (the script's traceback, if any, printed before
    "snapshot written"); its export, loaded."""
    source = LIMITED.format(
        TEXT=TEXT,
        NAME=NAME,
        LONG=LONG,
        VARIABLE="v" * (NAME + d),
        LINE="l" * (TEXT + d - len("y = (keep[0] * 4).sum()  # ")),
    )
    path = script(tmp_path, source, "limited.py")
    out = tmp_path / "limited.json"
    result = graphscope("run", "--headless", "--export", out, path, "a" * (TEXT + d), ending)
    assert result.stderr.rstrip().splitlines()[-1].startswith("snapshot written"), result.stderr[-3000:]
    return loads(out)


def _held(recorded, given: str, limit: int, keep_end: bool = False) -> None:
    """`given` is among `recorded` whole if it fits in `limit` characters; else cut to `limit`
    characters, marked, keeping its start (its end for a traceback)."""
    if len(given) <= limit:
        assert given in recorded, (len(given), limit, [len(r) for r in recorded])
        return
    kept = [
        r
        for r in recorded
        if len(r) == limit
        and "…[cut from " in r
        and (r.endswith(given[-20:]) if keep_end else r.startswith(given[:20]))
    ]
    assert kept, (len(given), limit, [len(r) for r in recorded])


def _names_and_texts(record, d: int) -> None:
    """Every field a script names or writes, given limit + d characters, held as `_held` says."""
    n, t = NAME + d, TEXT + d
    _held(record.metadata.argv, "a" * t, TEXT)
    _held([c.text for c in record.console], "c" * (LONG + d), LONG)
    nodes = list(record.nodes.values())
    sites = [s for node in nodes if (s := node.site) is not None]
    _held([s.file for s in sites], "F" * n, NAME)
    _held([s.function for s in sites], "f" * n, NAME)
    _held([s.text for s in sites], f"y = (keep[0] * 4).sum()  # {'l' * (t - 27)}"[:1000], TEXT)  # lines: 1,000
    strings = list(record.nodes.columns().strings)
    for given in ("model." + "m" * (n - 6), "p" * n, "O" * n, "O" * n + "Backward", "v" * n, "v" * n + "#2"):
        _held(strings, given, NAME)
    labels = {"p" * n, "m" * (n - 6) + ".weight", "v" * n, "v" * n + "#2"}
    for given in labels:
        _held(_labels(record), given, NAME)
        _held(list(record.training.params), given, NAME)
    _held(list(record.training.activations), "model." + "m" * (n - 6), NAME)
    step = next(e for e in record.optimizer if e.kind == "step")
    _held([name for name, _ in step.settings], "k" * n, NAME)
    _held([c.label for c in step.params], "p" * n, NAME)
    _held([name for c in step.params for name, _ in c.state], "s" * n, NAME)
    _held([e.optimizer for e in record.optimizer], "S" * n, NAME)
    line = LIMITED.splitlines().index("    def backward(ctx, g):") + 1
    rule = f"custom backward: .backward (limited.py:{line})"
    _held(list(record.rules.values()), rule.replace(".backward", "Q" * (t - len(rule)) + ".backward"), TEXT)
    finding = next(f for f in record.findings if f.kind == ACCUMULATED_GRAD)
    assert finding.parameter in _labels(record) and len(finding.message) <= FIELDS["findings.message"]


@pytest.mark.parametrize(
    ("d", "code"),
    [(-1, EXIT_LOW - 1), (0, EXIT_LOW), (1, EXIT_LOW + 1), (-1, EXIT_HIGH - 1), (0, EXIT_HIGH), (1, EXIT_HIGH + 1)],
)
@pytest.mark.slow
def test_an_export_at_every_limit_and_one_either_side_loads_with_what_fits(tmp_path, d, code):
    record = _limited_run(tmp_path, d, str(code))
    _names_and_texts(record, d)
    assert record.metadata.exit_code == clamp(code, FIELDS["metadata.exit_code"])


@pytest.mark.parametrize("d", [-1, 0, 1])
@pytest.mark.slow
def test_a_scripts_error_at_its_limits_and_one_either_side_loads_with_what_fits(tmp_path, d):
    error = _limited_run(tmp_path, d, "error").error
    _held([error.type], "E" * (NAME + d), FIELDS["error.type"])
    _held([error.message], "e" * (LONG + d), FIELDS["error.message"])


@pytest.mark.slow
def test_a_traceback_at_its_limit_and_one_either_side_loads_with_its_end(tmp_path):
    short = _limited_run(tmp_path, 0, "traceback:100").error.traceback
    around = len(short) - 100  # the traceback beside its message
    for d in (-1, 0, 1):
        traceback = _limited_run(tmp_path, 0, f"traceback:{LONG + d - around}").error.traceback
        given = short[: -len("t" * 100 + "\n")] + "t" * (LONG + d - around) + "\n"
        _held([traceback], given, FIELDS["error.traceback"], keep_end=True)


def test_every_limited_field_is_driven_to_its_limit_by_a_test_above():
    driven = {
        "metadata.argv",
        "metadata.exit_code",
        "console.text",
        "error.type",
        "error.message",
        "error.traceback",
        "sites.file",
        "sites.function",
        "sites.text",
        "strings",
        "passes.grad_norms",
        "findings.parameter",
        "optimizer.optimizer",
        "optimizer.settings",
        "optimizer.params.label",
        "optimizer.params.state",
        "rules",
        "training.params.name",
        "training.activations.module",
    }
    # Under their limits by construction: a path the system can open (PATH_MAX, 4,096) and a
    # finding's message (graphscope's words and at most three names).
    bounded = {"metadata.script", "findings.message"}
    # graphscope's own words (a time, versions, a device), and the rules' keys (ops, driven above):
    # the writer fits them all the same (test_writer_limits.py).
    own = {f"metadata.{k}" for k in ("started", "finished", "graphscope_version", "python_version")}
    own |= {"metadata.numpy_version", "metadata.device", "rules.op"}
    # What a script logs (a scalar's tag) comes through SummaryWriter, not recorded here yet: the writer
    # fits it (test_writer_limits.py).
    logged = {"training.scalars.tag"}
    assert driven | bounded | own | logged == set(FIELDS)
