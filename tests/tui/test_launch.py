"""The entry points `graphscope view` and `graphscope run` call: errors before any screen, exit codes."""

import json
import os
import subprocess
import sys
from pathlib import Path

from graphscope.session import SessionState
from graphscope.tui import launch
from graphscope.tui.ending import ending

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run(
        [sys.executable, "-m", "graphscope", *args],
        cwd=cwd,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_view_of_a_missing_file_says_so_and_returns_2(tmp_path, capsys):
    assert launch.view(str(tmp_path / "nope.json")) == 2
    captured = capsys.readouterr()
    assert "nope.json" in captured.err and "cannot read" in captured.err
    assert captured.out == ""


def test_view_of_a_broken_snapshot_names_the_place_and_returns_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "graphscope-snapshot", "version": 1, "nodes": "oops"}))
    assert launch.view(str(bad)) == 2
    assert "bad.json" in capsys.readouterr().err


def test_the_cli_reports_an_unreadable_snapshot_before_drawing_anything(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = run_cli("view", str(bad))
    assert result.returncode == 2
    assert "bad.json" in result.stderr
    assert result.stdout == ""  # no screen was drawn: no escape sequences at all
    assert "\x1b" not in result.stderr


def test_run_of_a_missing_script_returns_2(tmp_path, capsys):
    assert launch.run(str(tmp_path / "missing.py")) == 2
    assert "missing.py" in capsys.readouterr().err


def test_a_run_that_ended_by_itself_exits_with_the_scripts_status_and_says_how():
    from graphscope.trace.record.model import Record, ScriptError, SourceSite

    record = Record()
    assert ending(SessionState(kind="finished", exit_code=0), record, "/x/model.py") == (
        "graphscope: model.py finished (exit code 0)",
        0,
    )
    assert ending(SessionState(kind="finished", exit_code=3), record, "model.py") == (
        "graphscope: model.py finished (exit code 3)",
        3,
    )
    record.error = ScriptError("ValueError", "bad shape\nmore", site=SourceSite("/abs/model.py", 12, "<module>"))
    assert ending(SessionState(kind="failed", exit_code=1), record, "model.py") == (
        "graphscope: model.py raised ValueError: bad shape … at /abs/model.py:12 (exit code 1)",
        1,
    )


def test_run_without_a_terminal_exits_2_at_once_without_escape_codes():
    result = run_cli("run", "samples/fit_a_line.py")  # stdin and stdout are pipes here
    assert result.returncode == 2
    assert result.stderr == "graphscope run needs a terminal; use --headless\n"
    assert result.stdout == ""


def test_quitting_names_where_the_script_was_stopped_and_exits_0():
    from graphscope.trace.record.model import BackwardPass, Record

    record = Record(passes=[BackwardPass(0), BackwardPass(1), BackwardPass(2, order=(5, 6, 7))])
    paused = SessionState(kind="paused", pass_index=2, step=1)
    assert ending(paused, record, "/x/model.py") == (
        "graphscope: model.py stopped by the user at pass 2, step 2 of 3 (exit code 0)",
        0,
    )
    assert (
        ending(SessionState(kind="paused", pass_index=2, step=3), record, "model.py")[0]
        == "graphscope: model.py stopped by the user at the end of pass 2 (exit code 0)"
    )
    assert (
        ending(SessionState(kind="running"), record, "model.py")[0]
        == "graphscope: model.py stopped by the user before its first backward pass (exit code 0)"
    )
    record.passes[0].finished = record.passes[1].finished = True
    assert (
        ending(SessionState(kind="running"), record, "model.py")[0]
        == "graphscope: model.py stopped by the user while it ran, after 2 backward passes (exit code 0)"
    )


def test_importing_the_entry_points_does_not_load_textual():
    code = "import sys, graphscope.tui.launch; print('textual' in sys.modules)"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, check=False, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "False", result.stderr
