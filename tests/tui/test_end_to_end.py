"""End to end in a real terminal (tmux): the installed `graphscope run` on the training loop sample,
two steps, an export with `e`, then `q`; the snapshot holds those steps,
and quitting exits 0 saying where it stopped."""

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from graphscope.trace import snapshot
from tests.waiting import wait_until

pytestmark = pytest.mark.slow  # the installed app in tmux, the whole training loop sample

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "training_loop.py"


def installed_command() -> str:
    """The `graphscope` script of the environment running the tests (pip install -e . puts it there)."""
    beside = Path(sys.executable).with_name("graphscope")
    found = str(beside) if beside.exists() else shutil.which("graphscope")
    if not found:
        pytest.fail("the graphscope command is not installed: run `pip install -e .` first")
    return found


class Terminal:
    """A tmux session on its own server socket, so a user's tmux is never touched."""

    def __init__(self, command: str, cwd: Path, width: int = 120, height: int = 40):
        if shutil.which("tmux") is None:
            pytest.fail("tmux is needed for the end-to-end test (.ci/run installs it: apt-get install tmux)")
        self.socket = f"graphscope-test-{uuid.uuid4().hex[:8]}"
        env = dict(os.environ, TERM="xterm-256color")
        env.pop("TMUX", None)
        self.tmux(
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            str(width),
            "-y",
            str(height),
            "-c",
            str(cwd),
            command,
            env=env,
        )

    def tmux(self, *args: str, env=None) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, *args], check=False, capture_output=True, text=True, env=env, timeout=30
        )
        return result.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "main")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "main", *keys)

    def wait_for(self, predicate, what: str, timeout: float = 60.0) -> None:
        wait_until(predicate, what, timeout, detail=lambda: f"; the screen:\n{self.screen()}", every=0.05)

    def wait_for_text(self, text: str, timeout: float = 60.0) -> None:
        self.wait_for(lambda: text in self.screen(), repr(text), timeout)

    def close(self) -> None:
        self.tmux("kill-server")


def test_run_step_twice_export_and_quit_in_a_real_terminal(tmp_path):
    script = tmp_path / SAMPLE.name
    shutil.copy(SAMPLE, script)
    code_file = tmp_path / "exit-code"
    # After the app, the shell prints a line and lingers: seeing it proves the terminal is back.
    command = f"{installed_command()} run {script.name}; echo $? > {code_file}; echo shell-is-back; sleep 30"
    terminal = Terminal(f"sh -c '{command}'", tmp_path)
    try:
        terminal.wait_for_text("paused · pass 0 · step 1")
        terminal.keys("n")
        terminal.wait_for_text("pass 0 · step 2")
        terminal.keys("n")
        terminal.wait_for_text("pass 0 · step 3")
        terminal.keys("e")
        terminal.wait_for_text("export a snapshot")
        terminal.keys("Enter")
        exported = tmp_path / "training_loop-snapshot.json"  # the default: in the current directory
        terminal.wait_for(exported.exists, f"{exported} to be written")
        terminal.wait_for_text("Snapshot written")
        terminal.keys("q")
        terminal.wait_for(code_file.exists, "the command to exit", timeout=30)
        terminal.wait_for_text("shell-is-back", timeout=10)
        screen = terminal.screen()
        assert "paused ·" not in screen  # the app's screen is gone
        assert "graphscope: training_loop.py stopped by the user at pass 0, step 3 of" in screen  # where it was left
    finally:
        terminal.close()
    assert int(code_file.read_text()) == 0  # quitting is not a failure
    record = snapshot.load(exported)
    assert record.metadata.script.endswith("training_loop.py")
    first = record.passes[0]
    # two steps ran before the export (a third may hold the grad the paused node receives)
    assert len(first.steps) in (2, 3)
    assert all(step.grad_inputs for step in first.steps[:2])
    assert tuple(step.node for step in first.steps) == first.order[: len(first.steps)]
    assert [p for p in tmp_path.iterdir() if p.suffix == ".json"] == [exported]  # nothing else was written


def test_the_scripts_input_is_typed_in_the_app_and_q_quits_at_once_in_a_real_terminal(tmp_path):
    script = tmp_path / "asks.py"
    shutil.copy(ROOT / "tests" / "tui" / "scripts" / "asks.py", script)
    code_file = tmp_path / "exit-code"
    command = f"{installed_command()} run --no-pause {script.name}; echo $? > {code_file}; echo shell-is-back; sleep 30"
    terminal = Terminal(f"sh -c '{command}'", tmp_path)
    try:
        terminal.wait_for_text("the script asks: Name?")
        terminal.keys("A", "d", "a", "Enter")
        terminal.wait_for_text("hello Ada")
        terminal.keys("q")
        terminal.wait_for(code_file.exists, "the command to exit", timeout=30)
        terminal.wait_for_text("shell-is-back", timeout=10)
    finally:
        terminal.close()
    assert int(code_file.read_text()) == 0  # the script had finished: its own code
