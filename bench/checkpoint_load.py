"""Loading a checkpoint that torch.save wrote: graphscope.load vs torch.load, time and peak RSS (issue 26).

The checkpoint is a state dict of `--tensors` float32 tensors, `--megabytes` in all, written by
torch.save. Each load runs in a fresh process (bench/fresh_process.py), so its peak RSS (VmHWM) is
its own; "over start" is that peak less the RSS after importing the library, the memory the load
itself took. The ratios compare runs made in the same invocation.

Targets: graphscope / torch <= 2.5x in time (graphscope also checks each record's CRC-32, which
torch.load skips), and <= 1.1x in peak RSS over start (storages are read straight into their
arrays: one copy of the data, as torch).

Run: python3 bench/checkpoint_load.py [--megabytes 384] [--tensors 24] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile

from fresh_process import run_fresh  # bench/fresh_process.py, beside this file

LOAD = """
import sys, time
library = sys.argv[2]
if library == "torch":
    import torch as lib
else:
    import graphscope as lib

def rss(field):
    return next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith(field))

start_rss = rss("VmRSS:")
start = time.perf_counter()
state = lib.load(sys.argv[1])
seconds = time.perf_counter() - start
assert len(state) == int(sys.argv[3]), len(state)
print(seconds, rss("VmHWM:"), rss("VmHWM:") - start_rss)
"""

TIME_TARGET, MEMORY_TARGET = 2.5, 1.1


def write_checkpoint(path: str, megabytes: int, tensors: int) -> None:
    import torch

    numel = megabytes * 2**20 // 4 // tensors
    torch.save({f"layer{i}.weight": torch.full((numel,), float(i)) for i in range(tensors)}, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=384, help="size of the checkpoint's tensors")
    parser.add_argument("--tensors", type=int, default=24, help="tensors in its state dict")
    parser.add_argument("--repeats", type=int, default=3, help="loads by each library (medians are compared)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "checkpoint.pt")
        write_checkpoint(path, args.megabytes, args.tensors)
        runs: dict[str, list[list[float]]] = {"torch": [], "graphscope": []}
        for _ in range(args.repeats):  # interleaved, so drifting machine load hits each alike
            for library, results in runs.items():
                results.append(
                    [float(word) for word in run_fresh(LOAD, path, library, args.tensors, one_blas_thread=True)[-3:]]
                )
        size = os.path.getsize(path)
    medians = {library: [statistics.median(v) for v in zip(*results)] for library, results in runs.items()}
    print(
        f"checkpoint of {size / 2**20:,.0f} MB ({args.tensors} tensors) written by torch.save, "
        f"median of {args.repeats}:"
    )
    for library, (seconds, peak, over) in medians.items():
        print(f"  {library:10s} {seconds:6.2f} s   peak RSS {peak / 2**20:6.0f} MB   over start {over / 2**20:6.0f} MB")
    (gs_s, gs_peak, gs_over), (t_s, t_peak, t_over) = medians["graphscope"], medians["torch"]
    for label, ratio, target in (
        ("time", gs_s / t_s, TIME_TARGET),
        ("peak RSS", gs_peak / t_peak, None),
        ("over start", gs_over / t_over, MEMORY_TARGET),
    ):
        verdict = "" if target is None else f"   (target <= {target}x: {'ok' if ratio <= target else 'OVER'})"
        print(f"  {label:10s} {ratio:5.2f}x{verdict}")


if __name__ == "__main__":
    main()
