"""The `graphscope` command line: version, help, `python -m graphscope`, a Textual-free import."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import graphscope
from graphscope.cli import SUBCOMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parent.parent


def run_python(*args: str) -> subprocess.CompletedProcess:
    """Run a fresh interpreter with the repository importable even if not installed."""
    import_path = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, import_path)))
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def test_version_prints_the_package_version(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out.strip() == f"graphscope {graphscope.__version__}"


def test_version_is_semantic():
    assert graphscope.__version__.count(".") == 2


def test_no_subcommand_prints_help_and_returns_2(capsys):
    assert main([]) == 2
    assert "usage: graphscope" in capsys.readouterr().err


def test_unknown_subcommand_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["no-such-command"])
    assert exit.value.code == 2
    assert "invalid choice: 'no-such-command'" in capsys.readouterr().err


def test_python_dash_m_graphscope_prints_the_version():
    result = run_python("-m", "graphscope", "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"graphscope {graphscope.__version__}"


def test_import_graphscope_does_not_load_textual():
    result = run_python("-c", "import sys, graphscope; print('textual' in sys.modules)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_the_cli_module_does_not_load_textual():
    result = run_python("-c", "import sys, graphscope.cli; print('textual' in sys.modules)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--headless", "--keep", "all", "--break", "op:mul", "model.py", "a", "--b"],
        ["view", "snap.json"],
        ["summary", "snap.json"],
        ["diff", "a.json", "b.json"],
        ["explain", "--full-values", "10", "model.py"],
    ],
)
def test_a_parser_of_the_named_command_alone_reads_it_as_the_whole_parser(argv):
    def read(parser):  # (a handler may be a lambda made with its parser: compared by name)
        args = vars(parser.parse_args(argv))
        return {**args, "handler": args["handler"].__qualname__}

    assert read(build_parser(argv[0])) == read(build_parser())


def test_each_command_is_registered_under_its_own_name(capsys):
    for name in SUBCOMMANDS:
        with pytest.raises(SystemExit):
            build_parser(name).parse_args([name, "--help"])
        assert capsys.readouterr().out.startswith(f"usage: graphscope {name} ")
