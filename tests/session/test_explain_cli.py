"""`graphscope explain`: a backward pass step by step, from a script or a snapshot, as text or Markdown; its errors."""

import os
import re

import pytest

from tests.graphscope_command import graphscope, script

EQUATION = os.path.join("samples", "gradients_of_an_equation.py")


@pytest.fixture(scope="module")
def equation_explained():
    """`graphscope explain` on the equation sample, run once for the tests that only read it."""
    return graphscope("explain", EQUATION)


@pytest.fixture(scope="module")
def equation_snapshot(tmp_path_factory):
    """The equation sample's headless export, made once for the tests that only read it."""
    snap = tmp_path_factory.mktemp("equation") / "run.json"
    assert graphscope("run", "--headless", "--export", str(snap), EQUATION).returncode == 0
    return snap


TWO_PASSES = """
    import graphscope as gs
    w = gs.tensor([1.0, -2.0], requires_grad=True)
    for _ in range(2):
        (w * w).sum().backward()
    print("done")
"""


def test_explain_prints_each_step_with_its_line_rule_and_numbers(equation_explained):
    result = equation_explained
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith(f"Backward pass 0 of {EQUATION}\nPass 0 of 3, loss 53: 5 steps, from sum back")
    steps = re.findall(r"^Step (\d) of 5: node (\d+), (\w+)$", out, re.MULTILINE)
    assert steps == [("1", "6", "sum"), ("2", "5", "sub"), ("3", "4", "pow"), ("4", "2", "mul"), ("5", "1", "pow")]
    assert f"  {EQUATION}:18    Q = 3 * a**3 - b**2\n  rule: d(x²)/dx = 2·x\n" in out
    assert "grad_in = [-1, -1] × 2·[6, 4] = [-12, -8]" in out
    assert "grad_in = [3, 3] × 3·[2, 3]² = [36, 81]" in out
    assert "Q was made by" not in out and "Q was made by SubBackward0" in result.stderr  # the script's prints


def test_pass_chooses_the_backward_pass(tmp_path):
    path = script(tmp_path, TWO_PASSES)
    result = graphscope("explain", "--pass", "1", path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Backward pass 1 of {path}\nPass 1 of 2, loss 5: 2 steps")


@pytest.mark.slow
def test_a_pass_that_does_not_exist_is_an_error_naming_the_passes(tmp_path):
    path = script(tmp_path, TWO_PASSES)
    result = graphscope("explain", "--pass", "7", path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == "done\ngraphscope: pass 7 does not exist: the run made 2 backward passes (0-1)\n"
    result = graphscope("explain", "--pass", "-1", path)
    assert (result.returncode, result.stderr) == (2, "graphscope: pass -1 does not exist: passes are numbered from 0\n")


def test_a_script_with_no_backward_pass_is_an_error(tmp_path):
    path = script(tmp_path, "import graphscope as gs\nx = gs.ones(2) * 2\n")
    result = graphscope("explain", path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        "graphscope: the run made no backward pass: nothing to explain (the script must "
        "call .backward() on a result that requires grad)\n"
    )


def test_no_such_file_is_an_error(tmp_path):
    result = graphscope("explain", str(tmp_path / "nope.py"))
    assert (result.returncode, result.stderr) == (2, f"graphscope: {tmp_path / 'nope.py'}: no such file\n")


@pytest.mark.slow
def test_a_snapshot_is_explained_as_its_script_was(equation_snapshot, equation_explained):
    from_snapshot = graphscope("explain", str(equation_snapshot))
    assert from_snapshot.returncode == 0, from_snapshot.stderr
    assert from_snapshot.stdout == equation_explained.stdout


@pytest.mark.slow
def test_a_snapshot_pass_outside_its_detail_window_says_how_to_get_it(tmp_path):
    path = script(
        tmp_path,
        """
        import graphscope as gs
        w = gs.tensor([1.0], requires_grad=True)
        for _ in range(8):
            (w * 3).sum().backward()
    """,
    )
    snap = tmp_path / "run.json"
    assert graphscope("run", "--headless", "--export", str(snap), path).returncode == 0
    result = graphscope("explain", "--pass", "2", str(snap))
    assert result.returncode == 2
    assert result.stderr == (
        "graphscope: pass 2 was not kept in detail in this record (passes kept in detail: "
        "0, 5-7); run `graphscope explain --pass 2` on the script to record it\n"
    )
    on_the_script = graphscope("explain", "--pass", "2", path)
    assert on_the_script.returncode == 0 and on_the_script.stdout.startswith(f"Backward pass 2 of {path}")


@pytest.mark.slow
def test_a_snapshot_takes_no_script_options(equation_snapshot):
    snap = equation_snapshot
    for options in (["--as-torch"], ["--full-values", "100000"]):
        result = graphscope("explain", *options, str(snap))
        assert (result.returncode, result.stderr) == (
            2,
            f"graphscope: {snap} is a snapshot: --as-torch, --full-values and arguments go with a script\n",
        )


def test_markdown_has_a_heading_per_step_and_the_numbers_in_code_blocks():
    result = graphscope("explain", "--markdown", EQUATION)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith(f"# Backward pass 0 of `{EQUATION}`\n\n")
    assert re.findall(r"^## Step (\d) of 5: node \d+, `(\w+)`$", out, re.MULTILINE) == [
        ("1", "sum"),
        ("2", "sub"),
        ("3", "pow"),
        ("4", "mul"),
        ("5", "pow"),
    ]
    assert "```python\nQ = 3 * a**3 - b**2\n```" in out
    assert "```text\nrule: d(x²)/dx = 2·x\nb (node 3):\n" in out
    assert "## Where the grads ended up" in out
    assert out.count("```") % 2 == 0


@pytest.mark.slow
def test_text_from_the_script_stays_literal(tmp_path):
    path = script(
        tmp_path,
        """
        import graphscope as gs
        w = gs.tensor([2.0], requires_grad=True)
        (w * w).sum().backward()  # ``` [bold]*not bold*[/bold] \x1b[31m
    """,
        name="odd_name_[x].py",
    )
    text = graphscope("explain", path)
    assert text.returncode == 0, text.stderr
    assert "(w * w).sum().backward()  # ``` [bold]*not bold*[/bold] \\x1b[31m" in text.stdout
    assert "\x1b" not in text.stdout
    markdown = graphscope("explain", "--markdown", path).stdout
    assert "````python\n(w * w).sum().backward()  # ``` [bold]*not bold*[/bold] \\x1b[31m\n````" in markdown
    assert f"# Backward pass 0 of `{path}`" in markdown


def test_a_script_that_raises_after_its_backward_is_explained_with_its_traceback(tmp_path):
    path = script(
        tmp_path,
        """
        import graphscope as gs
        w = gs.tensor([2.0], requires_grad=True)
        (w * w).sum().backward()
        raise ValueError("after the pass")
    """,
    )
    result = graphscope("explain", path)
    assert result.returncode == 1
    assert "ValueError: after the pass" in result.stderr
    assert result.stdout.startswith(f"Backward pass 0 of {path}")


def test_as_torch_runs_a_pytorch_script(tmp_path):
    path = script(
        tmp_path,
        """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x ** 2).sum().backward()
    """,
    )
    result = graphscope("explain", "--as-torch", path, "an-argument")
    assert result.returncode == 0, result.stderr
    assert "grad_in = [1, 1] × 2·[1, 2] = [2, 4]" in result.stdout


def test_the_script_reads_stdin_and_its_output_goes_to_stderr(tmp_path):
    path = script(
        tmp_path,
        """
        import graphscope as gs
        w = gs.tensor([float(input("w? "))], requires_grad=True)
        (w * w).sum().backward()
        print("w.grad =", w.grad.tolist())
    """,
    )
    result = graphscope("explain", path, input="3\n")
    assert result.returncode == 0, result.stderr
    assert "w? w.grad = [6.0]" in result.stderr
    assert "w (node 0): .grad was None, now [6]" in result.stdout and "w.grad =" not in result.stdout
