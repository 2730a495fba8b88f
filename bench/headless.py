"""Whole-process cost of `graphscope run --headless` on each sample: its wall and CPU time as
ratios to the same sample run by plain `python` (graphscope importable), both timed in this run.

Each sample is run `--repeats` times on each side, the sides alternating; the medians are
compared. CPU time (user + system of the process, steadier than wall time on a shared machine)
leaves out helper processes that graphscope does not wait for. Both sides start a fresh interpreter and import the engine, so the ratio is what the
debugger adds: recording, the summary, and with --export the snapshot. BLAS runs on one thread.
Asserts nothing.

Run: python3 bench/headless.py [--repeats 5] [--export] [--root CHECKOUT]
(--root measures another checkout's graphscope, e.g. the one before a change.)
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(command: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU seconds `command` took (it must exit 0)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr.decode()[-2000:]}")
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--export", action="store_true", help="also write each run's snapshot")
    parser.add_argument("--root", default=HERE, help="the checkout whose graphscope is measured")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    env = dict(os.environ, PYTHONPATH=root, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    print(f"{'sample':<28} {'python s':>9} {'headless s':>11} {'ratio':>6} {'python cpu':>11} {'headless cpu':>13} {'ratio':>6}")
    walls, cpus = [], []
    with tempfile.TemporaryDirectory() as folder:
        export = ["--export", os.path.join(folder, "snap.json")] if args.export else []
        for sample in sorted(glob.glob(os.path.join(HERE, "samples", "*.py"))):
            plain, headless = [], []
            for _ in range(args.repeats):
                plain.append(timed([sys.executable, sample], env))
                headless.append(timed([sys.executable, "-m", "graphscope", "run", "--headless", *export, sample], env))
            (pw, pc), (hw, hc) = ([statistics.median(t[i] for t in side) for i in (0, 1)] for side in (plain, headless))
            walls.append(hw / pw)
            cpus.append(hc / pc)
            print(f"{os.path.basename(sample):<28} {pw:>9.3f} {hw:>11.3f} {hw / pw:>6.2f} {pc:>11.3f} {hc:>13.3f} {hc / pc:>6.2f}")
    print(f"{'median ratio':<28} {'':>9} {'':>11} {statistics.median(walls):>6.2f} {'':>11} {'':>13} "
          f"{statistics.median(cpus):>6.2f}")


if __name__ == "__main__":
    main()
