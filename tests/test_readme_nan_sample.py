"""The README's "Debugging a NaN" and the sample's docstring say what `samples/exploding_nan.py` does: each
claim, and each number in it, is checked against a recording of the sample."""

import re
import runpy
import sys
from pathlib import Path

import pytest

from graphscope.engine import hooks
from graphscope.trace.record.model import EXPLODING_GRAD, NAN_ORIGIN
from graphscope.trace.recording.recorder import Recorder

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "exploding_nan.py"
SECTION = re.compile(r"\n### Debugging a NaN\n(.*?)\n## ", re.DOTALL)
# What both texts say of the NaN pass's backward (it is checked below).
FINITE_GRADS = "the gradients stay finite"


@pytest.fixture(scope="module")
def record():
    argv = [str(SAMPLE)]
    saved, sys.argv = sys.argv, argv  # its own argv, not pytest's
    try:
        recorder = Recorder(script=str(SAMPLE), argv=argv)
        with hooks.observe(recorder):
            runpy.run_path(str(SAMPLE), run_name="__main__")
    finally:
        sys.argv = saved
    return recorder.finish(0)


def readme() -> str:
    return " ".join(SECTION.search((ROOT / "README.md").read_text(encoding="utf-8"))[1].split())


def claim(pattern: str) -> tuple[str, ...]:
    found = re.search(pattern, readme())
    assert found, f"README's 'Debugging a NaN' no longer says {pattern!r}: update this test with it"
    return found.groups()


def nan_pass(record):
    return next(p for p in record.passes if p.loss != p.loss)


def log_node(record):
    origin = next(f for f in record.findings if f.kind == NAN_ORIGIN)
    return record.nodes[origin.node]


def grads_of(p):
    for step in p.steps:
        yield step.grad_output
        yield from step.grad_inputs
        for leaf in step.leaf_grads:
            yield from (leaf.grad, leaf.now)


def test_the_nan_appears_in_the_pass_the_readme_names(record):
    (index,) = claim(r"at pass (\d+) some sigma is negative")
    assert nan_pass(record).index == int(index)
    assert all(p.loss == p.loss for p in record.passes[: int(index)])


def test_log_of_sigma_makes_as_many_nans_as_the_readme_says(record):
    nans, size = claim(r"NaN in (\d+) of its (\d+) values")
    out = log_node(record).output
    assert (out.nan_count, out.numel) == (int(nans), int(size))


def test_the_grads_of_the_nan_pass_are_finite_as_both_texts_say(record):
    assert FINITE_GRADS in readme().lower()
    assert FINITE_GRADS in " ".join(SAMPLE.read_text().split()).lower()
    assert "every gradient" not in readme() + SAMPLE.read_text()
    grads = [g for g in grads_of(nan_pass(record)) if g is not None]
    assert grads and not any(g.nan_count or g.inf_count for g in grads)


def test_the_grad_norm_the_readme_quotes_is_the_runs(record):
    name, norm = claim(r"`([\w.]+)`'s grad norm is (\d+)")
    p = nan_pass(record)
    assert round(p.grad_norms[name]) == int(norm)
    assert any(f.kind == EXPLODING_GRAD and name in f.message for f in record.findings)


def test_the_forward_stop_is_the_log_of_a_negative_sigma_with_as_many_bad_values_as_the_readme_says(record):
    passed, line = claim(r"`forward of pass (\d+)` and names the node made \(`log made at exploding_nan.py:(\d+)`\)")
    node = log_node(record)
    assert node.pass_index == int(passed) and node.site.line == int(line)
    (bad,) = claim(r"`\(sigma <= 0\).sum\(\).item\(\)` says (\d+) values went non-positive")
    assert int(bad) == node.output.nan_count  # log of each non-positive sigma is NaN (or -inf at 0)


def test_the_first_nan_step_is_the_loss_and_bang_finds_the_log_of_a_negative_sigma(record):
    claim(r"first backward step whose value or grad holds a NaN: the loss")
    p = nan_pass(record)
    assert p.order[0] == p.root and record.nodes[p.root].output.nan_count == 1
    (line,) = claim(r"a `log` node, with its source line `([^`]+)`")
    node = log_node(record)
    assert node.op == "log" and node.site.text.startswith(line)
    assert record.nodes[node.inputs[0]].output.min < 0
