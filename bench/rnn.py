"""Recurrent benchmark: an LSTM training step in graphscope as a ratio to PyTorch CPU timed alongside.

Run it with `python bench/rnn.py` (about half a minute) or `python bench/rnn.py --quick` (a few
seconds). Same method as bench/engine.py, whose timing code it uses: one CPU thread on each
side, the two sides alternating block after block, the median ratio of neighbouring blocks.

Each side builds the same model from the same weights: nn.LSTM, then nn.Linear on every step's
output, cross-entropy against a class per step, optim.Adam (zero_grad, forward, loss, backward,
step). PyTorch runs its fused C++ LSTM; graphscope composes each step from engine ops (16
nodes per LSTM step), so the graph of every step can be browsed in the debugger. At small sizes
that per-node overhead dominates, hence the looser target there.
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# bench/engine.py first: it pins NumPy's BLAS to one thread, which only works before NumPy is imported.
from engine import Case, Side, limit_threads, module_step, print_table

# isort: split
import numpy as np
import torch

import graphscope as gs
from graphscope.engine import nn as gs_nn
from graphscope.engine import optim as gs_optim

CLASSES = 10


class Tagger:
    """An LSTM and a Linear head on every step's output, built in graphscope or in PyTorch."""

    def __init__(self, lib, input_size, hidden_size, num_layers):
        nn = gs_nn if lib is gs else torch.nn
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers=num_layers)
        self.head = nn.Linear(hidden_size, CLASSES)

    def parameters(self):
        return list(self.lstm.parameters()) + list(self.head.parameters())

    def __call__(self, x):
        output, _ = self.lstm(x)
        return self.head(output).reshape(-1, CLASSES)


def lstm_step(lib, steps=32, batch=16, input_size=32, hidden_size=64, num_layers=1):
    """One training step of the tagger; both libraries start from the same weights and data."""
    rng = np.random.default_rng(0)
    model = Tagger(lib, input_size, hidden_size, num_layers)
    bound = 1 / hidden_size**0.5
    for p in model.parameters():
        p.data = lib.tensor(rng.uniform(-bound, bound, size=tuple(p.shape)).astype(np.float32))
    x = lib.tensor(rng.standard_normal((steps, batch, input_size), dtype=np.float32))
    y = lib.tensor(rng.integers(0, CLASSES, steps * batch))
    nn, optim = (gs_nn, gs_optim) if lib is gs else (torch.nn, torch.optim)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    return module_step(model, nn.CrossEntropyLoss(), optimizer, x, y)


SIZES: dict[str, tuple[dict[str, int], float]] = {  # name: (lstm_step's sizes, target ratio)
    "LSTM step T32 b16 32->64, 1 layer": (dict(), 5.0),
    "LSTM step T16 b8 8->32, 2 layers": (dict(steps=16, batch=8, input_size=8, hidden_size=32, num_layers=2), 5.0),
    "LSTM step T32 b32 64->256, 1 layer": (dict(steps=32, batch=32, input_size=64, hidden_size=256), 3.0),
}

CASES = [
    Case(
        name,
        Side("graphscope", partial(lstm_step, gs, **sizes)),
        Side("PyTorch CPU", partial(lstm_step, torch, **sizes)),
        target=target,
    )
    for name, (sizes, target) in SIZES.items()
]


def losses_agree(steps: int = 3) -> float:
    """Largest loss difference between graphscope and PyTorch over a few Adam steps."""
    ours, theirs = lstm_step(gs), lstm_step(torch)
    return max(abs(ours().item() - theirs().item()) for _ in range(steps))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repetitions")
    args = parser.parse_args(argv)
    repeats, block_s = (5, 0.05) if args.quick else (15, 0.2)
    print(f"graphscope {gs.__version__}, NumPy {np.__version__}, PyTorch {torch.__version__}")
    print(f"PyTorch: 1 thread. {limit_threads()}")
    print(f"LSTM tagger: graphscope and PyTorch losses differ by at most {losses_agree():.2e} over 3 Adam steps")
    print()
    print_table(CASES, repeats, block_s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
