"""Reading a record of real shape (issue 21): a 100,000-node chain with its backward pass.

The chain script (`h = h * 0.9999 + 0.001` 50,000 times, then `h.sum().backward()`) is recorded
headless in a fresh process (or --snapshot names such an export), then, each in a fresh process,
interleaved and repeated (medians):
  - `graphscope summary` of the file (load + summary printed) / `json.load` of the same file: <= 1.5x
  - `graphscope view` of it: load to first paint < 1 s (bench/tui.py's harness)
With --million, a 1,000,000-node record with a backward step for each op node (bench/snapshot.py's
`build_columns`): load and first paint < 5 s, peak memory <= 1.5 GB.

Run: python3 bench/chain_read.py [--repeats 3] [--snapshot FILE] [--million]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, ROOT)

from fresh_process import run_fresh  # bench/fresh_process.py, beside this file

CHAIN = """
import graphscope as gs
h = gs.tensor([1.0, 2.0, 3.0], requires_grad=True)
for _ in range(50_000):
    h = h * 0.9999 + 0.001
h.sum().backward()
"""

# CPU seconds to read the file in a fresh process (CPU time: the machine may be shared), after the
# imports both ways share: `graphscope summary`'s load and printed summary, or `json.load`.
READ = """
import io, json, sys, time
from rich.console import Console
from graphscope.trace.report.summary_report import print_summary
from graphscope.trace.snapshot import load
start = time.process_time()
if sys.argv[2] == "summary":
    print_summary(load(sys.argv[1]), Console(file=io.StringIO(), width=100))
else:
    with open(sys.argv[1], "rb") as f:
        json.load(f)
print(time.process_time() - start)
"""

# The same record written with every tensor's statistics stored (as version 7 wrote it, before a
# snapshot left out those its values derive): the reference the figures were taken against.
EVERY_FIGURE = """
import sys
from unittest import mock
import numpy as np
from graphscope.trace import snapshot
from graphscope.trace.snapshot import columns_write
record = snapshot.load(sys.argv[1])
with mock.patch.object(columns_write, "agreeing", lambda t: np.zeros(len(t), dtype=bool)):
    snapshot.dump(record, sys.argv[2])
"""


def report(name: str, figure: float, target: float, unit: str) -> None:
    ratio = figure / target
    print(
        f"  {name:<44} {figure:8.2f} {unit:<3} target <= {target:g} {unit:<3} ratio {ratio:5.2f}  "
        f"{'ok' if ratio <= 1 else 'OVER'}"
    )


def record_chain(folder: str) -> str:
    """The chain script recorded headless, exported; its path."""
    script, path = os.path.join(folder, "chain.py"), os.path.join(folder, "chain.json")
    with open(script, "w") as f:
        f.write(CHAIN)
    subprocess.run(
        [sys.executable, "-m", "graphscope", "run", "--headless", "--export", path, script],
        check=True,
        capture_output=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
        cwd=ROOT,
    )
    return path


def chain(path: str, repeats: int) -> None:
    from tui import app_process  # bench/tui.py: the app opened in a fresh process

    stored = path + ".every-figure.json"
    run_fresh(EVERY_FIGURE, path, stored)
    summary, parse, parse_stored, paint = [], [], [], []
    for _ in range(repeats):  # interleaved: the machine's load falls on every case alike
        summary.append(float(run_fresh(READ, path, "summary")[-1]))
        parse.append(float(run_fresh(READ, path, "json")[-1]))
        parse_stored.append(float(run_fresh(READ, stored, "json")[-1]))
        paint.append(app_process(path)[1])
    os.remove(stored)
    ratios = [s / p for s, p in zip(summary, parse)]
    size = os.path.getsize(path)
    print(
        f"the chain record, 100,000 nodes and steps ({size / 2**20:.0f} MiB), median of {repeats}, "
        "fresh processes, CPU time:"
    )
    report("graphscope summary / json.load", statistics.median(ratios), 1.5, "x")
    print(f"  {'  (summary, json.load)':<44} {statistics.median(summary):8.2f} s / {statistics.median(parse):.2f} s")
    print(
        f"  {'  summary / json.load, every figure stored':<44} "
        f"{statistics.median([s / p for s, p in zip(summary, parse_stored)]):8.2f} x "
        f"(json.load {statistics.median(parse_stored):.2f} s of the file as version 7 wrote it)"
    )
    report("graphscope view: load + first paint", statistics.median(paint), 1.0, "s")


def million() -> None:
    from snapshot import build_columns  # bench/snapshot.py
    from tui import app_process

    from graphscope.trace import snapshot

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "million.json")
        snapshot.dump(build_columns(1_000_000, steps=True), path)
        size = os.path.getsize(path)
        load, paint, _, _, peak = app_process(path)
    print(f"1,000,000 nodes with a backward step each ({size / 2**20:.0f} MiB), the app in a fresh process:")
    report("load + first paint", paint, 5.0, "s")
    report("peak memory (GB)", peak / 1e9, 1.5, "GB")
    print(f"  {'  (the load alone)':<44} {load:8.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--snapshot", help="an export of the chain script (else it is recorded now)")
    parser.add_argument("--million", action="store_true", help="also open a 1,000,000-node, 1,000,000-step record")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        chain(args.snapshot or record_chain(folder), args.repeats)
    if args.million:
        million()


if __name__ == "__main__":
    main()
