"""Hostile snapshot files, generated here and read in a subprocess with a time and a memory limit:
counts that would overflow, JSON that would exhaust memory; each is one line and exit 2."""

import base64
import json
import signal
import subprocess
import sys

import numpy as np
from hostile_helpers import HANG_SECONDS, env, graphscope, loads, one_line_error, script

from graphscope.trace import snapshot
from graphscope.trace.atomic_file import TEMP_MARK
from graphscope.trace.record import Metadata, Node, Record
from graphscope.trace.summary import summarize
from graphscope.trace.summary_table import FULL
from graphscope.trace.tensor_summary import HISTOGRAM_BINS

TRAIN = """
    import graphscope as gs
    w = gs.ones(3, requires_grad=True)
    (w * 2).sum().backward()
"""
SMALL_READ = 500 * 2**20  # the bar for a hostile file under 1 MB: refused within 500 MB


def _doc() -> dict:
    """A valid snapshot of one 6-element tensor, as JSON data."""
    node = Node(0, "tensor", output=summarize(np.arange(6, dtype=np.float32)))
    return json.loads(snapshot.dumps(Record(metadata=Metadata(script="model.py"), nodes={0: node})))


def _column(values, dtype="int64") -> dict:
    return {"dtype": dtype, "data": base64.b64encode(np.array(values, dtype=dtype).tobytes()).decode()}


def _with_rows(doc: dict, n: int, dims: list[int], held: int) -> dict:
    """`doc` with its tensor table replaced by `n` float32 rows of shape `dims`, held as `held`."""
    t = doc["tensors"]
    t.update(count=n, dtype=_column([0] * n), device=_column([0] * n), ndim=_column([len(dims)] * n),
             dims=_column(dims * n), nan=_column([0] * n), inf=_column([0] * n), held=_column([held] * n),
             stats=base64.b64encode(np.zeros((n, 6)).tobytes()).decode(), exact=[],
             histogram=_column([0] * (n * HISTOGRAM_BINS), "uint32"), values={})
    doc["nodes"]["output"] = _column([-1])
    return doc


def _write(tmp_path, doc: dict, name: str = "hostile.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


# --- counts (issue 26, item 7) --------------------------------------------------------------------


def test_full_rows_whose_value_counts_wrap_a_64_bit_sum_are_refused(tmp_path):
    """Four rows of 2**62 values each: their sum wraps to 0, which the empty pools would match."""
    path = _write(tmp_path, _with_rows(_doc(), 4, [2**31, 2**31], FULL))
    for command in ("summary", "explain"):
        one_line_error(graphscope(command, path, memory=SMALL_READ), 2, str(path), "tensors.values",
                       "18,446,744,073,709,551,616")


def test_nan_and_inf_counts_whose_sum_wraps_are_refused(tmp_path):
    doc = _doc()
    doc["tensors"]["nan"] = _column([2**62])
    doc["tensors"]["inf"] = _column([2**62])
    path = _write(tmp_path, doc)
    one_line_error(graphscope("summary", path, memory=SMALL_READ), 2, str(path), "tensors.nan[0]",
                   "4,611,686,018,427,387,904 NaNs and 4,611,686,018,427,387,904 Infs in 6 elements")


def test_a_histogram_count_past_the_tensors_elements_is_refused(tmp_path):
    doc = _doc()
    doc["tensors"]["histogram"] = _column([2**62] + [0] * (HISTOGRAM_BINS - 1))
    path = _write(tmp_path, doc)
    one_line_error(graphscope("summary", path, memory=SMALL_READ), 2, str(path), "tensors.histogram.data",
                   "row 0: a count of 4,611,686,018,427,387,904 in 6 elements")


# --- a writer killed mid-write (issue 26, item 11) ------------------------------------------------


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
        "sys.exit(main())\n")
    model = script(tmp_path, TRAIN)
    out = tmp_path / "out.json"
    killed = subprocess.run([sys.executable, "-c", killed_mid_write, "run", "--headless", "--export", str(out),
                             str(model)], capture_output=True, env=env(), timeout=HANG_SECONDS, check=False)
    assert killed.returncode == -signal.SIGKILL
    assert [p.name for p in tmp_path.iterdir() if TEMP_MARK in p.name]  # left behind
    result = graphscope("run", "--headless", "--export", out, model)
    assert result.returncode == 0, result.stderr[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.py", "out.json"]
    loads(out)
