"""Recording's whole-process cost on the samples: `graphscope run --headless [--keep all]` vs `python sample.py`.

Each sample runs with its own default arguments (what a user runs), plainly and under the recorder with
the default policy and with every pass kept (`--keep all`); the runs are interleaved so drifting machine
load hits each alike. Prints each sample's median seconds and the ratios (target for making `--keep all`
the default: at most 1.5x on every sample), then the largest ratio of each policy.

BLAS runs on one thread unless --blas-threads says otherwise (see bench/trace.py).

Run: python3 bench/samples.py [--repeats 3] [--blas-threads N] [sample.py ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")
HEADLESS = [sys.executable, "-m", "graphscope", "run", "--headless"]
CONFIGS = {"plain": [sys.executable], "default policy": HEADLESS, "keep all": [*HEADLESS, "--keep", "all"]}
TARGET = 1.5


def seconds(command: list[str], env: dict) -> float:
    """Wall seconds of one whole process, from its start to its exit."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed (exit {done.returncode}):\n{done.stderr.decode()[-2000:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--blas-threads", default="1")
    parser.add_argument("samples", nargs="*", help="sample file names (default: every sample)")
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS=args.blas_threads,
               OMP_NUM_THREADS=args.blas_threads, MKL_NUM_THREADS=args.blas_threads)
    names = args.samples or sorted(n for n in os.listdir(SAMPLES) if n.endswith(".py"))
    worst = dict.fromkeys(CONFIGS, 0.0)
    print(f"whole process, median of {args.repeats}; ratios to `python sample.py`")
    for name in names:
        path = os.path.join(SAMPLES, name)
        times = {label: [] for label in CONFIGS}
        for _ in range(args.repeats):
            for label, command in CONFIGS.items():
                times[label].append(seconds([*command, path], env))
        base = statistics.median(times["plain"])
        cells = []
        for label in CONFIGS:
            ratio = statistics.median(times[label]) / base
            worst[label] = max(worst[label], ratio)
            cells.append(f"{label} {statistics.median(times[label]):6.2f} s {ratio:5.2f}x")
        print(f"  {name:30s} " + "   ".join(cells), flush=True)
    for label in list(CONFIGS)[1:]:
        print(f"largest ratio, {label}: {worst[label]:.2f}x (target <= {TARGET}x: "
              f"{'ok' if worst[label] <= TARGET else 'OVER'})")


if __name__ == "__main__":
    main()
