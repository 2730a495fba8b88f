"""Summarising arrays: the cost of one summary against one NumPy sum of the same array.

Each case summarises a pool of distinct float32 arrays (16 MB in all, more than the caches keep,
as a training step's fresh arrays are) with `summarize_many`, one array per call for the large
shapes, and reads the same pool with one `np.add.reduce` per array, interleaved, in the same
run: the ratio is summary / sum. "mid step" is the arrays a mid MLP (784->256->256->10, batch
64) records in one pass with every pass kept, summarised in one call as the recorder does.

Run: python3 bench/summary.py [--repeats 7] [--root CHECKOUT]
(--root measures another checkout's graphscope, e.g. the one before a change.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

if __name__ == "__main__":  # before NumPy loads its BLAS
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if "--root" in sys.argv:
    ROOT = os.path.abspath(sys.argv[sys.argv.index("--root") + 1])
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from graphscope.trace.summary import summarize_many  # noqa: E402

POOL_BYTES = 16 << 20
MID_STEP = [(64, 256)] * 8 + [(256, 784)] * 3 + [(256, 256)] * 3 + [(256,)] * 6 + [(10, 256)] * 3 + [(10,)] * 3 \
    + [(64, 10)] * 2 + [()] * 2


def pool(shapes: list, rng) -> list:
    """Lists of float32 arrays of these shapes, enough of them to fill POOL_BYTES."""
    size = sum(4 * int(np.prod(s)) for s in shapes)
    return [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(max(2, POOL_BYTES // size))]


def per_call(groups: list, work) -> float:
    start = time.perf_counter()
    for arrays in groups:
        work(arrays)
    return (time.perf_counter() - start) / len(groups)


def reference(arrays: list) -> None:
    for a in arrays:
        np.add.reduce(a, axis=None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--root", default=ROOT, help="the graphscope checkout to measure")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    cases = [(f"{s[0]}x{s[1]}", pool([s], rng)) for s in ((64, 256), (256, 256), (256, 784))]
    cases.append(("mid step", pool(MID_STEP, rng)))
    print(f"summaries against one np.sum per array (float32), median of {args.repeats}, {args.root}:")
    for label, groups in cases:
        summary = lambda arrays: summarize_many(arrays)  # noqa: E731
        per_call(groups, summary)  # warm up
        ours, ref = [], []
        for _ in range(args.repeats):  # interleaved, so drifting machine load hits each alike
            ours.append(per_call(groups, summary))
            ref.append(per_call(groups, reference))
        t, r = statistics.median(ours), statistics.median(ref)
        print(f"  {label:10s} {t * 1e6:8.1f} us   {t / r:5.2f}x np.sum")


if __name__ == "__main__":
    main()
