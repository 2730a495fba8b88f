"""Engine benchmark: graphscope's training-step time as a ratio to a reference timed alongside.

Run it with `python bench/engine.py` (under a minute) or `python bench/engine.py --quick` (a
few seconds). It prints a table and asserts nothing: the ratios, not the absolute times, are
what carry from machine to machine. Everything runs on one CPU thread, so that neither side
wins by using more cores.

Each row of the table is a `Case`: two `Side`s (graphscope and its reference) and the ratio
graphscope should stay under. To add a benchmark, append a Case to CASES.
"""

from __future__ import annotations

import os

# One thread for NumPy's BLAS: these variables only take effect before NumPy is first imported.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import gc
import io
import platform
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

# Benchmark the checkout this file is in, installed or not.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import graphscope as gs
from graphscope.engine import hooks

# One training step; returns its loss: a graphscope or torch tensor, or a NumPy array (hence Any).
Step = Callable[[], Any]


@dataclass
class Side:
    """One side of a comparison: `setup()` builds fresh data and weights and returns a step."""

    label: str
    setup: Callable[[], Step]
    observed: bool = False  # run with a do-nothing observer installed


@dataclass
class Case:
    """A row of the table: graphscope's side, the reference's, and the ratio to stay under."""

    name: str
    subject: Side
    reference: Side
    target: float


# ---------------------------------------------------------------------------------------------
# Tiny MLP, 2 -> 16 -> 16 -> 1, batch 32, MSE, manual SGD: written once for any torch-like `lib`,
# because graphscope and PyTorch share these names. Per-op overhead dominates at this size.


def tiny_mlp(lib) -> Step:
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((32, 2), dtype=np.float32))
    y = lib.tensor(rng.standard_normal((32, 1), dtype=np.float32))
    params = []
    for fan_in, fan_out in [(2, 16), (16, 16), (16, 1)]:
        w = rng.standard_normal((fan_in, fan_out), dtype=np.float32) / np.float32(fan_in**0.5)
        params += [
            lib.tensor(w, requires_grad=True),
            lib.zeros(fan_out, requires_grad=True),
        ]
    w1, b1, w2, b2, w3, b3 = params
    lr = 0.01

    def step():
        h = (x @ w1 + b1).relu()
        h = (h @ w2 + b2).relu()
        out = h @ w3 + b3
        loss = ((out - y) ** 2).mean()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        return loss

    return step


# ---------------------------------------------------------------------------------------------
# Mid MLP, 784 -> 256 -> 256 -> 10, batch 128, cross-entropy, manual SGD, float32. Here the
# matrix products dominate, so the floor is the same model with forward and backward by hand.

MID_SIZES = [(784, 256), (256, 256), (256, 10)]
MID_BATCH = 128
MID_LR = 0.01


def mid_data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((MID_BATCH, 784), dtype=np.float32)
    labels = rng.integers(0, 10, MID_BATCH)
    weights = []
    for fan_in, fan_out in MID_SIZES:
        w = rng.standard_normal((fan_in, fan_out), dtype=np.float32) / np.float32(fan_in**0.5)
        weights += [w, np.zeros(fan_out, dtype=np.float32)]
    return x, labels, weights


def graphscope_cross_entropy():
    """gs.nn.functional.cross_entropy where it exists, else log_softmax and gather."""
    functional = getattr(getattr(gs, "nn", None), "functional", None)
    cross_entropy = getattr(functional, "cross_entropy", None)
    if cross_entropy is not None:
        return cross_entropy
    return lambda logits, target: -logits.log_softmax(dim=1).gather(1, target.unsqueeze(1)).mean()


def mid_mlp_graphscope() -> Step:
    x_np, labels_np, weights = mid_data()
    x, labels = gs.tensor(x_np), gs.tensor(labels_np)
    params = [gs.tensor(w, requires_grad=True) for w in weights]
    w1, b1, w2, b2, w3, b3 = params
    cross_entropy = graphscope_cross_entropy()

    def step():
        h = (x @ w1 + b1).relu()
        h = (h @ w2 + b2).relu()
        loss = cross_entropy(h @ w3 + b3, labels)
        loss.backward()
        with gs.no_grad():
            for p in params:
                p -= MID_LR * p.grad
                p.grad = None
        return loss

    return step


def mid_mlp_numpy() -> Step:
    x, labels, params = mid_data()
    w1, b1, w2, b2, w3, b3 = params
    rows = np.arange(MID_BATCH)
    lr = np.float32(MID_LR)

    def step():
        # forward
        z1 = x @ w1 + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2 + b2
        h2 = np.maximum(z2, 0)
        z3 = h2 @ w3 + b3
        shifted = z3 - z3.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        loss = -(shifted[rows, labels] - np.log(total[:, 0])).mean()
        # backward: d loss / d logits = (softmax - onehot) / batch
        dz3 = e / total
        dz3[rows, labels] -= 1
        dz3 /= MID_BATCH
        dw3, db3 = h2.T @ dz3, dz3.sum(axis=0)
        dz2 = (dz3 @ w3.T) * (z2 > 0)
        dw2, db2 = h1.T @ dz2, dz2.sum(axis=0)
        dz1 = (dz2 @ w2.T) * (z1 > 0)
        dw1, db1 = x.T @ dz1, dz1.sum(axis=0)
        # SGD, in place
        for p, g in zip(params, (dw1, db1, dw2, db2, dw3, db3)):
            p -= lr * g
        return loss

    return step


CASES = [
    Case(
        "tiny MLP step 2-16-16-1, b32, MSE",
        Side("graphscope", lambda: tiny_mlp(gs)),
        Side("PyTorch CPU", lambda: tiny_mlp(torch)),
        target=0.5,
    ),
    Case(
        "mid MLP step 784-256-256-10, b128, CE",
        Side("graphscope", mid_mlp_graphscope),
        Side("NumPy by hand", mid_mlp_numpy),
        target=1.15,
    ),
    Case(
        "tiny MLP with a do-nothing observer",
        Side("graphscope, observed", lambda: tiny_mlp(gs), observed=True),
        Side("graphscope", lambda: tiny_mlp(gs)),
        target=1.05,
    ),
    Case(
        "mid MLP with a do-nothing observer",
        Side("graphscope, observed", mid_mlp_graphscope, observed=True),
        Side("graphscope", mid_mlp_graphscope),
        target=1.05,
    ),
]


# ---------------------------------------------------------------------------------------------
# The same MLPs written the way users write them: nn.Sequential of nn.Linear + ReLU, a loss
# module, and an optimizer from optim (zero_grad, forward, loss, backward, step). The weights
# come from mid_data() (transposed into nn.Linear's (out, in) layout), so every side computes
# the same numbers. The NumPy floors do the same forward, backward and update by hand.

from graphscope.engine import nn as gs_nn
from graphscope.engine import optim as gs_optim

MID_ADAM_LR = 1e-3
ADAM_BETAS, ADAM_EPS = (0.9, 0.999), 1e-8


def _libs(lib):
    return (gs_nn, gs_optim) if lib is gs else (torch.nn, torch.optim)


def _sequential(lib, sizes, weights):
    nn, _ = _libs(lib)
    layers = []
    for fan_in, fan_out in sizes:
        layers += [nn.Linear(fan_in, fan_out), nn.ReLU()]
    model = nn.Sequential(*layers[:-1])
    state = {}
    for i, (w, b) in enumerate(zip(weights[::2], weights[1::2])):
        state[f"{2 * i}.weight"] = lib.tensor(np.ascontiguousarray(w.T))
        state[f"{2 * i}.bias"] = lib.tensor(b.copy())
    model.load_state_dict(state)
    return model


def module_step(model, loss_fn, optimizer, x, y) -> Step:
    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


def mid_mlp_modules(lib, optimizer="sgd") -> Step:
    x_np, labels_np, weights = mid_data()
    nn, optim = _libs(lib)
    model = _sequential(lib, MID_SIZES, weights)
    if optimizer == "sgd":
        opt = optim.SGD(model.parameters(), lr=MID_LR)
    else:
        opt = optim.Adam(model.parameters(), lr=MID_ADAM_LR, betas=ADAM_BETAS, eps=ADAM_EPS)
    return module_step(model, nn.CrossEntropyLoss(), opt, lib.tensor(x_np), lib.tensor(labels_np))


def _mid_numpy_grads(x, labels, params, rows):
    """Loss and grads of the mid MLP, forward and backward by hand."""
    w1, b1, w2, b2, w3, b3 = params
    z1 = x @ w1 + b1
    h1 = np.maximum(z1, 0)
    z2 = h1 @ w2 + b2
    h2 = np.maximum(z2, 0)
    z3 = h2 @ w3 + b3
    shifted = z3 - z3.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=1, keepdims=True)
    loss = -(shifted[rows, labels] - np.log(total[:, 0])).mean()
    dz3 = e / total
    dz3[rows, labels] -= 1
    dz3 /= len(rows)
    dz2 = (dz3 @ w3.T) * (z2 > 0)
    dz1 = (dz2 @ w2.T) * (z1 > 0)
    grads = (x.T @ dz1, dz1.sum(axis=0), h1.T @ dz2, dz2.sum(axis=0), h2.T @ dz3, dz3.sum(axis=0))
    return loss, grads


def mid_mlp_numpy_adam() -> Step:
    x, labels, params = mid_data()
    rows = np.arange(MID_BATCH)
    (beta1, beta2), eps, lr = ADAM_BETAS, ADAM_EPS, MID_ADAM_LR
    ms = [np.zeros_like(p) for p in params]
    vs = [np.zeros_like(p) for p in params]
    temps = [np.empty_like(p) for p in params]
    t = 0

    def step():
        nonlocal t
        loss, grads = _mid_numpy_grads(x, labels, params, rows)
        t += 1
        step_size = lr / (1 - beta1**t)
        root_bias = np.sqrt(1 - beta2**t)
        for p, g, m, v, tmp in zip(params, grads, ms, vs, temps):  # in place, one scratch buffer
            m *= beta1
            np.multiply(g, 1 - beta1, out=tmp)
            m += tmp
            v *= beta2
            np.multiply(g, g, out=tmp)
            tmp *= 1 - beta2
            v += tmp
            np.sqrt(v, out=tmp)
            tmp /= root_bias
            tmp += eps
            np.divide(m, tmp, out=tmp)
            tmp *= step_size
            p -= tmp
        return loss

    return step


def tiny_mlp_modules(lib) -> Step:
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((32, 2), dtype=np.float32))
    y = lib.tensor(rng.standard_normal((32, 1), dtype=np.float32))
    sizes = [(2, 16), (16, 16), (16, 1)]
    weights = []
    for fan_in, fan_out in sizes:
        weights += [
            rng.standard_normal((fan_in, fan_out), dtype=np.float32) / np.float32(fan_in**0.5),
            np.zeros(fan_out, dtype=np.float32),
        ]
    nn, optim = _libs(lib)
    model = _sequential(lib, sizes, weights)
    return module_step(model, nn.MSELoss(), optim.SGD(model.parameters(), lr=0.01), x, y)


def nn_losses_agree(steps: int = 3) -> float:
    """Largest loss difference between the module versions (graphscope, PyTorch) and NumPy by hand."""
    worst = 0.0
    for optimizer, floor in (("sgd", mid_mlp_numpy), ("adam", mid_mlp_numpy_adam)):
        sides = [mid_mlp_modules(gs, optimizer), mid_mlp_modules(torch, optimizer), floor()]
        for _ in range(steps):
            ours, theirs, by_hand = (float(side()) if i == 2 else side().item() for i, side in enumerate(sides))
            worst = max(worst, abs(ours - by_hand), abs(theirs - by_hand))
    return worst


CASES += [
    Case(
        "mid MLP nn+CE+optim.SGD",
        Side("graphscope", lambda: mid_mlp_modules(gs, "sgd")),
        Side("NumPy by hand", mid_mlp_numpy),
        target=1.2,
    ),
    Case(
        "mid MLP nn+CE+optim.SGD",
        Side("graphscope", lambda: mid_mlp_modules(gs, "sgd")),
        Side("PyTorch CPU", lambda: mid_mlp_modules(torch, "sgd")),
        target=1.2,
    ),
    Case(
        "mid MLP nn+CE+optim.Adam",
        Side("graphscope", lambda: mid_mlp_modules(gs, "adam")),
        Side("NumPy by hand", mid_mlp_numpy_adam),
        target=1.2,
    ),
    Case(
        "mid MLP nn+CE+optim.Adam",
        Side("graphscope", lambda: mid_mlp_modules(gs, "adam")),
        Side("PyTorch CPU", lambda: mid_mlp_modules(torch, "adam")),
        target=1.2,
    ),
    Case(
        "tiny MLP nn+MSE+optim.SGD",
        Side("graphscope", lambda: tiny_mlp_modules(gs)),
        Side("PyTorch CPU", lambda: tiny_mlp_modules(torch)),
        target=1.0,
    ),
    Case(
        "mid MLP nn+CE+optim.Adam, observed",
        Side("graphscope, observed", lambda: mid_mlp_modules(gs, "adam"), observed=True),
        Side("graphscope", lambda: mid_mlp_modules(gs, "adam")),
        target=1.05,
    ),
]


# ---------------------------------------------------------------------------------------------
# save / load: a 1 MB state dict (16 float32 tensors of 128 x 128) to and from memory, in
# torch.save's format on both sides.


def state_dict(lib) -> dict:
    rng = np.random.default_rng(0)
    return {f"layer{i}.weight": lib.tensor(rng.standard_normal((128, 128)).astype(np.float32)) for i in range(16)}


def state_dict_saving(lib) -> Step:
    state = state_dict(lib)
    return lambda: lib.save(state, io.BytesIO())


def state_dict_loading(lib) -> Step:
    file = io.BytesIO()
    lib.save(state_dict(lib), file)
    data = file.getvalue()
    return lambda: lib.load(io.BytesIO(data))


CASES += [
    Case(
        "save a 1 MB state dict",
        Side("graphscope", lambda: state_dict_saving(gs)),
        Side("PyTorch CPU", lambda: state_dict_saving(torch)),
        target=1.5,
    ),
    Case(
        "load a 1 MB state dict",
        Side("graphscope", lambda: state_dict_loading(gs)),
        Side("PyTorch CPU", lambda: state_dict_loading(torch)),
        target=1.5,
    ),
]

# Small CNN, the image tutorials' shape: 1x28x28 -> conv 3x3 (8) -> ReLU -> max-pool 2 -> conv 3x3
# (16) -> ReLU -> max-pool 2 -> Linear(784, 10), batch 16, CE, optim.SGD. Both sides start from
# PyTorch's init, copied, so they compute the same numbers.

CNN_BATCH = 16


def small_cnn_modules(lib) -> Step:
    nn, optim = _libs(lib)

    def build(nn):
        return nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(16 * 7 * 7, 10),
        )

    torch.manual_seed(0)
    state = build(torch.nn).state_dict()
    model = build(nn)
    model.load_state_dict({k: lib.tensor(v.numpy()) for k, v in state.items()})
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((CNN_BATCH, 1, 28, 28), dtype=np.float32))
    y = lib.tensor(rng.integers(0, 10, CNN_BATCH))
    return module_step(model, nn.CrossEntropyLoss(), optim.SGD(model.parameters(), lr=0.01), x, y)


def cnn_losses_agree(steps: int = 3) -> float:
    """Largest loss difference between the graphscope and PyTorch CNN steps."""
    ours, theirs = small_cnn_modules(gs), small_cnn_modules(torch)
    return max(abs(ours().item() - theirs().item()) for _ in range(steps))


CASES += [
    Case(
        "small CNN conv+pool+linear, b16 28x28, SGD",
        Side("graphscope", lambda: small_cnn_modules(gs)),
        Side("PyTorch CPU", lambda: small_cnn_modules(torch)),
        target=1.5,
    ),
]


# ---------------------------------------------------------------------------------------------
# Timing: both sides of a case alternate, block after block, so that drift in the machine's
# speed hits both alike; each side's figure is the median time per step over its blocks.


def time_block(step: Step, steps: int, observed: bool) -> float:
    """Seconds per step over `steps` consecutive steps."""
    with hooks.observe(hooks.Observer()) if observed else nullcontext():
        start = time.perf_counter()
        for _ in range(steps):
            step()
        return (time.perf_counter() - start) / steps


def steps_per_block(step: Step, observed: bool, block_s: float) -> int:
    """How many steps fill about `block_s` seconds (measured after a warm-up)."""
    per_step = time_block(step, 3, observed)
    per_step = time_block(step, 3, observed)
    return max(1, round(block_s / per_step))


def measure(case: Case, repeats: int, block_s: float) -> tuple[float, float, float]:
    """Median seconds per step of the subject and of the reference, and the median ratio of
    neighbouring blocks (neighbours share the machine's mood, so their ratio is steadier)."""
    sides = [case.subject, case.reference]
    steps = [side.setup() for side in sides]
    gc.collect()  # once per case: a full collection costs tens of ms with PyTorch loaded
    counts = [steps_per_block(step, side.observed, block_s) for step, side in zip(steps, sides)]
    times: list[list[float]] = [[], []]
    for _ in range(repeats):
        for i, side in enumerate(sides):
            times[i].append(time_block(steps[i], counts[i], side.observed))
    ratios = [ours / theirs for ours, theirs in zip(*times)]
    return statistics.median(times[0]), statistics.median(times[1]), statistics.median(ratios)


def mid_losses_agree(steps: int = 3) -> float:
    """Largest loss difference between graphscope and NumPy by hand over a few steps: the
    floor is only a floor if it computes the same thing."""
    ours, floor = mid_mlp_graphscope(), mid_mlp_numpy()
    return max(abs(float(ours().item()) - float(floor())) for _ in range(steps))


def limit_threads() -> str:
    torch.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return "NumPy BLAS: 1 thread via OMP/OPENBLAS/MKL_NUM_THREADS (threadpoolctl not installed)"
    threadpool_limits(1)
    return "NumPy BLAS: 1 thread via threadpoolctl"


def format_time(seconds: float) -> str:
    return f"{seconds * 1e6:9.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:9.2f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repetitions")
    args = parser.parse_args(argv)
    repeats, block_s = (7, 0.01) if args.quick else (31, 0.05)

    print(
        f"graphscope {gs.__version__}, NumPy {np.__version__}, PyTorch {torch.__version__}, "
        f"Python {platform.python_version()}"
    )
    print(f"PyTorch: 1 thread. {limit_threads()}")
    print(
        f"times: median of {repeats} blocks of ~{block_s * 1e3:.0f} ms per side, sides "
        f"alternating; ratio: median over neighbouring pairs of blocks"
    )
    uses_nn = graphscope_cross_entropy().__name__ == "cross_entropy"
    print(
        "mid MLP: graphscope's cross-entropy is "
        + ("gs.nn.functional.cross_entropy" if uses_nn else "log_softmax + gather")
    )
    print(f"mid MLP: graphscope and NumPy-by-hand losses differ by at most {mid_losses_agree():.2e} over 3 steps")
    print(
        f"mid MLP with nn + optim (SGD, Adam): graphscope and PyTorch losses differ from NumPy by hand "
        f"by at most {nn_losses_agree():.2e} over 3 steps"
    )
    print(f"small CNN: graphscope and PyTorch losses differ by at most {cnn_losses_agree():.2e} over 3 steps")
    print()
    print_table(CASES, repeats, block_s)
    return 0


def print_table(cases: list[Case], repeats: int, block_s: float) -> None:
    """Time each case and print its row: both sides' times, their ratio and the target."""
    header = f"{'case':40} {'graphscope':>12}  {'reference':>26}  {'ratio':>6}  {'target':>8}"
    print(header)
    print("-" * len(header))
    started = time.perf_counter()
    for case in cases:
        subject, reference, ratio = measure(case, repeats, block_s)
        verdict = "ok" if ratio <= case.target else "MISSED"
        print(
            f"{case.name:40} {format_time(subject):>12}  "
            f"{case.reference.label + ' ' + format_time(reference).strip():>26}  "
            f"{ratio:5.2f}x  <= {case.target:.2f}x  {verdict}",
            flush=True,
        )
    print(f"\n({time.perf_counter() - started:.1f} s of timing)")


if __name__ == "__main__":
    sys.exit(main())
