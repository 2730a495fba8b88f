"""What the loader's consistency check (snapshot/consistency.py) adds to a load: bench/snapshot.py's deep
record, with and without its backward pass of a step per op node, loaded, and its parts checked against
each other; target: the check costs at most a tenth of the load it is part of.

Run: python3 bench/consistency.py [--nodes N] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from snapshot import build  # bench/snapshot.py, beside this file

from graphscope.trace import snapshot
from graphscope.trace.snapshot.consistency import check_consistency
from graphscope.trace.snapshot.format import gc_paused

TARGET = 0.10  # the check's share of a load


def _seconds(f) -> float:
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def measure(nodes: int, steps: bool, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "snap.json")
        snapshot.dump(build(nodes, steps), path)
        record = snapshot.load(path)
        loads, checks = [], []
        for _ in range(repeat):  # interleaved: the machine is shared and noisy
            loads.append(_seconds(lambda: snapshot.load(path)))
            with gc_paused():  # as the loader runs it
                checks.append(_seconds(lambda: check_consistency(record, path)))
    load, check = statistics.median(loads), statistics.median(checks)
    ratio = check / load / TARGET
    what = f"{nodes:,} nodes" + (" and a step per op node" if steps else "")
    print(f"{what}: load {load:.3f} s, of which the check {check:.3f} s (medians of {repeat})")
    verdict = "ok" if ratio <= 1 else "OVER"
    print(f"  check / load {check / load:6.3f}   target <= {TARGET:g}   ratio {ratio:5.2f}  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for steps in (False, True):
        measure(args.nodes, steps, args.repeat)


if __name__ == "__main__":
    main()
