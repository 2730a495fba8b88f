"""CI (.ci/run) installs and runs the tests with the README's own command, so the two never drift."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_test_command() -> tuple[str, str]:
    """(install, test) of the second line of the README's first shell block."""
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)[1]
    install, test = block.splitlines()[1].split(" && ")
    return install, test


def test_the_readme_runs_the_suite_on_every_core():
    assert readme_test_command()[1] == "python -m pytest -n auto"


def test_ci_runs_the_readmes_install_and_test_command():
    install, test = readme_test_command()
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert install in lines
    assert any(line.startswith(f'{test} "$@"') for line in lines), f'no `{test} "$@"` line in .ci/run'
