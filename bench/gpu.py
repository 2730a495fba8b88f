"""GPU benchmark: graphscope on CUDA (CuPy) against PyTorch on CUDA, and summaries on the device.

One training step of a wide MLP (4096 -> 4096 -> 4096 -> 10, ReLU, batch 4096, float32,
cross-entropy, SGD), written once with the torch-like names both libraries share. Ratios, not
times, are the result; both sides are timed in the same run, alternating, with the GPU
synchronised around each block of steps.

  graphscope step / PyTorch step                          target <= 1.3x
  step + summarising every tensor of it on the device     target <= 1.2x the unrecorded step
  step recorded by the debugger (Recorder, every pass)    reported, no target

Both sides use plain float32 matrix products (no TF32), PyTorch's and CuPy's defaults.
On a machine without a CUDA GPU it says so and exits 0.

Run: python3 bench/gpu.py [--steps 10] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import graphscope as gs
from graphscope.engine import hooks

WIDTH, CLASSES, BATCH, LR = 4096, 10, 4096, 0.01


def wide_mlp(lib, device):
    """A step function for `lib` (graphscope or torch): forward, loss, backward, SGD update."""
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(WIDTH, WIDTH), nn.ReLU(), nn.Linear(WIDTH, WIDTH), nn.ReLU(), nn.Linear(WIDTH, CLASSES)
    ).to(device)
    optimizer = lib.optim.SGD(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    x = lib.randn(BATCH, WIDTH, device=device)
    y = lib.randint(0, CLASSES, (BATCH,), device=device)

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


class EveryTensor(hooks.Observer):
    """Collects every tensor of a step as the engine announces it: node inputs and outputs,
    each node's output grad and input grads, and the grads accumulated into leaves."""

    def __init__(self):
        self.arrays = []

    def node_created(self, node, inputs, output, site):
        self.arrays.extend(t.array for t in inputs if isinstance(t, gs.Tensor))
        self.arrays.append(output.array)

    def before_node(self, node, grad_output):
        self.arrays.append(grad_output)

    def after_node(self, node, grad_inputs):
        self.arrays.extend(g for g in grad_inputs if g is not None)

    def leaf_grad_accumulated(self, tensor, grad):
        self.arrays.append(grad)


def summarised(step):
    """The step, then a summary (statistics, histogram, preview) of each of its tensors."""
    from graphscope.trace.stats.summarize import summarize_many

    def run():
        seen = EveryTensor()
        with hooks.observe(seen):
            loss = step()
        unique = list({id(a): a for a in seen.arrays}.values())
        summarize_many(unique)
        return loss

    return run


def recorded(step):
    """The step under the debugger's Recorder, full detail for every pass (finish() included)."""
    from graphscope.trace.recording.recorder import Policy, Recorder

    def run_block(n):
        recorder = Recorder(Policy.every_pass())
        with hooks.observe(recorder):
            for _ in range(n):
                step()
        recorder.finish()

    return run_block


def timer(sync):
    def time_block(run_block, n):
        sync()
        start = time.perf_counter()
        run_block(n)
        sync()
        return (time.perf_counter() - start) / n

    return time_block


def loop(step):
    def run_block(n):
        for _ in range(n):
            step()

    return run_block


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10, help="steps per timed block")
    parser.add_argument("--repeats", type=int, default=5, help="timed blocks per side")
    args = parser.parse_args()
    if not gs.cuda.is_available():
        reason = "graphscope.cuda.is_available() is False"
        try:
            gs.zeros(1, device="cuda")
        except RuntimeError as error:
            reason = str(error)
        print(f"bench/gpu.py: no CUDA GPU here, nothing measured.\n  {reason}")
        return 0

    import cupy
    import torch

    sync_gs = timer(lambda: cupy.cuda.Device().synchronize())
    sync_torch = timer(torch.cuda.synchronize)
    print(
        f"graphscope {gs.__version__}, CuPy {cupy.__version__}, PyTorch {torch.__version__}, "
        f"GPU: {torch.cuda.get_device_name(0) if torch.cuda.is_available() else '?'}"
    )
    print(
        f"wide MLP {WIDTH}->{WIDTH}->{WIDTH}->{CLASSES}, batch {BATCH}, float32, CE + SGD; "
        f"median of {args.repeats} blocks of {args.steps} steps\n"
    )

    gs_step = wide_mlp(gs, "cuda")
    sides = {"graphscope": (sync_gs, loop(gs_step)), "summarised": (sync_gs, loop(summarised(gs_step)))}
    if torch.cuda.is_available():
        sides["PyTorch"] = (sync_torch, loop(wide_mlp(torch, "cuda")))
    for time_block, run_block in sides.values():  # warm up: kernels, caches, memory pools
        time_block(run_block, 2)
    times: dict[str, list[float]] = {label: [] for label in sides}
    for _ in range(args.repeats):  # interleaved, so drifting clocks hit each side alike
        for label, (time_block, run_block) in sides.items():
            times[label].append(time_block(run_block, args.steps))
    median = {label: statistics.median(t) for label, t in times.items()}
    try:
        record_block = recorded(gs_step)
        sync_gs(record_block, 1)
        median["recorded"] = statistics.median(sync_gs(record_block, args.steps) for _ in range(3))
    except Exception as error:  # noqa: BLE001 (the debugger's recorder is measured when it can run here)
        print(f"(recorder not measured: {type(error).__name__}: {error})")

    rows = [
        ("graphscope step vs PyTorch", "graphscope", "PyTorch", 1.3),
        ("step + summary of every tensor", "summarised", "graphscope", 1.2),
        ("step recorded (every pass)", "recorded", "graphscope", None),
    ]
    print(f"{'case':34s} {'subject':>12s} {'reference':>12s}  {'ratio':>6s}  target")
    print("-" * 78)
    for name, subject, reference, target in rows:
        if subject not in median or reference not in median:
            print(f"{name:34s} {'-':>12s} {'-':>12s}  {'-':>6s}  not measured")
            continue
        ratio = median[subject] / median[reference]
        verdict = "" if target is None else f"<= {target:.2f}x  {'ok' if ratio <= target else 'MISSED'}"
        print(f"{name:34s} {median[subject] * 1e3:9.2f} ms {median[reference] * 1e3:9.2f} ms  {ratio:5.2f}x  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
