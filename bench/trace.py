"""Recording overhead: a 200-step training loop of a tiny and a mid-sized MLP, recorded vs not.

Targets (ratios to the unrecorded loop, measured in the same run): the default policy at most
1.5x for both; full detail for every pass at most 2.5x (tiny) and 1.5x (mid). A recorded run's
time includes `finish()`, which summarises whatever is still pending. The "silent observer"
row is an observer that ignores every event: the engine's own cost of announcing them, which
every recording pays before doing anything. The "default + step gate" row adds the session's
StepGate, running on (no breakpoint), as `graphscope run` (headless or not) installs it: the gate
hears every op and backward step, so the engine calls the recorder per step instead of taping.
The "first pass only" row is `--keep first=1`, the least a user can ask to keep: no target of its
own, but it should cost no more than the default (it once held every step's optimizer copies).

BLAS runs on one thread unless --blas-threads says otherwise: on a shared machine a
multi-threaded BLAS contending with other processes makes single runs swing tenfold.

Run: python3 bench/trace.py [--steps 200] [--repeats 5] [--blas-threads N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

if __name__ == "__main__":  # before NumPy loads its BLAS
    _threads = sys.argv[sys.argv.index("--blas-threads") + 1] if "--blas-threads" in sys.argv else "1"
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, _threads)

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import graphscope as gs
from graphscope import nn, optim
from graphscope.engine import hooks
from graphscope.session.step_gate import StepGate
from graphscope.trace.recording.recorder import Policy, Recorder

MODELS: dict[str, dict[str, Any]] = {
    "tiny": dict(sizes=(2, 16, 16, 1), batch=64, classes=None),
    "mid": dict(sizes=(784, 256, 256, 10), batch=64, classes=10),
}


def make(name: str):
    """A model, its optimizer and one batch of data (the loop reuses the batch)."""
    spec = MODELS[name]
    gs.manual_seed(0)
    sizes = spec["sizes"]
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    model = nn.Sequential(*layers)
    optimizer = optim.SGD(model.parameters(), lr=0.01)
    x = gs.randn(spec["batch"], sizes[0])
    if spec["classes"]:
        y = gs.randint(0, spec["classes"], (spec["batch"],))
        loss_fn: nn.Module = nn.CrossEntropyLoss()
    else:
        y = gs.randn(spec["batch"], 1)
        loss_fn = nn.MSELoss()
    return model, optimizer, loss_fn, x, y


def train(model, optimizer, loss_fn, x, y, steps: int) -> float:
    for _ in range(steps):
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


class Silent(hooks.Observer):
    """Handles every event and does nothing: what the engine's announcing costs by itself."""

    def node_created(self, node, inputs, output, site):
        pass

    def module_entered(self, module, name):
        pass

    def module_left(self, module, name):
        pass

    def backward_begun(self, root, order):
        pass

    def before_node(self, node, grad_output):
        pass

    def after_node(self, node, grad_inputs):
        pass

    def leaf_grad_accumulated(self, tensor, grad):
        pass

    def backward_ended(self, root):
        pass


def timed(name: str, steps: int, policy) -> float:
    model, optimizer, loss_fn, x, y = make(name)
    start = time.perf_counter()
    if policy is None:
        train(model, optimizer, loss_fn, x, y, steps)
    elif policy == "silent":
        with hooks.observe(Silent()):
            train(model, optimizer, loss_fn, x, y, steps)
    elif policy == "gate":
        recorder = Recorder(Policy())
        gate = StepGate(recorder, list, lambda *_: None, pause=False)
        with hooks.observe(recorder), hooks.observe(gate):
            train(model, optimizer, loss_fn, x, y, steps)
        recorder.finish()
    else:
        recorder = Recorder(policy)
        with hooks.observe(recorder):
            train(model, optimizer, loss_fn, x, y, steps)
        recorder.finish()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--blas-threads", default="1", help="BLAS threads (set before NumPy loads)")
    args = parser.parse_args()
    configs = [
        ("unrecorded", None),
        ("silent observer", "silent"),
        ("default policy", Policy()),
        ("default + step gate", "gate"),
        ("first pass only", Policy(keep_first=1, keep_last=0)),
        ("every pass", Policy.every_pass()),
    ]
    targets = {
        ("tiny", "default policy"): 1.5,
        ("mid", "default policy"): 1.5,
        ("tiny", "every pass"): 2.5,
        ("mid", "every pass"): 1.5,
    }
    for name in MODELS:
        timed(name, 5, Policy())  # warm up
        times: dict[str, list[float]] = {label: [] for label, _ in configs}
        for _ in range(args.repeats):  # interleaved, so drifting machine load hits each alike
            for label, policy in configs:
                times[label].append(timed(name, args.steps, policy))
        base = statistics.median(times["unrecorded"])
        print(f"{name} MLP {'->'.join(map(str, MODELS[name]['sizes']))}, {args.steps} steps, median of {args.repeats}:")
        for label, _ in configs:
            t = statistics.median(times[label])
            line = f"  {label:19s} {t * 1000:8.1f} ms   {t / base:5.2f}x"
            target = targets.get((name, label))
            if target is not None:
                line += f"   (target <= {target}x: {'ok' if t / base <= target else 'OVER'})"
            print(line)


if __name__ == "__main__":
    main()
