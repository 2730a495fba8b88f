"""A data file is never run as code: script or snapshot is told by the file's content, never its name,
and a file named or shaped as a snapshot is never executed by any command."""

import os

import pytest

from tests.graphscope_command import graphscope, script
from tests.hostile.hostile_helpers import one_line_error

# Valid Python that would create MARK when run, and begins as a snapshot does: `{`, naming the format.
POLYGLOT = '{"format": "graphscope-snapshot", "version": 4} and open(MARK, "w")\n'
SNAPSHOT_NAMES = ["OK.JSON", "ok.snapshot", "snapshot", "run.json", "model.py"]


def _polyglot(tmp_path, name, prefix=""):
    mark = tmp_path / "executed"
    path = tmp_path / name
    path.write_text(prefix + POLYGLOT.replace("MARK", repr(str(mark))))
    return path, mark


@pytest.mark.parametrize("name", SNAPSHOT_NAMES)
@pytest.mark.parametrize("command", ["explain", "run", "summary"])
def test_a_snapshot_shaped_file_is_never_run_whatever_its_name(tmp_path, command, name):
    path, mark = _polyglot(tmp_path, name)
    args = ("--headless", path) if command == "run" else (path,)
    result = graphscope(command, *args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert not mark.exists()


@pytest.mark.parametrize(
    "prefix",
    ["\ufeff", "\f", "\v \n\t", "\r\n" * 40_000],
    ids=["byte-order-mark", "form-feed", "blanks", "blanks-over-a-chunk"],
)
@pytest.mark.slow
def test_blanks_or_a_byte_order_mark_do_not_hide_the_brace(tmp_path, prefix):
    path, mark = _polyglot(tmp_path, "data.txt", prefix)
    for command in (("explain", path), ("run", "--headless", path)):
        result = graphscope(*command, cwd=tmp_path)
        assert result.returncode == 2 and not mark.exists(), result.stderr


def test_run_says_a_snapshot_is_not_run_and_how_to_open_it(tmp_path):
    path, _mark = _polyglot(tmp_path, "model.py")
    one_line_error(graphscope("run", "--headless", path), 2, str(path), "is a snapshot", "not run", "graphscope view")


@pytest.mark.parametrize("command", [("explain",), ("run", "--headless")])
def test_a_script_named_as_json_is_never_run(tmp_path, command):
    mark = tmp_path / "executed"
    path = script(tmp_path, f"open({str(mark)!r}, 'w')\n", name="evil.Json")
    one_line_error(graphscope(*command, path), 2, str(path), "named as a snapshot", "not run", ".py")
    assert not mark.exists()


@pytest.mark.parametrize("name", ["OK.JSON", "ok.snapshot", "run.json"])
@pytest.mark.slow
def test_a_real_snapshot_is_explained_whatever_its_name(tmp_path, name):
    model = script(
        tmp_path,
        """
        import graphscope as gs
        w = gs.tensor([1.0, -2.0], requires_grad=True)
        (w * w).sum().backward()
    """,
    )
    written = tmp_path / "written.json"
    assert graphscope("run", "--headless", "--export", written, model).returncode == 0
    path = tmp_path / name
    os.replace(written, path)
    result = graphscope("explain", path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Backward pass 0 of {model}")
    said = [line for line in result.stderr.splitlines() if line]
    if name.lower().endswith(".json"):
        assert said == []
    else:
        assert said == [f"graphscope: {path}: read as a snapshot (its text begins with {{), not run as a script"]


def test_a_script_with_another_name_is_run_and_said_so(tmp_path):
    path = script(
        tmp_path,
        """
        import graphscope as gs
        w = gs.tensor([3.0], requires_grad=True)
        (w * w).sum().backward()
    """,
        name="train",
    )
    result = graphscope("explain", path)
    assert result.returncode == 0, result.stderr
    assert f"graphscope: {path}: run as a Python script" in result.stderr
    assert "Step 1 of" in result.stdout


@pytest.mark.parametrize("command", [("explain",), ("run", "--headless")])
@pytest.mark.slow
def test_a_folder_or_fifo_is_named_for_what_it_is(tmp_path, command):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    one_line_error(graphscope(*command, tmp_path), 2, str(tmp_path), "is a folder")
    one_line_error(graphscope(*command, fifo), 2, str(fifo), "is a FIFO")
    one_line_error(graphscope(*command, tmp_path / "missing.py"), 2, "missing.py", "no such file")
