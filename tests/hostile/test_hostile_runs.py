"""Scripts that move, exit, crash or take signals under `graphscope run --headless` behave as under
plain python, and the run still ends in exports that load or one line saying why there are none;
export paths are taken as the user typed them, when the command started."""

import signal
import subprocess
import sys
import textwrap

import pytest

from tests.graphscope_command import HANG_SECONDS, env, graphscope, script
from tests.hostile.hostile_helpers import loads, one_line_error

TRAIN = textwrap.dedent("""
    import graphscope as gs
    w = gs.ones(3, requires_grad=True)
    for _ in range(3):
        (w * 2).sum().backward()
""")

EXPORTS = [("--export", "snapshot"), ("--dot", "graph")]


def _written(path, flag):
    """Assert the export `flag` wrote at `path` is one."""
    if flag == "--export":
        loads(path)
    else:
        assert path.read_text().startswith("digraph")


def _lines(stderr):
    return [line for line in stderr.splitlines() if line.strip()]


# --- 9: a relative export path is the command's, not the script's -------------------------------


@pytest.mark.parametrize("flag, what", EXPORTS)
def test_a_relative_export_lands_where_the_command_started_not_where_the_script_moved(tmp_path, flag, what):
    start, elsewhere = tmp_path / "start", tmp_path / "elsewhere"
    start.mkdir()
    elsewhere.mkdir()
    (elsewhere / "out").write_text("the script's own file")
    path = script(tmp_path, f"import os\nos.chdir({str(elsewhere)!r})\n" + TRAIN)
    result = graphscope("run", "--headless", flag, "out", path, cwd=start)
    assert result.returncode == 0, result.stderr[-2000:]
    assert (elsewhere / "out").read_text() == "the script's own file"
    _written(start / "out", flag)
    assert _lines(result.stderr) == [f"{what} written to {start / 'out'}"]


# --- 10: os._exit and crashes ---------------------------------------------------------------------


@pytest.mark.slow
def test_a_script_ending_in_os_exit_still_gets_its_summary_and_export(tmp_path):
    out = tmp_path / "x.json"
    result = graphscope("run", "--headless", "--export", out, script(tmp_path, TRAIN + "import os\nos._exit(7)\n"))
    assert result.returncode == 7, result.stderr[-2000:]
    assert "graphscope summary" in result.stdout and _lines(result.stderr) == [f"snapshot written to {out}"]
    record = loads(out)
    assert record.metadata.exit_code == 7 and len(record.passes) == 3


OS_EXIT_FROM_A_THREAD = """
    import os, threading
    import graphscope as gs
    w = gs.ones(3, requires_grad=True)
    three = threading.Event()

    def leave():
        three.wait(60)
        os._exit(4)

    threading.Thread(target=leave).start()
    step = 0
    while True:
        (w * 2).sum().backward()
        step += 1
        if step == 3:
            three.set()
"""


@pytest.mark.slow
def test_os_exit_from_another_thread_of_the_script_writes_the_export(tmp_path):
    out = tmp_path / "x.json"
    result = graphscope("run", "--headless", "--export", out, script(tmp_path, OS_EXIT_FROM_A_THREAD))
    assert result.returncode == 4, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and f"snapshot written to {out}" in result.stderr
    record = loads(out)
    assert record.metadata.exit_code == 4 and len(record.passes) >= 3


FORKED_CHILD = """
    import multiprocessing
    import graphscope as gs

    def child():
        (gs.ones(2, requires_grad=True) * 3).sum().backward()

    if __name__ == "__main__":
        w = gs.ones(3, requires_grad=True)
        (w * 2).sum().backward()
        worker = multiprocessing.get_context("fork").Process(target=child)
        worker.start()
        worker.join()
        (w * 2).sum().backward()
        print("child exited", worker.exitcode)
"""


@pytest.mark.slow
def test_a_forked_child_leaving_by_os_exit_writes_nothing_of_the_parents(tmp_path):
    out = tmp_path / "x.json"
    result = graphscope("run", "--headless", "--export", out, script(tmp_path, FORKED_CHILD))
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.count("graphscope summary") == 1 and "child exited 0" in result.stdout
    assert _lines(result.stderr) == [f"snapshot written to {out}"]
    record = loads(out)
    assert record.metadata.exit_code == 0 and len(record.passes) == 2


@pytest.mark.parametrize("flag, what", EXPORTS)
def test_a_crash_says_the_export_was_not_written(tmp_path, flag, what):
    out = tmp_path / "out"
    crash = TRAIN + "import ctypes\nctypes.string_at(0)\n"
    result = graphscope("run", "--headless", flag, out, script(tmp_path, crash))
    one_line_error(result, -signal.SIGSEGV, f"graphscope: cannot write {what} {out}: ", "process died")
    assert not out.exists()


# --- 12: the script's own signal handlers ---------------------------------------------------------

GRACEFUL = """
    import signal
    import graphscope as gs
    stop = []
    signal.signal(signal.{name}, lambda signum, frame: stop.append(signum))
    w = gs.randn(16, 16, requires_grad=True)
    step = 0
    while not stop:
        (w @ w).tanh().sum().backward()
        step += 1
        if step == 3:
            print("running", flush=True)
    print("stopped gracefully")
"""


def _signalled(command, signum, cwd):
    """Run `command` until it prints "running", send it `signum`: (exit code, stdout, stderr)."""
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=cwd)
    try:
        first = run.stdout.readline()
        run.send_signal(signum)
        stdout, stderr = run.communicate(timeout=HANG_SECONDS)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    return run.returncode, first + stdout, stderr


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
@pytest.mark.slow
def test_a_script_stopping_gracefully_on_a_signal_behaves_as_under_plain_python(tmp_path, name):
    path = script(tmp_path, GRACEFUL.format(name=name))
    plain = _signalled([sys.executable, str(path)], getattr(signal, name), tmp_path)
    assert plain == (0, "running\nstopped gracefully\n", "")
    out = tmp_path / "x.json"
    code, stdout, stderr = _signalled(
        [sys.executable, "-m", "graphscope", "run", "--headless", "--export", str(out), str(path)],
        getattr(signal, name),
        tmp_path,
    )
    assert code == 0, stderr[-2000:]
    assert stdout.startswith("running\nstopped gracefully\n") and _lines(stderr) == [f"snapshot written to {out}"]
    record = loads(out)
    assert record.metadata.exit_code == 0 and len(record.passes) >= 3


# --- 13: Ctrl-C at every moment -------------------------------------------------------------------

# `graphscope run` as a user starts it, with graphscope's loading of its run machinery made long
# enough to be interrupted in the middle (it prints "loading" as that begins).
SLOW_START = """
import importlib.abc, sys, time

class Slow(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "graphscope.session.headless":
            print("loading", flush=True)
            time.sleep(1)
        return None

sys.meta_path.insert(0, Slow())
from graphscope.cli import main
sys.exit(main())
"""

FOREVER = """
    print("started", flush=True)
    import graphscope as gs
    w = gs.randn(16, 16, requires_grad=True)
    while True:
        (w @ w).tanh().sum().backward()
"""


@pytest.mark.parametrize(
    "moment, command, ready",
    [
        ("while graphscope loads", [sys.executable, "-c", SLOW_START], "loading"),
        ("at the script's first line", [sys.executable, "-m", "graphscope"], "started"),
    ],
)
@pytest.mark.slow
def test_ctrl_c_at_any_moment_exits_130_with_one_line_and_an_export_that_loads(tmp_path, moment, command, ready):
    out = tmp_path / "x.json"
    run = subprocess.Popen(
        [*command, "run", "--headless", "--export", str(out), str(script(tmp_path, FOREVER))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        cwd=tmp_path,
    )
    try:
        assert run.stdout.readline().strip() == ready
        run.send_signal(signal.SIGINT)
        _, stderr = run.communicate(timeout=HANG_SECONDS)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 130, stderr[-2000:]
    assert _lines(stderr) == [f"snapshot written to {out}"]
    assert loads(out).metadata.exit_code == 130


# --- 14: export paths and the script's streams ---------------------------------------------------


@pytest.mark.parametrize("flag, what", EXPORTS)
def test_an_empty_export_path_is_refused_before_the_script_runs(tmp_path, flag, what):
    ran = tmp_path / "ran"
    result = graphscope("run", "--headless", flag, "", script(tmp_path, f"open({str(ran)!r}, 'w')\n"))
    one_line_error(result, 2, f"graphscope: {flag} was given an empty path")
    assert not ran.exists()


@pytest.mark.parametrize("flag, what", EXPORTS)
@pytest.mark.parametrize("name", ["out.json/", "."])
def test_a_path_naming_a_folder_is_refused_before_the_script_runs(tmp_path, flag, what, name):
    ran = tmp_path / "ran"
    result = graphscope("run", "--headless", flag, name, script(tmp_path, f"open({str(ran)!r}, 'w')\n"), cwd=tmp_path)
    one_line_error(result, 2, f"graphscope: {flag} {name} ", "folder")
    assert not ran.exists() and not (tmp_path / "out.json").exists()


@pytest.mark.parametrize(
    "name, shown",
    [("a\nb.json", "a\\x0ab.json"), ("a\x1b[31mb.json", "a\\x1b[31mb.json"), ("a\tb.json", "a\\x09b.json")],
)
@pytest.mark.slow
def test_a_control_character_in_the_path_is_printed_escaped(tmp_path, name, shown):
    result = graphscope("run", "--headless", "--export", name, script(tmp_path, TRAIN), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr.splitlines() == [f"snapshot written to {tmp_path}/{shown}"]
    loads(tmp_path / name)


@pytest.mark.parametrize(
    "streams", ["sys.stdout = None", "sys.stdout = sys.stderr = None", "sys.stdout = open(os.devnull, 'w')"]
)
@pytest.mark.slow
def test_a_script_replacing_its_streams_leaves_graphscopes_output_alone(tmp_path, streams):
    out = tmp_path / "x.json"
    result = graphscope("run", "--headless", "--export", out, script(tmp_path, TRAIN + f"import os, sys\n{streams}\n"))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "graphscope summary" in result.stdout and _lines(result.stderr) == [f"snapshot written to {out}"]
    loads(out)
