"""`graphscope summary`'s training series: a sparkline a row for grad norms and update ratios (log scale), learning
rates, dead and saturated fractions and logged scalars, each with its last figure."""

import io
import math

import numpy as np
from rich.console import Console

from graphscope.trace.record.model import BackwardPass, Record
from graphscope.trace.record.training import ActivationSeries, ParamSeries, ScalarSeries, TrainingSeries
from graphscope.trace.report.series_summary import SHOWN_ROWS, WIDTH, sparkline
from graphscope.trace.report.summary_report import print_summary
from tests.trace.test_summary_report import trained


def text_of(record, width=110):
    out = io.StringIO()
    print_summary(record, Console(file=out, width=width, color_system=None))
    return out.getvalue()


def rows_of(text, first):
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("training,"))
    return [line.split() for line in lines[start + 1 :] if line.strip()][:first]


def test_a_recorded_run_shows_each_parameters_grad_norm_update_ratio_and_the_shared_lr():
    rec = trained(12)
    text = text_of(rec)
    assert "training, 12 passes (log: log scale)" in text
    rows = rows_of(text, 10)
    names = list(rec.training.params)  # in the order backward reached them
    assert [r[-3] for r in rows[:4]] == names and rows[0][:3] == ["grad", "norm", "(log)"]
    assert rows[4][:2] == ["update/data", "(log)"] and [r[-3] for r in rows[4:8]] == names
    last_ratio = rec.training.params[names[0]].update_ratio[-1]
    assert rows[4][-1] == f"{last_ratio:.4g}"
    assert rows[8] == ["lr", names[0], "(+3)", "▅" * 12, "0.1"]
    assert rows[9][0] == "saturated" and rows[9][1] == "model.1"  # the Tanh's module


def test_sparklines_draw_log_scale_gaps_for_no_figure_and_a_cross_for_inf():
    assert sparkline(np.array([1e-3, 1e-2, 1e-1]), log=True) == "▁▅█"
    # a zero sits lowest, a decade below the smallest figure (1e-3: a third of the way to 1)
    assert sparkline(np.array([0.0, 1e-2, 1.0]), log=True) == "▁▃█"
    assert sparkline(np.array([1.0, math.nan, math.inf, 2.0])) == "▁ ×█"
    assert sparkline(np.array([0.0, 0.0, 0.5, 1.0]), fraction=True) == "▁▁▅█"


def series_record(params=1, modules=()):
    n = 3
    rec = Record(passes=[BackwardPass(i, loss=1.0 / (i + 1)) for i in range(n)])
    t = rec.training = TrainingSeries(n, np.array([1.0, 0.5, 1 / 3]))
    for k in range(params):
        t.params[f"p{k}"] = ParamSeries(f"p{k}", np.full(n, 1.0), np.full(n, 1e-3), np.full(n, 0.1))
    for module, kind in modules:
        t.activations[module] = ActivationSeries(module, kind, *(np.full(n, 0.25) for _ in range(4)))
    return rec


def test_past_eight_parameters_the_rest_are_counted():
    text = text_of(series_record(params=SHOWN_ROWS + 3))
    assert text.count("… 3 more") == 2  # grad norms and update ratios
    assert "p7" in text and "p8" not in text


def test_dead_fractions_are_shown_for_relus_saturation_for_tanh_and_sigmoid_and_neither_for_others():
    text = text_of(series_record(modules=[("a", "relu"), ("b", "tanh"), ("c", "other"), ("d", "sigmoid")]))
    rows = rows_of(text, 8)
    assert ["dead", "a", "▃▃▃", "0.25"] in rows
    assert ["saturated", "b", "▃▃▃", "0.25"] in rows and ["d", "▃▃▃", "0.25"] in rows
    assert not any("c" in r for r in rows)


def test_logged_scalars_have_a_row_each_and_names_are_shown_literally():
    rec = series_record(params=0)
    rec.training.scalars["[bold]acc[/bold]"] = ScalarSeries(
        "[bold]acc[/bold]", np.array([0, 1]), np.array([0.5, 0.75]), np.array([1, 2])
    )
    assert ["scalars", "[bold]acc[/bold]", "▁█", "0.75"] in rows_of(text_of(rec), 3)


def test_a_record_without_passes_or_figures_has_no_training_table():
    assert "training," not in text_of(Record(passes=[BackwardPass(0, loss=1.0)]))
    assert "training," not in text_of(Record())


def test_a_long_column_is_averaged_into_the_sparklines_width_keeping_its_crosses_and_gaps():
    values = np.linspace(1.0, 2.0, 100_000)
    values[:3000] = math.nan  # no figure in the first bucket
    values[-1] = math.inf
    line = sparkline(values)
    assert len(line) == WIDTH and line[0] == " " and line[-1] == "×"
    assert line[1:-1] == "".join(sorted(line[1:-1]))  # rising
