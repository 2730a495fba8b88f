"""The README's "Learn autograd step by step" shows `graphscope explain`'s real output, kept up to date by this test."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECTION = re.compile(r"\n## Learn autograd step by step\n(.*?)\n## Command line\n", re.DOTALL)


def graphscope(*args) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-m", "graphscope", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def section() -> str:
    return SECTION.search((ROOT / "README.md").read_text(encoding="utf-8"))[1]


def test_the_readme_shows_the_exact_explanation_of_the_equation():
    shown = re.search(
        r"```sh\ngraphscope explain samples/gradients_of_an_equation.py\n```\n\n```text\n(.*?)```", section(), re.DOTALL
    )[1]
    assert shown == graphscope("explain", "samples/gradients_of_an_equation.py"), (
        "README.md's explain output is out of date: paste the command's output into the block"
    )


def test_the_readmes_markdown_excerpt_is_part_of_the_real_markdown():
    excerpt = re.search(
        r"from `graphscope explain --markdown samples/fit_a_line.py`:\n\n````markdown\n(.*?)````", section(), re.DOTALL
    )[1]
    assert excerpt.startswith("## Step ")
    assert excerpt in graphscope("explain", "--markdown", "samples/fit_a_line.py")


def test_the_readme_shows_both_rule_view_screenshots():
    images = re.findall(r"!\[[^\]]+\]\((docs/[^)]+\.svg)\)", section())
    assert images == ["docs/rule-view-equation.svg", "docs/rule-view-fit-a-line.svg"]
