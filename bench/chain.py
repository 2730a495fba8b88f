"""A 100,000-op chain script, recorded vs plain: time and peak RSS (issue 15).

The script builds a chain of `--nodes` ops (y = y * 1.0001, then tanh, repeated) on a small
tensor, one backward through all of it, as a deep unrolled graph would. Recorded means under
the Recorder with its default policy (the one pass is the first, so kept in full detail), with
`finish()`. Each case runs in a fresh process, so its peak RSS (VmHWM) is its own; the ratios
compare runs made in the same invocation. Each case also says how many full collections Python's
cyclic garbage collector ran (each scans every object alive: with a big graph, a large part of a run).

Targets: recorded / plain <= 2x in time and <= 2x in peak RSS.

Run: python3 bench/chain.py [--nodes 100000] [--repeats 1]
"""

from __future__ import annotations

import argparse
import statistics

from fresh_process import run_fresh  # bench/fresh_process.py, beside this file

CHAIN = """
import gc, sys, time
import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace.recording.recorder import Recorder
nodes, recorded = int(float(sys.argv[1])), sys.argv[2] == "recorded"

def script():
    x = gs.ones(8, requires_grad=True)
    y = x
    for _ in range(nodes // 2):
        y = (y * 1.0001).tanh()
    y.sum().backward()
    return x.grad.sum().item()

start = time.perf_counter()
if recorded:
    recorder = Recorder()
    with hooks.observe(recorder):
        script()
    record = recorder.finish(0)
    assert len(record.nodes) >= nodes, len(record.nodes)
else:
    script()
seconds = time.perf_counter() - start
peak = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(seconds, peak, gc.get_stats()[2]["collections"])
"""

TARGET = 2.0


def _run(nodes: int, case: str) -> tuple[float, int, int]:
    seconds, peak, full = run_fresh(CHAIN, nodes, case, one_blas_thread=True)[-3:]
    return float(seconds), int(peak), int(full)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000, help="ops in the chain")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each case (medians are compared)")
    args = parser.parse_args()
    runs: dict[str, list[tuple[float, int, int]]] = {"plain": [], "recorded": []}
    for _ in range(args.repeats):  # interleaved, so drifting machine load hits each alike
        for case, results in runs.items():
            results.append(_run(args.nodes, case))
    plain_s, plain_rss, plain_full = (statistics.median(v) for v in zip(*runs["plain"]))
    rec_s, rec_rss, rec_full = (statistics.median(v) for v in zip(*runs["recorded"]))
    print(f"chain of {args.nodes:,} ops, median of {args.repeats}:")
    print(f"  plain     {plain_s:7.2f} s   peak RSS {plain_rss / 2**20:7.0f} MB   full collections {plain_full:3.0f}")
    print(f"  recorded  {rec_s:7.2f} s   peak RSS {rec_rss / 2**20:7.0f} MB   full collections {rec_full:3.0f}")
    for label, ratio in (("time", rec_s / plain_s), ("peak RSS", rec_rss / plain_rss)):
        print(f"  {label:9s} {ratio:5.2f}x   (target <= {TARGET}x: {'ok' if ratio <= TARGET else 'OVER'})")


if __name__ == "__main__":
    main()
