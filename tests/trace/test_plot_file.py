"""`graphscope plot`: the training series as an SVG (its panels and series found as text in the XML) or a PNG (its
size, not blank), written deterministically; bad input refused in one line with exit code 2."""

import math
import struct
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import graphscope as gs
from graphscope import nn, optim
from graphscope.cli import main
from graphscope.trace import snapshot
from graphscope.trace.record.model import BackwardPass, Record
from graphscope.trace.record.training import ParamSeries, ScalarSeries, TrainingSeries
from graphscope.trace.report.plot_file import INSTALL, SHOWN_PARAMS, TITLES
from tests.trace.trace_helpers import recorded

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    """A snapshot of a Linear-ReLU-Linear-Tanh net trained for 6 passes, the 5th with an Inf loss."""
    gs.manual_seed(0)
    net = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1), nn.Tanh())
    opt = optim.SGD(net.parameters(), lr=0.1)
    x, y = gs.randn(8, 2), gs.randn(8, 1)

    def run():
        for i in range(6):
            opt.zero_grad()
            loss = ((net(x) - y) ** 2).mean() * (math.inf if i == 4 else 1.0)
            loss.backward()
            if i != 4:
                opt.step()

    _, rec, _ = recorded(run)
    path = tmp_path_factory.mktemp("plot") / "snap.json"
    snapshot.dump(rec, path)
    return path


def texts(path):
    """Every text in the SVG, in document order."""
    root = ET.parse(path).getroot()
    return ["".join(t.itertext()) for t in root.iter(SVG + "text")]


def plot(*args):
    return main(["plot", *map(str, args)])


@pytest.mark.slow  # matplotlib draws for seconds
def test_an_svg_has_a_titled_panel_per_figure_with_each_series_labelled(snap, tmp_path, capsys):
    out = tmp_path / "plots.svg"
    assert plot(snap, "--out", out) == 0
    assert capsys.readouterr().out == f"wrote {out}\n"
    found = texts(out)
    titles = [t for t in found if t in TITLES.values()]
    assert titles == [TITLES[k] for k in ("loss", "grad", "ratio", "lr", "activations")]  # no scalars were logged
    for label in ("0.weight", "0.bias", "2.weight", "2.bias", "1e-3 guide", "net.1 dead", "net.3 saturated"):
        assert label in found
    assert "2.weight (+3)" in found  # the learning rate the four parameters share, drawn once
    assert found.count("NaN/Inf pass") == 1 and "pass" in found  # the marker's legend entry; the x axis


@pytest.mark.slow  # matplotlib draws for seconds
def test_the_svg_is_the_same_bytes_each_time_and_carries_no_date(snap, tmp_path):
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    assert plot(snap, "--out", a) == 0 and plot(snap, "--out", b) == 0
    assert a.read_bytes() == b.read_bytes()
    assert b"<dc:date>" not in a.read_bytes()


@pytest.mark.slow  # matplotlib draws for seconds
def test_a_png_is_a_picture_of_the_figures_size_that_is_not_blank(snap, tmp_path):
    from matplotlib.image import imread

    out = tmp_path / "plots.png"
    assert plot(snap, "--out", out) == 0
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (900, 5 * 240)  # 9 inches by 2.4 a panel, at 100 dpi
    pixels = imread(out)[..., :3]
    assert (pixels < 0.9).any(axis=-1).mean() > 0.02  # lines, text and axes, not a white page


@pytest.mark.slow  # matplotlib draws for seconds
def test_params_picks_the_parameters_drawn(snap, tmp_path):
    out = tmp_path / "plots.svg"
    assert plot(snap, "--out", out, "--params", "0.weight, 2.bias") == 0
    found = texts(out)
    assert "0.weight" in found and "2.bias" in found
    assert "0.bias" not in found and "2.weight" not in found


def write(record, path):
    snapshot.dump(record, path)
    return path


def series_record(params=1, scalars=()):
    n = 4
    rec = Record(passes=[BackwardPass(i, loss=1.0) for i in range(n)])
    rec.training = TrainingSeries(n, np.ones(n))
    for k in range(params):
        name = f"layer{k}.weight"
        rec.training.params[name] = ParamSeries(name, np.full(n, 0.5), np.full(n, 1e-3), np.full(n, 0.01))
    for tag in scalars:
        rec.training.scalars[tag] = ScalarSeries(tag, np.arange(3), np.array([0.1, 0.2, 0.4]), np.array([1, 2, 4]))
    return rec


@pytest.mark.slow  # matplotlib draws for seconds
def test_logged_scalars_have_their_panel_and_names_are_drawn_literally(tmp_path):
    out = tmp_path / "plots.svg"
    snap = write(series_record(scalars=("$x_1$", "_hidden", "acc")), tmp_path / "snap.json")
    assert plot(snap, "--out", out) == 0
    found = texts(out)
    assert TITLES["scalars"] in found
    assert "$x_1$" in found and "\u200b_hidden" in found and "acc" in found  # no mathtext; kept in the legend


@pytest.mark.slow  # matplotlib draws for seconds
def test_past_twelve_parameters_the_title_says_how_to_choose(tmp_path):
    out = tmp_path / "plots.svg"
    snap = write(series_record(params=SHOWN_PARAMS + 2), tmp_path / "snap.json")
    assert plot(snap, "--out", out) == 0
    found = texts(out)
    note = f"  ({SHOWN_PARAMS} of {SHOWN_PARAMS + 2} parameters: --params to choose)"
    assert TITLES["grad"] + note in found and TITLES["ratio"] + note in found
    assert "layer11.weight" in found and "layer12.weight" not in found


def refused(capsys, *args):
    assert plot(*args) == 2
    err = capsys.readouterr().err
    assert err.startswith("graphscope: ") and err.count("\n") == 1
    return err


def test_a_missing_file_is_refused(tmp_path, capsys):
    err = refused(capsys, tmp_path / "nope.json", "--out", tmp_path / "p.svg")
    assert "nope.json: cannot read the file: No such file or directory" in err
    assert not (tmp_path / "p.svg").exists()


def test_a_file_that_is_not_a_snapshot_is_refused(tmp_path, capsys):
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    assert "not valid JSON: a snapshot begins with {, not 'h'" in refused(capsys, text, "--out", tmp_path / "p.svg")


def test_a_picture_name_without_svg_or_png_is_refused_before_reading(tmp_path, capsys):
    err = refused(capsys, tmp_path / "nope.json", "--out", tmp_path / "p.pdf")
    assert "the picture's name must end in .svg or .png" in err


def test_a_snapshot_without_passes_has_nothing_to_plot(tmp_path, capsys):
    snap = write(Record(), tmp_path / "snap.json")
    assert "no backward pass: there is nothing to plot" in refused(capsys, snap, "--out", tmp_path / "p.svg")


def test_an_unknown_parameter_is_refused_with_the_known_ones(tmp_path, capsys):
    snap = write(series_record(params=2), tmp_path / "snap.json")
    err = refused(capsys, snap, "--out", tmp_path / "p.svg", "--params", "fc.weight")
    assert "--params: no parameter 'fc.weight' in the snapshot (its parameters: layer0.weight, layer1.weight)" in err


def test_a_picture_that_cannot_be_written_is_refused(tmp_path, capsys):
    snap = write(series_record(), tmp_path / "snap.json")
    assert "cannot write" in refused(capsys, snap, "--out", tmp_path / "missing" / "p.svg")


def test_without_matplotlib_it_says_what_to_install(tmp_path, capsys, monkeypatch):
    snap = write(series_record(), tmp_path / "snap.json")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    err = refused(capsys, snap, "--out", tmp_path / "p.svg")
    assert f"plotting needs matplotlib: {INSTALL}" in err and INSTALL == "pip install 'graphscope[plot]'"
