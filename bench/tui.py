"""TUI speed, headless (App.run_test): open a 100,000-node snapshot to first paint < 1 s, one step on a
tiny MLP < 30 ms median (key press to screen updated; with the graph tree shown, with the training view
plotting a 10,000-pass series of 10 parameters when the recorder kept none, and with the dag view drawing the
graph, each view's ratio to the tree's printed too), search over 100,000 nodes < 100 ms per query;
in a fresh process, the app's resident memory with that snapshot open <= 250 MB, and with --million a
1,000,000-node snapshot with a backward step each loaded and painted in < 5 s within 1.5 GB.

Run: python3 bench/tui.py [--nodes N] [--steps K] [--repeat R] [--million] [--steps-only]
Each figure is printed with its target and the ratio figure / target (below 1 is within target).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
from textual.widgets import Input

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fresh_process import run_fresh  # bench/fresh_process.py, beside this file
from snapshot import build  # bench/snapshot.py: the same deep record is loaded and painted

from graphscope.session import Debuggee, Session, SessionOptions
from graphscope.trace import snapshot
from graphscope.trace.record.model import Record
from graphscope.trace.record.training import ParamSeries, TrainingSeries
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.find_dialog import FindDialog
from graphscope.tui.graph_tree import GraphTree
from graphscope.tui.launch import load_for_viewing

QUERIES = ("matmul", "layers.4242", "#50000", "train.py:15", "softmaxbackward0", "no such thing", "a")

TINY_MLP = textwrap.dedent("""
    import graphscope as gs
    from graphscope import nn

    gs.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    x = gs.randn(16, 3)
    y = gs.randn(16, 1)
    for step in range(10_000):
        loss = ((model(x) - y) ** 2).mean()
        model.zero_grad()
        loss.backward()
""")


class TimedApp(GraphscopeApp):
    """Stamps the time of each frame that follows a state change (and the first frame)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.first_paint: float | None = None
        self.paints: list[tuple[float, object]] = []

    def on_mount(self) -> None:  # runs after GraphscopeApp.on_mount (Textual calls each class's handler)
        self.call_after_refresh(self._first)

    def _first(self) -> None:
        self.first_paint = time.perf_counter()

    def _apply(self, state, now: bool = False) -> None:
        super()._apply(state, now)
        self.call_after_refresh(lambda: self.paints.append((time.perf_counter(), state)))


async def until(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError
        await asyncio.sleep(0.0005)


def report(name: str, figure: float, target: float, unit: str = "ms") -> None:
    scale = 1000 if unit == "ms" else 1
    ratio = figure / target
    print(
        f"  {name:<44} {figure * scale:8.1f} {unit}   target < {target * scale:g} {unit}   "
        f"ratio {ratio:5.2f}  {'ok' if ratio < 1 else 'OVER'}"
    )


async def open_snapshot(path: str) -> tuple[float, float, float]:
    """(load, load to first paint, load to the graph shown) in seconds."""
    start = time.perf_counter()
    record = load_for_viewing(path)  # what `graphscope view` does
    loaded = time.perf_counter()
    app = TimedApp(Debuggee(record, path))
    async with app.run_test(size=(120, 40)):
        tree = app.query_one(GraphTree)
        await until(lambda: app.first_paint is not None)
        await until(lambda: any(r.kind == "node" for r in tree.rows) and app.paints)
        shown = app.paints[-1][0]
    gc.unfreeze()
    assert app.first_paint is not None  # waited for above
    return loaded - start, app.first_paint - loaded, shown - loaded


ui_cpu: list[float] = []  # the UI thread's CPU time per step (the run's load does not change it)


def long_series(passes: int = 10_000, params: int = 10) -> TrainingSeries:
    """A long run's figures: a noisy falling loss; per parameter a grad norm, an update ratio and a
    learning rate per pass."""
    rng = np.random.default_rng(0)
    k = np.arange(passes, dtype=np.float64)
    series = TrainingSeries(passes, 2.0 / (1 + k / 500) + 0.05 * rng.random(passes))
    for i in range(params):
        name = f"layers.{i}.weight"
        norms = np.exp(rng.standard_normal(passes)) / (i + 1)
        series.params[name] = ParamSeries(name, norms, 1e-3 * np.exp(rng.standard_normal(passes)), np.full(passes, 0.1))
    return series


async def step_latencies(steps: int, view_key: str | None = None) -> list[float]:
    """Key press to screen updated for each of `steps` steps, with the view `view_key` opens shown (the
    graph tree when None; the training view, "t", shows the recorded series, or `long_series` when the
    recorder kept none)."""
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "tiny_mlp.py")
        Path(script).write_text(TINY_MLP)
        session = Session(script, [], SessionOptions())
        app = TimedApp(session)
        latencies = []
        try:
            async with app.run_test(size=(120, 40)) as pilot:
                await until(
                    lambda: session.state.kind == "paused" and app.paints and app.paints[-1][1] is session.state
                )
                if view_key == "t" and session.record.training.empty():
                    session.record.training = long_series()
                if view_key is not None:
                    shown = app.views.current
                    await pilot.press(view_key)
                    await until(lambda: app.views.current != shown)
                cpu = time.thread_time()
                for _ in range(steps):
                    before = session.state
                    seen = len(app.paints)
                    start = time.perf_counter()
                    await pilot.press("n")
                    await until(
                        lambda before=before, seen=seen: (
                            session.state is not before
                            and session.state.kind == "paused"
                            and len(app.paints) > seen
                            and app.paints[-1][1] is session.state
                        )
                    )
                    latencies.append(app.paints[-1][0] - start)
                ui_cpu.append((time.thread_time() - cpu) / steps)
                await pilot.press("q")
        finally:
            session.quit()
            session.join(5)
        return latencies


async def search_latencies(record: Record) -> tuple[list[float], list[float]]:
    """(through the find dialog: keystroke to results painted, the index alone) per query, in seconds."""
    app = TimedApp(Debuggee(record, "big.json"))
    ui, bare = [], []
    async with app.run_test(size=(120, 40)) as pilot:
        await until(app.index.fresh, timeout=60)
        await pilot.press("slash")
        await until(lambda: isinstance(app.screen, FindDialog))
        dialog = app.screen
        assert isinstance(dialog, FindDialog)  # waited for above
        field = dialog.query_one("#find-input", Input)
        for query in QUERIES:
            painted: list[float] = []
            start = time.perf_counter()
            field.value = query
            await until(lambda query=query: dialog.result is not None and dialog.result.query == query)
            dialog.call_after_refresh(lambda painted=painted: painted.append(time.perf_counter()))
            await until(lambda painted=painted: painted)
            ui.append(painted[0] - start)
            t = time.perf_counter()
            app.index.search(query)
            bare.append(time.perf_counter() - t)
    return ui, bare


APP_PROCESS = """
import asyncio, sys, time
sys.path.insert(0, sys.argv[2])
import tui as bench
from graphscope.session import Debuggee
from graphscope.tui.graph_tree import GraphTree
from graphscope.tui.launch import load_for_viewing
from graphscope.tui.training_view import TrainingView

def memory():
    status = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return int(status["VmRSS"].split()[0]) * 1024, int(status["VmHWM"].split()[0]) * 1024

async def main():
    start = time.perf_counter()
    record = load_for_viewing(sys.argv[1])
    loaded = time.perf_counter()
    app = bench.TimedApp(Debuggee(record, sys.argv[1]))
    async with app.run_test(size=(120, 40)):
        tree = app.query_one(GraphTree)
        await bench.until(lambda: app.first_paint is not None, 120)
        await bench.until(lambda: any(r.kind == "node" for r in tree.rows) and app.paints, 120)
        shown = app.paints[-1][0]
        await bench.until(app.index.fresh, 120)
        await asyncio.sleep(0.2)
        rss, peak = memory()
    print(loaded - start, app.first_paint - start, shown - start, rss, peak)

asyncio.run(main())
"""


def app_process(path: str) -> tuple[float, float, float, int, int]:
    """(load, load to first paint, load to the graph shown, resident bytes once shown and indexed, peak
    bytes) of the app opening `path` in a fresh process."""
    load, paint, shown, rss, peak = run_fresh(APP_PROCESS, path, os.path.dirname(os.path.abspath(__file__)))[-5:]
    return float(load), float(paint), float(shown), int(rss), int(peak)


def random_dag(n: int, seed: int = 0) -> tuple[dict[int, int], list[tuple[int, int]]]:
    """Boxes 8-28 columns wide, each node fed by one to three of the six made before it."""
    rng = np.random.default_rng(seed)
    widths = {i: int(rng.integers(8, 29)) for i in range(n)}
    edges = [
        (int(j), i)
        for i in range(1, n)
        for j in rng.choice(np.arange(max(0, i - 6), i), min(i, int(rng.integers(1, 4))), replace=False)
    ]
    return widths, edges


def layouts(repeat: int = 5) -> None:
    """The dag view's layout (grandalf's Sugiyama) and drawing of a 40-node picture (the most the view
    draws) and of a 100-node graph; target: 100 ms for the picture, a step's worth of waiting."""
    from rich.text import Text

    from graphscope.tui.graph_canvas import BoxLook, draw
    from graphscope.tui.graph_layout import layout

    print("the dag view's layout + drawing (median of 5):")
    medians = []
    for n in (40, 100):
        widths, edges = random_dag(n)
        looks = {i: BoxLook((Text("matmul"), Text("64×256 f32"))) for i in widths}
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            draw(layout(widths, edges, 4), looks)
            times.append(time.perf_counter() - start)
        medians.append(statistics.median(times))
        report(f"{n} nodes, {len(edges)} edges", medians[-1], 0.100)
    print(f"  {'100 nodes / 40 nodes':<44} {medians[1] / medians[0]:8.2f}")


def steps(count: int = 60) -> None:
    """One step on a tiny MLP with the graph tree shown, then with the training view (t), then with the dag
    view (d) drawing the graph."""
    medians = []
    views = ((None, "the graph tree"), ("t", "the training view"), ("d", "the dag view"))
    for view_key, name in views:
        latencies = asyncio.run(step_latencies(count, view_key))
        print(f"one step on a tiny MLP with {name} shown (key press -> screen updated), {len(latencies)} steps:")
        report("median", statistics.median(latencies), 0.030)
        print(
            f"  {'90th percentile / max':<44} {np.percentile(latencies, 90) * 1000:8.1f} ms / "
            f"{max(latencies) * 1000:.1f} ms"
        )
        print(
            f"  {'UI thread CPU per step (incl. pilot)':<44} {ui_cpu[-1] * 1000:8.1f} ms   "
            f"(load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
        )
        medians.append(statistics.median(latencies))
    for (_, name), median in zip(views[1:], medians[1:]):
        print(f"  {name + ' / the graph tree, median step':<44} {median / medians[0]:8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=60, help="step key presses to time")
    parser.add_argument("--repeat", type=int, default=3, help="openings of the snapshot to time")
    parser.add_argument("--million", action="store_true", help="also open a 1,000,000-node snapshot")
    parser.add_argument(
        "--steps-only", action="store_true", help="only the dag layout and the step timings (tree, training, dag views)"
    )
    args = parser.parse_args()
    if args.steps_only:
        layouts()
        steps(args.steps)
        return

    record = build(args.nodes, steps=False)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "big.json")
        snapshot.dump(record, path)
        size = os.path.getsize(path)
        openings = [asyncio.run(open_snapshot(path)) for _ in range(args.repeat)]
        fresh = app_process(path)
    load = statistics.median(o[0] for o in openings)
    paint = statistics.median(o[1] for o in openings)
    shown = statistics.median(o[2] for o in openings)
    print(f"open a {args.nodes:,}-node snapshot ({size / 2**20:.1f} MiB), median of {args.repeat}:")
    report("record loaded -> first paint", paint, 1.0, "s")
    report("record loaded -> graph tree shown", shown, 1.0, "s")
    print(
        f"  {'(snapshot load itself: bench/snapshot.py)':<44} {load:8.2f} s    load + first paint {load + paint:.2f} s"
    )

    print(f"the app in a fresh process with that snapshot (load {fresh[0]:.2f} s):")
    report("load + first paint", fresh[1], 1.0, "s")
    report("resident memory, graph shown and indexed (MB)", fresh[3] / 1e6, 250, "")
    print(f"  {'peak memory (MB)':<44} {fresh[4] / 1e6:8.1f}")
    if args.million:
        from snapshot import build_columns

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "million.json")
            snapshot.dump(build_columns(1_000_000, steps=True), path)
            size = os.path.getsize(path)
            big = app_process(path)
        print(
            f"the app in a fresh process with a 1,000,000-node snapshot ({size / 2**20:.0f} MiB, load {big[0]:.2f} s):"
        )
        report("load + first paint", big[1], 5.0, "s")
        report("peak memory (MB)", big[4] / 1e6, 1500, "")
        print(f"  {'resident, graph shown and indexed (MB)':<44} {big[3] / 1e6:8.1f}")

    gc.collect()  # the openings' records are garbage now: collect them before the next phase is timed
    layouts()
    steps(args.steps)

    ui, bare = asyncio.run(search_latencies(record))
    print(f"search over {args.nodes:,} nodes, {len(QUERIES)} queries ({', '.join(map(repr, QUERIES))}):")
    report("keystroke -> results painted, median", statistics.median(ui), 0.100)
    report("keystroke -> results painted, worst", max(ui), 0.100)
    print(
        f"  {'the index alone, median / worst':<44} {statistics.median(bare) * 1000:8.1f} ms / "
        f"{max(bare) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
