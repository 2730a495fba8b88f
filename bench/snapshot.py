"""Snapshot speed and size on a 100,000-node record: export < 1 s, load < 2 s, <= 1 KiB per node.

Run: python3 bench/snapshot.py [--nodes N] [--steps]
--steps adds one backward pass with a step (grad output, grad inputs) for every op node,
which is more than the targets are stated for; its figures are printed for information.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from graphscope.trace import snapshot  # noqa: E402
from graphscope.trace.record import BackwardPass, Node, Record, SourceSite, Step  # noqa: E402
from graphscope.trace.summary import summarize  # noqa: E402

OPS = ("matmul", "add", "relu", "mul", "sum", "exp", "log", "softmax")


def build(n: int, steps: bool) -> Record:
    """A record shaped like a deep model's: op nodes fed by earlier nodes and parameters, 64-element previews."""
    rng = np.random.default_rng(0)
    pool = [summarize(rng.standard_normal((64, 256)).astype(np.float32), full_values_limit=0) for _ in range(64)]
    sites = [SourceSite("/home/user/project/train.py", 10 + i, "forward", f"h = layer{i}(h)") for i in range(20)]
    nodes = {}
    summary = lambda i: replace(pool[i % 64])  # noqa: E731 - one summary object per use, as a run has
    for i in range(n):
        if i % 10 == 0:
            nodes[i] = Node(i, "parameter", "", (), 0, summary(i), True, True,
                            f"layers.{i // 10}.weight", f"model.layers.{i // 10}", sites[i % 20])
        else:
            op = OPS[i % len(OPS)]
            nodes[i] = Node(i, op, f"{op.title()}Backward0", (i - 1, i - i % 10), 0, summary(i), True,
                            False, None, f"model.layers.{i // 10}", sites[i % 20], ("self", "other"))
    record = Record(nodes=nodes)
    if steps:
        ops = [i for i in nodes if i % 10]
        record.passes = [BackwardPass(0, 0.5, {}, n, True, True, ops[-1], tuple(reversed(ops)),
                                      [Step(i, summary(i), [summary(i + 1), summary(i + 2)])
                                       for i in reversed(ops)])]
    return record


def measure(n: int, steps: bool) -> None:
    record = build(n, steps)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "snap.json")
        t0 = time.perf_counter()
        snapshot.dump(record, path)
        export = time.perf_counter() - t0
        size = os.path.getsize(path)
        t0 = time.perf_counter()
        loaded = snapshot.load(path)
        load = time.perf_counter() - t0
    assert len(loaded.nodes) == n
    per_node = size / n
    what = "nodes and a full backward pass" if steps else "nodes, no full values"
    print(f"{n:,} {what}: {size / 2**20:.1f} MiB")
    print(f"  export     {export:6.2f} s   (target < 1 s)    {'ok' if export < 1 else 'OVER'}")
    print(f"  load       {load:6.2f} s   (target < 2 s)    {'ok' if load < 2 else 'OVER'}")
    print(f"  per node   {per_node:6.0f} B   (target <= 1024 B) {'ok' if per_node <= 1024 else 'OVER'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--steps", action="store_true", help="also measure a record with a full backward pass")
    args = parser.parse_args()
    measure(args.nodes, False)
    if args.steps:
        measure(args.nodes, True)


if __name__ == "__main__":
    main()
