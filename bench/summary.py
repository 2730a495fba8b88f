"""Summarising arrays: the cost of one summary against one NumPy sum of the same array.

Each case summarises a pool of distinct float32 arrays (16 MB in all, more than the caches keep,
as a training step's fresh arrays are) with `summarize_many`, one array per call for the large
shapes, and reads the same pool with one `np.add.reduce` per array, interleaved, in the same
run: the ratio is summary / sum. "mid step" is the arrays a mid MLP (784->256->256->10, batch
64) records in one pass with every pass kept (a ReLU's zeros included), summarised in one call
as the recorder does.

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

import numpy as np

from graphscope.trace.stats.summarize import summarize_many

POOL_BYTES = 16 << 20
# (shape, half of it exact zeros) of each array a mid MLP's pass records: the activations and
# grads of its hidden layers (ReLU's outputs, and the grads through it, hold zeros), its
# parameters, grads and their updated values, the logits and the loss.
MID_STEP = (
    [((64, 256), i % 2 == 1) for i in range(8)]
    + [((256, 784), False)] * 3
    + [((256, 256), False)] * 3
    + [((256,), False)] * 6
    + [((10, 256), False)] * 3
    + [((10,), False)] * 3
    + [((64, 10), False)] * 2
    + [((), False)] * 2
)


def pool(arrays: list, rng) -> list:
    """Lists of float32 arrays like these (shape, with zeros), enough of them to fill POOL_BYTES."""
    size = sum(4 * int(np.prod(shape)) for shape, _ in arrays)
    return [[_array(shape, zeros, rng) for shape, zeros in arrays] for _ in range(max(2, POOL_BYTES // size))]


def _array(shape: tuple, zeros: bool, rng) -> np.ndarray:
    a = rng.standard_normal(shape).astype(np.float32)
    return np.maximum(a, 0) if zeros else a


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
    cases = [(f"{s[0]}x{s[1]}", pool([(s, False)], rng)) for s in ((64, 256), (256, 256), (256, 784))]
    cases.append(("mid step", pool(MID_STEP, rng)))
    print(f"summaries against one np.sum per array (float32), median of {args.repeats}, {args.root}:")
    for label, groups in cases:
        per_call(groups, summarize_many)  # warm up
        ours, ref = [], []
        for _ in range(args.repeats):  # interleaved, so drifting machine load hits each alike
            ours.append(per_call(groups, summarize_many))
            ref.append(per_call(groups, reference))
        t, r = statistics.median(ours), statistics.median(ref)
        print(f"  {label:10s} {t * 1e6:8.1f} us   {t / r:5.2f}x np.sum")


if __name__ == "__main__":
    main()
