"""The headless summary: passes, nodes per pass, a loss sparkline, grad norms, findings with their lines."""

import io
import math

from rich.console import Console

import graphscope as gs
from graphscope import nn, optim
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.record.model import BackwardPass, Finding, Metadata, Node, Record, ScriptError, SourceSite
from graphscope.trace.recording.recorder import Recorder
from graphscope.trace.report.summary_report import NO_GRAPH, SHOWN_MESSAGE, loss_sparkline, print_summary


def text_of(record, width=100):
    out = io.StringIO()
    print_summary(record, Console(file=out, width=width, color_system=None))
    return out.getvalue()


def trained(steps=12):
    gs.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = optim.SGD(model.parameters(), lr=0.1)
    x, y = gs.randn(16, 2), gs.randn(16, 1)
    recorder = Recorder(script="train.py", argv=["train.py"])
    with hooks.observe(recorder):
        for _ in range(steps):
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    return recorder.finish(0)


def test_summary_shows_passes_nodes_loss_and_grad_norms():
    rec = trained()
    text = text_of(rec)
    assert "12 backward passes recorded" in text and "full detail kept for passes 0, 9, 10, 11" in text
    assert f"{rec.passes[0].node_count} per pass" in text
    assert loss_sparkline([p.loss for p in rec.passes]) in text
    assert "grad norms, pass 11" in text and "0.weight" in text and "2.bias" in text
    assert "findings: none" in text


def test_a_summary_from_a_snapshot_reads_the_same(tmp_path):
    rec = trained()
    snapshot.dump(rec, tmp_path / "s.json")
    assert text_of(snapshot.load(tmp_path / "s.json")) == text_of(rec)


def test_many_parameters_show_the_largest_and_the_smallest():
    norms = {f"p{i}": float(i + 1) for i in range(20)}
    rec = Record(passes=[BackwardPass(0, 1.0, norms, 3)])
    text = text_of(rec)
    assert "p19" in text and "p0 " in text and "largest" in text and "smallest" in text and "p10" not in text


def test_findings_are_listed_with_their_source_line():
    site = SourceSite("model.py", 43, "nll", "log_sigma = sigma.log()")
    rec = Record(
        nodes={0: Node(0, "log")},
        passes=[BackwardPass(0, math.nan, {}, 1)],
        findings=[Finding("nan-origin", "NaN/Inf born in log", 0, 0, None, site)],
    )
    text = text_of(rec)
    assert "NaN origin" in text and "NaN/Inf born in log" in text
    assert "model.py:43" in text and "log_sigma = sigma.log()" in text
    assert "×" in text  # the NaN loss in the sparkline


def test_a_script_that_built_no_graph_gets_a_plain_message():
    text = text_of(Record(metadata=Metadata(script="plain.py")))
    assert " ".join(NO_GRAPH.split()[:6]) in " ".join(text.split()) and "grad norms" not in text


def test_the_error_is_shown_with_its_line():
    site = SourceSite("train.py", 7, "<module>", "y = x @ w")
    error = ScriptError("ValueError", "inner dimensions differ", "", None, site)
    rec = Record(nodes={0: Node(0, "matmul")}, error=error)
    text = text_of(rec)
    assert "ValueError" in text and "inner dimensions differ" in text and "train.py:7" in text


def test_a_long_error_message_is_shown_cut_with_its_length():
    error = ScriptError("ValueError", "e" * (4 * 2**20), "", None, None)
    text = text_of(Record(nodes={0: Node(0, "matmul")}, error=error))
    assert "…[cut from 4,194,304 characters]" in text and text.count("e") < 2 * SHOWN_MESSAGE


def test_strings_from_the_script_are_shown_literally():
    site = SourceSite("[red]x.py[/]", 1, "f", "print('\x1b[2J')")
    rec = Record(
        metadata=Metadata(script="[bold]evil[/bold].py"),
        nodes={0: Node(0, "[blink]op")},
        passes=[BackwardPass(0, 1.0, {"[u]w[/u]": 1.0}, 1)],
        findings=[Finding("dead-relu", "[b]m[/b]", 0, 0, None, site)],
    )
    text = text_of(rec)
    assert "[bold]evil[/bold].py" in text and "[u]w[/u]" in text and "[red]x.py[/]" in text
    assert "\x1b" not in text and "\\x1b[2J" in text


def test_sparkline_marks_nan_and_averages_long_runs():
    assert loss_sparkline([3.0, 2.0, 1.0]) == "█▅▁"
    assert loss_sparkline([1.0, math.nan]).endswith("×")
    assert len(loss_sparkline([float(i) for i in range(1000)], width=50)) == 50


def test_the_nodes_made_after_the_last_backward_are_counted_recorded_and_loaded():
    gs.manual_seed(0)
    w = gs.randn(3, requires_grad=True)
    recorder = Recorder(script="train.py", argv=["train.py"])
    with hooks.observe(recorder):
        (w * 2.0).sum().backward()
        (w + 1.0).exp().sum()  # a forward with no backward after pass 0
    rec = recorder.finish(0)
    lines = [
        next(line for line in text_of(r).splitlines() if line.startswith("nodes"))
        for r in (rec, snapshot.loads(snapshot.dumps(rec)))
    ]
    assert lines[0] == lines[1] and lines[0].endswith(" after the last backward")


def test_passes_of_different_sizes_show_the_range_and_the_median():
    rec = Record(passes=[BackwardPass(i, 1.0, {}, count) for i, count in enumerate((3, 4, 1200, 9))])
    assert "3 to 1,200 per pass (median 6)" in text_of(rec)  # the median of 4 and 9, 6.5, to even
