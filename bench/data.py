"""Data benchmark: a DataLoader epoch and multinomial draws, as ratios to PyTorch CPU timed alongside.

Run it with `python bench/data.py` (about half a minute) or `python bench/data.py --quick`. It
prints bench/engine.py's table (same timing: sides alternating, one thread) and asserts nothing.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch
from engine import Case, Side, Step, gs, limit_threads, print_table  # bench/engine.py, beside this file
from torch.utils import data as torch_data

from graphscope.engine.utils import data as gs_data  # graphscope.utils.data, by its own name


def loader_epoch(lib, data) -> Step:
    """One shuffled pass of a DataLoader over a 6000 x 784 TensorDataset, batches of 64."""
    rng = np.random.default_rng(0)
    x, y = rng.random((6000, 784), dtype=np.float32), rng.integers(0, 10, 6000)
    loader = data.DataLoader(data.TensorDataset(lib.tensor(x), lib.tensor(y)), batch_size=64, shuffle=True)

    def step():
        for batch in loader:  # noqa: B007 (the loop is the work timed; its last batch is the step's result)
            pass
        return batch[0]

    return step


def sampling(lib, shape, num_samples, replacement) -> Step:
    """One multinomial draw from fixed random probabilities of `shape`."""
    probs = lib.tensor(np.random.default_rng(0).random(shape, dtype=np.float32))
    return lambda: lib.multinomial(probs, num_samples, replacement)


CASES = [
    Case(
        "DataLoader epoch 6000x784, b64, shuffle",
        Side("graphscope", lambda: loader_epoch(gs, gs_data)),
        Side("PyTorch CPU", lambda: loader_epoch(torch, torch_data)),
        target=1.0,
    ),
    Case(
        "multinomial 27 categories, 1 sample",
        Side("graphscope", lambda: sampling(gs, (27,), 1, False)),
        Side("PyTorch CPU", lambda: sampling(torch, (27,), 1, False)),
        target=2.0,
    ),
    Case(
        "multinomial 64x1000, 10 w/o replacement",
        Side("graphscope", lambda: sampling(gs, (64, 1000), 10, False)),
        Side("PyTorch CPU", lambda: sampling(torch, (64, 1000), 10, False)),
        target=1.5,
    ),
    Case(
        "multinomial 64x1000, 100 with replacement",
        Side("graphscope", lambda: sampling(gs, (64, 1000), 100, True)),
        Side("PyTorch CPU", lambda: sampling(torch, (64, 1000), 100, True)),
        target=2.0,
    ),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repetitions")
    args = parser.parse_args(argv)
    print(f"PyTorch: 1 thread. {limit_threads()}\n")
    print_table(CASES, *((7, 0.01) if args.quick else (31, 0.05)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
