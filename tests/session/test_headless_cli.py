"""`graphscope run --headless` and `graphscope summary`: output, exports and exit codes."""

import json
import os
import subprocess
import sys

import pytest

from graphscope.trace import snapshot
from tests.graphscope_command import ROOT, env, graphscope, script

SAMPLES = os.path.join(ROOT, "samples")


def test_headless_run_prints_the_summary_and_the_scripts_output(tmp_path):
    result = graphscope("run", "--headless", os.path.join(SAMPLES, "fit_a_line.py"))
    assert result.returncode == 0, result.stderr
    assert "fitted" in result.stdout  # the script's own prints pass through
    assert "graphscope summary" in result.stdout and "backward passes recorded" in result.stdout


@pytest.mark.slow
def test_export_writes_a_snapshot_that_summary_reads(tmp_path):
    snap = tmp_path / "run.json"
    result = graphscope("run", "--headless", "--export", str(snap), os.path.join(SAMPLES, "training_loop.py"))
    assert result.returncode == 0, result.stderr
    doc = json.loads(snap.read_text())
    assert doc["format"] == "graphscope-snapshot" and doc["version"] == snapshot.VERSION
    summary = graphscope("summary", str(snap))
    assert summary.returncode == 0 and "graphscope summary" in summary.stdout


def test_dot_export_names_the_ops(tmp_path):
    dot = tmp_path / "graph.dot"
    result = graphscope("run", "--headless", "--dot", str(dot), os.path.join(SAMPLES, "fit_a_line.py"))
    assert result.returncode == 0, result.stderr
    text = dot.read_text()
    assert text.startswith("digraph") and "mul" in text


def test_exit_code_is_the_scripts_sys_exit_code(tmp_path):
    path = script(tmp_path, "import sys\nsys.exit(4)\n")
    assert graphscope("run", "--headless", path).returncode == 4


@pytest.mark.slow
def test_a_raising_script_exits_1_prints_its_traceback_and_still_exports(tmp_path):
    snap = tmp_path / "crash.json"
    path = script(
        tmp_path,
        """
        import graphscope as gs
        w = gs.ones(3, requires_grad=True)
        (w * 2).sum().backward()
        raise ValueError("the script broke")
    """,
    )
    result = graphscope("run", "--headless", "--export", str(snap), path)
    assert result.returncode == 1
    assert "Traceback" in result.stderr and "ValueError: the script broke" in result.stderr
    assert json.loads(snap.read_text())["format"] == "graphscope-snapshot"
    assert "the script broke" in graphscope("summary", str(snap)).stdout


def test_fail_on_nan_exits_3_when_a_nan_appeared():
    path = os.path.join(SAMPLES, "exploding_nan.py")
    result = graphscope("run", "--headless", "--fail-on-nan", path)
    assert result.returncode == 3
    assert "NaN origin" in result.stdout and "exploding_nan.py:" in result.stdout


def test_fail_on_nan_keeps_the_scripts_code_when_all_is_finite():
    assert graphscope("run", "--headless", "--fail-on-nan", os.path.join(SAMPLES, "fit_a_line.py")).returncode == 0


def test_a_script_that_builds_no_graph_gets_a_plain_message(tmp_path):
    result = graphscope("run", "--headless", script(tmp_path, "print('hello')\n"))
    assert result.returncode == 0
    assert "hello" in result.stdout and "no graph" in result.stdout.lower()


def test_the_script_gets_its_own_arguments(tmp_path):
    path = script(tmp_path, "import sys\nprint('args', sys.argv[1:])\n")
    result = graphscope("run", "--headless", path, "--lr", "0.1")
    assert "args ['--lr', '0.1']" in result.stdout


def test_a_missing_script_is_exit_2_with_a_message(tmp_path):
    result = graphscope("run", "--headless", str(tmp_path / "nope.py"))
    assert result.returncode == 2 and "no such file" in result.stderr and "Traceback" not in result.stderr


def test_summary_of_a_bad_snapshot_is_exit_2_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "graphscope-snapshot", "version": 1, ')
    result = graphscope("summary", str(bad))
    assert result.returncode == 2
    assert str(bad) in result.stderr and "Traceback" not in result.stderr


def test_as_torch_headless_runs_a_pytorch_script(tmp_path):
    path = script(
        tmp_path,
        """
        import torch
        x = torch.ones(2, 2, requires_grad=True)
        (x * 3).sum().backward()
        print("grad", x.grad.tolist())
    """,
    )
    result = graphscope("run", "--headless", "--as-torch", path)
    assert result.returncode == 0, result.stderr
    assert "grad [[3.0, 3.0], [3.0, 3.0]]" in result.stdout


def test_as_torch_headless_saves_and_loads_a_checkpoint(tmp_path):
    path = script(
        tmp_path,
        """
        import torch
        model = torch.nn.Linear(2, 1)
        opt = torch.optim.Adam(model.parameters())
        model(torch.ones(1, 2)).sum().backward()
        opt.step()
        torch.save({"model": model.state_dict(), "optim": opt.state_dict()}, "ckpt.pt")
        checkpoint = torch.load("ckpt.pt", map_location=torch.device("cpu"))
        fresh = torch.nn.Linear(2, 1)
        fresh.load_state_dict(checkpoint["model"])
        torch.optim.Adam(fresh.parameters()).load_state_dict(checkpoint["optim"])
        print("same", fresh.weight.tolist() == model.weight.tolist())
    """,
    )
    result = graphscope("run", "--headless", "--as-torch", path, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "same True" in result.stdout


LEFT_IN_A_CYCLE = """
    import atexit, sys
    import graphscope as gs
    x = gs.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    class Left:
        def __del__(self):
            print("finalised", file=sys.stderr, flush=True)
    left = Left()
    left.me = left
    if sys.argv[1:] == ["exit-handler"]:
        atexit.register(print, "exit handler ran", file=sys.stderr)
"""


def _exit_probe(path, *args) -> subprocess.CompletedProcess:
    """`graphscope run --headless path args` in a process whose last exit handler says whether the
    collector's objects were frozen by then."""
    run = (
        "import atexit, gc, runpy, sys; "
        "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0, file=sys.stderr)); "
        f"sys.argv = ['graphscope', 'run', '--headless', {str(path)!r}, *{list(args)!r}]; "
        "runpy.run_module('graphscope', run_name='__main__')"
    )
    return subprocess.run([sys.executable, "-c", run], capture_output=True, text=True, env=env(), check=False)


def test_the_exit_scans_no_object_again_and_what_the_script_left_is_finalised(tmp_path):
    # The interpreter's exit collects several times, each scanning every object alive (a record kept
    # whole: a tenth of the run): after one collection, which finalises the script's leftovers, the
    # rest is frozen.
    result = _exit_probe(script(tmp_path, LEFT_IN_A_CYCLE))
    assert result.returncode == 0, result.stderr
    assert "finalised" in result.stderr
    assert "frozen True" in result.stderr


def test_a_script_that_leaves_an_exit_handler_exits_as_under_python(tmp_path):
    # What its handler lets go of is finalised by the exit's collections, as under plain python.
    result = _exit_probe(script(tmp_path, LEFT_IN_A_CYCLE), "exit-handler")
    assert result.returncode == 0, result.stderr
    assert "frozen False" in result.stderr
    assert result.stderr.index("exit handler ran") < result.stderr.index("finalised")


def test_a_headless_run_loads_only_what_it_uses(tmp_path):
    # No export asked for: no DOT writer, no snapshot reader or writer; no gradcheck and no evaluator of
    # lines typed at a pause (the TUI's); no emoji table (the summary has none).
    report = tmp_path / "modules.txt"
    run = (
        "import atexit, runpy, sys; "
        f"atexit.register(lambda: open({str(report)!r}, 'w').write(' '.join(sys.modules))); "
        f"sys.argv = ['graphscope', 'run', '--headless', {os.path.join(SAMPLES, 'fit_a_line.py')!r}]; "
        "runpy.run_module('graphscope', run_name='__main__')"
    )
    result = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True, env=env(), check=False)
    assert result.returncode == 0, result.stderr
    assert "graphscope summary" in result.stdout
    modules = set(report.read_text().split())
    unused = {
        "graphscope.trace.report.dot",
        "graphscope.trace.snapshot.read",
        "graphscope.trace.snapshot.write",
        "graphscope.trace.analysis.node_gradcheck",
        "graphscope.session.evaluator",
        "rich._emoji_codes",
    }
    assert not modules & unused
