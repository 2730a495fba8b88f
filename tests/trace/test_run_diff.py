"""`graphscope diff`: two runs matched node by node, where they part reported first, bad input refused."""

import io
import runpy
import textwrap

import numpy as np
import pytest
from rich.console import Console

from graphscope.cli import main
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.analysis.run_diff import compare, diff
from graphscope.trace.record.comparison import SUMMARY, VALUES
from graphscope.trace.record.model import PARAMETER
from graphscope.trace.recording.recorder import Policy, Recorder
from graphscope.trace.report.run_diff_report import render
from graphscope.trace.stats.summarize import summarize as summary
from tests.graphscope_command import graphscope

# Line 5 is the one a variant changes: the first node that differs is made there.
EQUATION = """\
import graphscope as gs
x = gs.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = gs.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = x * w
z = y + {constant}
loss = (z * z).sum()
loss.backward()
"""

TRAINING = """\
import graphscope as gs
from graphscope import nn, optim
gs.manual_seed(0)
model = nn.Linear(3, 2)
opt = optim.SGD(model.parameters(), lr={lr})
x = gs.randn(8, 3)
y = gs.randn(8, 2)
for _ in range(3):
    loss = ((model(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def record_script(tmp_path, name, source, policy=None):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    recorder = Recorder(policy, script=str(path))
    with hooks.observe(recorder):
        runpy.run_path(str(path), run_name="__main__")
    return recorder.finish(0)


def report_text(result) -> str:
    console = Console(width=200, file=io.StringIO())
    console.print(render(result, "a.json", "b.json"))
    return console.file.getvalue()


def test_two_runs_of_one_script_agree_though_they_lie_in_other_files(tmp_path):
    a = record_script(tmp_path, "a.py", EQUATION.format(constant="1.0"))
    b = record_script(tmp_path, "b.py", EQUATION.format(constant="1.0"))
    result = diff(a, b)
    assert result.agree
    assert result.matched == len(a.nodes) == len(b.nodes)
    assert result.first_node is None and result.step is None and not result.parameters
    assert "agree" in report_text(result)


def test_an_edited_constant_parts_the_runs_at_its_line_then_at_the_backward_step_it_feeds(tmp_path):
    a = record_script(tmp_path, "a.py", EQUATION.format(constant="1.0"))
    b = record_script(tmp_path, "b.py", EQUATION.format(constant="1.5"))
    result = diff(a, b)
    assert not result.agree
    first = result.first_node
    assert first is not None
    assert first.a.op == "add" and first.a.site is not None and first.a.site.line == 5
    # y + 1.0 = [1.5, -1.0, 7.0] against y + 1.5 = [2.0, -0.5, 7.5]: every element 0.5 apart, by values
    assert first.difference.basis == VALUES
    assert first.difference.max_abs == pytest.approx(0.5)
    assert first.difference.element == 0
    # The backward: sum first (its grad is 1 in both), then z * z, whose grad to its first z is the other z.
    step = result.step
    assert step is not None and step.pass_index == 0
    assert a.nodes[step.a_node].op == "mul" and a.nodes[step.a_node].site.line == 6
    assert step.grad == "grad to input 0"
    np.testing.assert_allclose(step.a.values, [1.5, -1.0, 7.0])
    np.testing.assert_allclose(step.b.values, [2.0, -0.5, 7.5])
    # The leaves' values agree (x and w are the same tensors), so they are not among the differing nodes.
    assert all(d.a.op not in ("tensor", PARAMETER) for d in result.nodes.values())
    text = report_text(result)
    assert "first node whose value differs" in text and "z = y + 1.0" in text
    assert "first backward step whose grad differs" in text and "grad to input 0" in text


def test_a_changed_learning_rate_agrees_on_the_first_pass_and_parts_after_the_first_step(tmp_path):
    every = Policy.every_pass()
    a = record_script(tmp_path, "a.py", TRAINING.format(lr="0.1"), every)
    b = record_script(tmp_path, "b.py", TRAINING.format(lr="0.2"), every)
    result = diff(a, b)
    assert not result.agree
    first = result.first_node
    assert first is not None
    assert first.a.pass_index == 1 and first.a.op == PARAMETER  # the weights the first step changed
    assert {row.pass_index for row in result.parameters} == {1, 2}
    assert {row.name for row in result.parameters} == {"weight", "bias"}
    assert all(row.value is not None for row in result.parameters)
    assert all(d.a.pass_index >= 1 for d in result.nodes.values())
    assert result.loss is not None and result.loss[0] == 1  # the first loss after the first step
    assert result.detailed == (0, 1, 2)


def test_with_the_default_policy_the_passes_compared_in_detail_are_named(tmp_path):
    a = record_script(tmp_path, "a.py", TRAINING.format(lr="0.1").replace("range(3)", "range(6)"))
    b = record_script(tmp_path, "b.py", TRAINING.format(lr="0.2").replace("range(3)", "range(6)"))
    result = diff(a, b)
    assert result.detailed == (0, 3, 4, 5)  # the first pass and the last three
    assert result.loss is not None and result.loss[0] == 1  # losses are kept for every pass
    assert "compared in the passes both kept in detail (0, 3, 4, 5)" in report_text(result)


def test_nodes_made_in_one_run_only_are_listed_and_make_the_runs_differ(tmp_path):
    a = record_script(tmp_path, "a.py", EQUATION.format(constant="1.0"))
    b = record_script(tmp_path, "b.py", EQUATION.format(constant="w.exp().log()"))
    result = diff(a, b)
    assert not result.agree
    assert {n.op for n in result.only_b} >= {"exp", "log"}
    assert "only in b" in report_text(result)


def test_summaries_without_every_value_are_compared_by_preview_and_statistics():
    big = np.linspace(0.0, 1.0, 10_000, dtype=np.float32)
    a = summary(big, full_values_limit=16)
    assert compare(a, summary(big.copy(), full_values_limit=16)) is None
    moved = big.copy()
    moved[-1] += 0.5  # past the preview: only the statistics see it
    difference = compare(a, summary(moved, full_values_limit=16))
    assert difference is not None and difference.basis == SUMMARY
    assert difference.element is None and "max" in difference.what
    assert difference.max_abs == pytest.approx(0.5)


def test_shape_dtype_and_nan_are_compared_as_they_are():
    f32 = summary(np.array([1.0, np.nan], dtype=np.float32))
    assert compare(f32, summary(np.array([1.0, np.nan], dtype=np.float32))) is None  # NaN matches NaN
    assert compare(f32, summary(np.array([1.0, np.nan]))).what == "dtype float32 against float64"
    assert compare(f32, summary(np.zeros((1, 2), dtype=np.float32))).what == "shape 2 against 1×2"
    assert compare(f32, None).what == "kept in one run only"
    assert compare(None, None) is None
    within = summary(np.array([1.0 + 1e-9, np.nan], dtype=np.float32))
    assert compare(f32, within) is None


def test_a_source_line_with_markup_is_shown_as_it_is(tmp_path):
    a = record_script(tmp_path, "a.py", EQUATION.format(constant="1.0  # [bold]not markup[/bold]"))
    b = record_script(tmp_path, "b.py", EQUATION.format(constant="2.0  # [bold]not markup[/bold]"))
    text = report_text(diff(a, b))
    assert "# [bold]not markup[/bold]" in text, text


def test_the_command_exits_0_when_they_agree_1_when_they_differ(tmp_path, capsys):
    one = record_script(tmp_path, "a.py", EQUATION.format(constant="1.0"))
    other = record_script(tmp_path, "b.py", EQUATION.format(constant="1.5"))
    snapshot.dump(one, tmp_path / "a.json")
    snapshot.dump(one, tmp_path / "same.json")
    snapshot.dump(other, tmp_path / "b.json")
    assert main(["diff", str(tmp_path / "a.json"), str(tmp_path / "same.json")]) == 0
    assert "agree" in capsys.readouterr().out
    assert main(["diff", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 1
    assert "first node whose value differs" in capsys.readouterr().out
    # a tolerance wide enough to take in the edit: they agree
    assert main(["diff", "--atol", "100", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0


@pytest.mark.slow
def test_bad_input_exits_2_with_one_line_saying_what(tmp_path):
    good = tmp_path / "a.json"
    snapshot.dump(record_script(tmp_path, "a.py", EQUATION.format(constant="1.0")), good)
    not_json = tmp_path / "notes.txt"
    not_json.write_text("these are notes\n")
    missing = graphscope("diff", good, tmp_path / "missing.json")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.startswith("graphscope: ") and "missing.json" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    garbage = graphscope("diff", not_json, good)
    assert garbage.returncode == 2 and "notes.txt" in garbage.stderr and "Traceback" not in garbage.stderr
    negative = graphscope("diff", good, good, "--rtol", "-1")
    assert negative.returncode == 2
    assert negative.stderr.strip() == "graphscope: --rtol and --atol must be numbers >= 0"
