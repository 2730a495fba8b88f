"""Ctrl-C during `graphscope run --headless --export`: exit 130 and an export that loads, whenever
it comes and whatever the script is doing (engine ops, NumPy work, a pure-Python loop, catching
BaseException); a script that uses the engine from several threads still exports a loadable record."""

import random
import signal
import subprocess
import sys

import pytest

from tests.graphscope_command import HANG_SECONDS, env, graphscope, script
from tests.hostile.hostile_helpers import loads

TRAINING = """
    import graphscope as gs
    w = gs.randn(64, 64, requires_grad=True)
    x = gs.randn(32, 64)
    step = 0
    while True:
        loss = (x @ w).tanh().pow(2).mean()
        loss.backward()
        with gs.no_grad():
            w -= 0.01 * w.grad
        w.grad = None
        step += 1
        if step == 2:
            print("running", flush=True)
"""

PREAMBLE = """
    import numpy as np
    import graphscope as gs
    w = gs.randn(16, 16, requires_grad=True)
    (w @ w).sum().backward()
    print("running", flush=True)
"""
STUCK = {
    "numpy work in flight": PREAMBLE
    + """
    a = np.random.rand(1500, 1500)
    while True:
        a = np.linalg.inv(a + np.eye(1500))
        (w @ w).sum().backward()
    """,
    "a pure-Python loop": PREAMBLE
    + """
    while True:
        pass
    """,
    "a loop that catches BaseException": PREAMBLE
    + """
    while True:
        try:
            (w @ w).tanh().sum().backward()
        except BaseException:
            pass
    """,
}


def _interrupt(tmp_path, source, delay):
    """Start a headless run, wait for its "running" line and `delay` more seconds, send SIGINT."""
    out = tmp_path / "x.json"
    out.unlink(missing_ok=True)
    run = subprocess.Popen(
        [sys.executable, "-m", "graphscope", "run", "--headless", "--export", str(out), str(script(tmp_path, source))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    try:
        assert run.stdout.readline().strip() == "running"
        import time

        time.sleep(delay)
        run.send_signal(signal.SIGINT)
        stdout, stderr = run.communicate(timeout=HANG_SECONDS)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    return run.returncode, stdout, stderr, out


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(10))
def test_ctrl_c_at_a_random_moment_exits_130_with_an_export_that_loads(tmp_path, trial):
    code, _, stderr, out = _interrupt(tmp_path, TRAINING, random.Random(trial).uniform(0.0, 1.5))
    assert code == 130, stderr[-2000:]
    assert "Traceback" not in stderr and "snapshot written to" in stderr, stderr[-2000:]
    record = loads(out)
    assert record.metadata.exit_code == 130 and record.passes


@pytest.mark.parametrize("case", sorted(STUCK))
@pytest.mark.slow
def test_ctrl_c_while_the_script_is_not_at_an_engine_event(tmp_path, case):
    code, _, stderr, out = _interrupt(tmp_path, STUCK[case], 0.3)
    assert code == 130, stderr[-2000:]
    assert "Traceback" not in stderr and "snapshot written to" in stderr, stderr[-2000:]
    assert loads(out).metadata.exit_code == 130


THREADS = """
    import threading
    import graphscope as gs
    w = gs.randn(20, 20, requires_grad=True)

    def work():
        for _ in range(40):
            (w @ w).tanh().sum().backward()

    workers = [threading.Thread(target=work, name=f"worker{i}") for i in range(3)]
    for t in workers:
        t.start()
    work()
    for t in workers:
        t.join()
    print("done")
"""


@pytest.mark.slow
def test_a_script_using_the_engine_from_several_threads_records_its_main_thread(tmp_path):
    out = tmp_path / "x.json"
    result = graphscope("run", "--headless", "--export", out, script(tmp_path, THREADS))
    assert result.returncode == 0 and "done" in result.stdout, result.stderr[-2000:]
    record = loads(out)
    assert len(record.passes) == 40  # the main thread's, and only those
    notes = [line for line in result.stderr.splitlines() if "is recorded" in line]
    assert sorted(notes) == [
        f"graphscope: thread 'worker{i}' used the engine; only the script's main thread "
        "is recorded, so that thread's ops are not in the graph"
        for i in range(3)
    ]
    assert [c.text for c in record.console if c.stream == "stderr"] == sorted(notes, key=notes.index)


def test_other_threads_run_untouched_by_the_debugger(tmp_path):
    result = graphscope("run", "--headless", script(tmp_path, THREADS))
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
