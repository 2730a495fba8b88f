"""Scripts that move, exit, crash or take signals under `graphscope run --headless` behave as under
plain python, and the run still ends in exports that load or one line saying why there are none;
export paths are taken as the user typed them, when the command started."""

import os
import textwrap

import pytest
from hostile_helpers import graphscope, loads, one_line_error, script

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


@pytest.mark.parametrize("name, shown", [("a\nb.json", "a\\x0ab.json"), ("a\x1b[31mb.json", "a\\x1b[31mb.json"),
                                         ("a\tb.json", "a\\x09b.json")])
def test_a_control_character_in_the_path_is_printed_escaped(tmp_path, name, shown):
    result = graphscope("run", "--headless", "--export", name, script(tmp_path, TRAIN), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr.splitlines() == [f"snapshot written to {tmp_path}/{shown}"]
    loads(tmp_path / name)


@pytest.mark.parametrize("streams", ["sys.stdout = None", "sys.stdout = sys.stderr = None",
                                     "sys.stdout = open(os.devnull, 'w')"])
def test_a_script_replacing_its_streams_leaves_graphscopes_output_alone(tmp_path, streams):
    out = tmp_path / "x.json"
    result = graphscope("run", "--headless", "--export", out, script(tmp_path, TRAIN + f"import os, sys\n{streams}\n"))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "graphscope summary" in result.stdout and _lines(result.stderr) == [f"snapshot written to {out}"]
    loads(out)
