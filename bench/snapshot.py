"""Snapshot speed and size on a 100,000-node record with its backward pass (a step, with its grad output
and grad inputs, for every op node), issue 15's and 21's targets: load <= 1.5x `json.load` of the same
file and under 1 s; export < 0.5 s at <= 700 bytes per node; the peak memory of a load <= 1.2x that of
`json.load` (issue 26), each in a fresh process; and, with --million, a 1,000,000-node snapshot with a
step each loaded in a fresh process (its load time and peak memory; bench/chain_read.py adds the first
paint).

Run: python3 bench/snapshot.py [--nodes N] [--no-steps] [--million]
--no-steps also measures the record without its backward pass.
Export is timed twice: a record of Node and Step objects (as the recorder makes it) and a loaded one
(its columns written as they are).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import replace

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from fresh_process import run_fresh  # bench/fresh_process.py, beside this file

from graphscope.trace import snapshot
from graphscope.trace.record.model import (
    BackwardPass,
    Metadata,
    Node,
    Record,
    SourceSite,
    Step,
)
from graphscope.trace.record.node_table import (
    IS_LEAF,
    NONE,
    REQUIRES_GRAD,
    NodeColumns,
    NodeTable,
)
from graphscope.trace.record.step_table import StepColumns, StepTable
from graphscope.trace.record.summary_table import SummaryTable, whole
from graphscope.trace.stats.summarize import summarize

OPS = ("matmul", "add", "relu", "mul", "sum", "exp", "log", "softmax")


def _pool():
    rng = np.random.default_rng(0)
    return [summarize(rng.standard_normal((128, 128)).astype(np.float32), full_values_limit=0) for _ in range(64)]


def _sites():
    return [SourceSite("/home/user/project/train.py", 10 + i, "forward", f"h = layer{i}(h)") for i in range(20)]


def build(n: int, steps: bool) -> Record:
    """A record shaped like a deep model's: op nodes fed by earlier nodes and parameters, 64-element previews."""
    pool, sites = _pool(), _sites()
    nodes = {}

    def summary(i):
        return replace(pool[i % 64])

    for i in range(n):
        if i % 10 == 0:
            nodes[i] = Node(
                i,
                "parameter",
                output=summary(i),
                requires_grad=True,
                is_leaf=True,
                parameter=f"layers.{i // 10}.weight",
                module=f"model.layers.{i // 10}",
                site=sites[i % 20],
            )
        else:
            op = OPS[i % len(OPS)]
            nodes[i] = Node(
                i,
                op,
                f"{op.title()}Backward0",
                (i - 1, i - i % 10),
                output=summary(i),
                requires_grad=True,
                module=f"model.layers.{i // 10}",
                site=sites[i % 20],
                saved=("self", "other"),
            )
    # Record takes a dict of nodes and makes its NodeTable (__post_init__); its field is typed as the table.
    record = Record(metadata=Metadata(script="/home/user/project/train.py"), nodes=nodes)  # type: ignore[arg-type]
    if steps:
        ops = [i for i in nodes if i % 10]
        record.passes = [
            BackwardPass(
                0,
                0.5,
                {},
                n,
                True,
                True,
                ops[-1],
                tuple(reversed(ops)),
                [Step(i, summary(i), [summary(i + 1), summary(i + 2)]) for i in reversed(ops)],
            )
        ]
    return record


def build_columns(n: int, steps: bool = False) -> Record:
    """The same record as `build`, made straight as columns (a million nodes in seconds); with
    `steps`, its backward pass too, as step columns whose grads are rows of the nodes' summaries."""
    pool = SummaryTable.from_summaries(_pool())
    rows = np.arange(n) % 64
    host = pool.dtypes[0]
    previews = whole(pool.pools[host]).reshape(64, -1)[rows].reshape(-1)
    previews.flags.writeable = False
    width = previews.size // max(n, 1)
    summaries = SummaryTable(
        np.arange(n + 1, dtype=np.int64) * 2,
        np.tile(pool.dims[:2], n),
        pool.numel[rows],
        pool.dtype[rows],
        pool.dtypes,
        pool.device[rows],
        pool.devices,
        pool.stats[rows],
        {},
        pool.nan[rows],
        pool.inf[rows],
        pool.histogram[rows],
        pool.held[rows],
        np.arange(n, dtype=np.int64) * width,
        {host: previews},
    )
    ids = np.arange(n, dtype=np.int64)
    leaf = ids % 10 == 0
    layers = n // 10 + 1
    # strings: the ops, their grad_fn names, "", "self", "other", then a parameter and a module per layer
    fixed = ["parameter", "", "self", "other"] + list(OPS) + [f"{op.title()}Backward0" for op in OPS]
    strings = fixed + [f"layers.{k}.weight" for k in range(layers)] + [f"model.layers.{k}" for k in range(layers)]
    op_code = 4 + ids % len(OPS)
    counts = np.where(leaf, 0, 2)
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    op_rows = ids[~leaf]
    inputs = np.stack([op_rows - 1, op_rows - op_rows % 10], axis=1).reshape(-1)
    columns = NodeColumns(
        id=ids,
        op=np.where(leaf, 0, op_code).astype(np.int32),
        name=np.where(leaf, 1, op_code + len(OPS)).astype(np.int32),
        pass_index=np.zeros(n, dtype=np.int64),
        output=ids.copy(),
        flags=np.where(leaf, REQUIRES_GRAD | IS_LEAF, REQUIRES_GRAD).astype(np.uint8),
        parameter=np.where(leaf, len(fixed) + ids // 10, NONE).astype(np.int32),
        module=(len(fixed) + layers + ids // 10).astype(np.int32),
        site=(ids % 20).astype(np.int32),
        inputs_start=starts,
        inputs=inputs,
        saved_start=starts.copy(),
        saved=np.tile(np.array([2, 3], dtype=np.int32), len(op_rows)),
        args_start=np.zeros(n + 1, dtype=np.int64),
        arg_name=np.zeros(0, np.int32),
        arg_text=np.zeros(0, np.int32),
        dead={},
        leaf=np.full(n, NONE, dtype=np.int64),
        strings=strings,
        sites=_sites(),
        summaries=summaries,
    )
    record = Record(metadata=Metadata(script="/home/user/project/train.py"), nodes=NodeTable(columns=columns))
    if steps:
        node = op_rows[::-1].copy()
        grads = np.minimum(np.stack([node + 1, node + 2], axis=1).reshape(-1), n - 1)
        none = np.zeros(0, dtype=np.int64)
        two = np.arange(len(node) + 1, dtype=np.int64) * 2  # two grad inputs a step, no leaf grads
        no_leaves = np.zeros(len(node) + 1, np.int64)
        table = StepColumns(node, node.copy(), two, grads, no_leaves, none, none, none, none, summaries)
        order = tuple(node.tolist())
        record.passes = [BackwardPass(0, 0.5, {}, n, True, True, order[0], order, StepTable(table))]
    return record


def report(name: str, figure: float, target: float, unit: str) -> None:
    ratio = figure / target
    print(
        f"  {name:<40} {figure:9.2f} {unit:<3} target <= {target:g} {unit:<3} ratio {ratio:5.2f}  "
        f"{'ok' if ratio <= 1 else 'OVER'}"
    )


def best(f, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(n: int, steps: bool) -> None:
    record = build(n, steps)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "snap.json")
        t0 = time.perf_counter()
        snapshot.dump(record, path)  # once: the columns it makes of the nodes are kept for the next
        export = time.perf_counter() - t0
        size = os.path.getsize(path)
        del record

        def read_json():
            with open(path, "rb") as f:
                json.load(f)

        parse = best(read_json)
        load = best(lambda: snapshot.load(path))
        peak_load, peak_parse = (int(run_fresh(PEAK, path, how)[0]) for how in ("load", "json.load"))
        loaded = snapshot.load(path)
        assert len(loaded.nodes) == n
        export_columns = best(lambda: snapshot.dump(loaded, path))
    what = "nodes and a full backward pass" if steps else "nodes, no full values"
    print(f"{n:,} {what}: {size / 2**20:.1f} MiB (best of 3)")
    report("load (s)", load, 1.0, "s")
    report("load / json.load of the same file", load / parse, 1.5, "x")
    print(f"  {'  (json.load itself)':<40} {parse:9.2f} s")
    report("peak memory, load / json.load (fresh)", peak_load / peak_parse, 1.2, "x")
    print(f"  {'  (their peaks, MB)':<40} {peak_load / 1e6:5.0f} / {peak_parse / 1e6:.0f}")
    report("export, a record of objects (once)", export, 0.5, "s")
    report("export, a loaded (columnar) record", export_columns, 0.5, "s")
    report("bytes per node", size / n, 700, "B")


# The peak RSS of a fresh process that reads the file with snapshot.load or with json.load (the
# same imports for both, so the difference is the reading).
PEAK = """
import json, sys
from graphscope.trace import snapshot
if sys.argv[2] == "load":
    snapshot.load(sys.argv[1])
else:
    with open(sys.argv[1], "rb") as f:
        json.load(f)
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print(int(status["VmHWM"].split()[0]) * 1024)  # not ru_maxrss: it keeps the forking parent's peak
"""

MILLION = """
import sys, time
t0 = time.perf_counter()
from graphscope.trace import snapshot
record = snapshot.load(sys.argv[1])
took = time.perf_counter() - t0
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print(took, int(status["VmHWM"].split()[0]) * 1024, int(status["VmRSS"].split()[0]) * 1024, len(record.nodes))
"""


def million(n: int) -> None:
    record = build_columns(n, steps=True)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "million.json")
        t0 = time.perf_counter()
        snapshot.dump(record, path)
        export = time.perf_counter() - t0
        size = os.path.getsize(path)
        del record
        out = run_fresh(MILLION, path)
    took, peak, rss = float(out[0]), int(out[1]), int(out[2])
    print(f"{n:,} nodes and steps: {size / 2**20:.0f} MiB, {size / n:.0f} B per node; export {export:.2f} s (columns)")
    report("load in a fresh process (s)", took, 5.0, "s")
    report("its peak memory (GB)", peak / 1e9, 1.5, "GB")
    print(f"  {'  (resident after the load)':<40} {rss / 1e9:9.2f} GB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--no-steps", action="store_true", help="also measure a record without a backward pass")
    parser.add_argument("--million", action="store_true", help="also load a 1,000,000-node, 1,000,000-step snapshot")
    args = parser.parse_args()
    measure(args.nodes, True)
    if args.no_steps:
        measure(args.nodes, False)
    if args.million:
        million(1_000_000)


if __name__ == "__main__":
    main()
