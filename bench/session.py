"""Session overhead: step() to the next pause on a small graph, and a 1000-iteration loop under a session.

Prints figures and ratios measured in this run (no assertions):
  1. latency from step() to the next pause on a small graph (target: median under 2 ms);
  2. a 1000-iteration training loop run under a Session with no breakpoints vs the same loop
     recorded without a session (target: at most 1.1x).
Run: python3 bench/session.py [--iterations N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import textwrap
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from graphscope.engine.hooks import observe
from graphscope.session import Session, SessionOptions
from graphscope.trace.recording.recorder import Recorder

CHAIN = """
import graphscope as gs
x = gs.ones(8, requires_grad=True)
y = x
for _ in range(400):
    y = (y * 1.0001).tanh()
y.sum().backward()
"""

LOOP = """
import sys
import graphscope as gs
from graphscope import nn, optim
gs.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = optim.SGD(model.parameters(), lr=0.01)
x, y = gs.randn(32, 2), gs.randn(32, 1)
for _ in range(int(sys.argv[1])):
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


def write(folder: str, name: str, source: str) -> str:
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(textwrap.dedent(source))
    return path


def step_latency(path: str, steps: int) -> list[float]:
    """Seconds from each step() call to the listener hearing of the next pause."""
    paused = threading.Event()
    session = Session(path, [], SessionOptions(break_on_nan=False))
    session.add_listener(lambda state: paused.set() if state.kind == "paused" else None)
    session.start()
    assert paused.wait(30), "the session never paused"
    latencies = []
    for _ in range(steps):
        paused.clear()
        start = time.perf_counter()
        session.step()
        assert paused.wait(30)
        latencies.append(time.perf_counter() - start)
    session.quit()
    session.join(5)
    return latencies


def loop_under_session(path: str, iterations: int) -> float:
    session = Session(path, [str(iterations)], SessionOptions(pause=False, break_on_nan=False))
    start = time.perf_counter()
    session.start()
    session.join()
    assert session.state.exit_code == 0, session.record.error
    return time.perf_counter() - start


def loop_recorded(path: str, iterations: int) -> float:
    import runpy

    saved = sys.argv
    sys.argv = [path, str(iterations)]
    start = time.perf_counter()
    recorder = Recorder()
    with observe(recorder):
        runpy.run_path(path, run_name="__main__")
    recorder.finish(0)  # both sides end with a complete record
    elapsed = time.perf_counter() - start
    sys.argv = saved
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        chain = write(folder, "chain.py", CHAIN)
        loop = write(folder, "loop.py", LOOP)
        latencies = step_latency(chain, 200)
        median = statistics.median(latencies) * 1e3
        print(
            f"step() to next pause, small graph: median {median:.3f} ms "
            f"(p90 {sorted(latencies)[int(len(latencies) * 0.9)] * 1e3:.3f} ms)  target < 2 ms  "
            f"{'ok' if median < 2 else 'MISSED'}"
        )
        # The sides take turns, and each turn's ratio counts: neighbours share the machine's mood.
        pairs = [
            (loop_under_session(loop, args.iterations), loop_recorded(loop, args.iterations))
            for _ in range(args.repeats)
        ]
        with_session = statistics.median(a for a, _ in pairs)
        recorded = statistics.median(b for _, b in pairs)
        ratio = statistics.median(a / b for a, b in pairs)
        print(
            f"{args.iterations}-iteration loop: session {with_session:.3f} s vs recorded without a session "
            f"{recorded:.3f} s = {ratio:.2f}x  target <= 1.10x  {'ok' if ratio <= 1.1 else 'MISSED'}"
        )


if __name__ == "__main__":
    main()
