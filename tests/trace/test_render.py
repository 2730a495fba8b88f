"""`graphscope render`: the graph as an SVG or PNG through Graphviz's dot, with the app's labels and marks; one
line and exit 2 when dot is missing, the snapshot bad, the module or pass unknown, the extension unsupported."""

import re
import shutil
import struct
import xml.etree.ElementTree as ET

import pytest

from graphscope.cli import main
from graphscope.trace import snapshot
from tests.hand_records import failed_record, mlp_record, nan_record

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def snap(tmp_path):
    def write(record):
        path = tmp_path / "snap.json"
        snapshot.dump(record, path)
        return str(path)

    return write


def boxes(path) -> dict[int, ET.Element]:
    """The SVG's node groups by node id (dot's title for node `nID`)."""
    root = ET.parse(path).getroot()
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]
    return {int(g.find(f"{SVG}title").text.removeprefix("n")): g for g in groups}


def labels(group) -> list[str]:
    return [t.text for t in group.iter(f"{SVG}text")]


def outlines(group) -> list[ET.Element]:
    return [e for e in group.iter() if e.tag in (f"{SVG}path", f"{SVG}polygon")]


def first_lines(path) -> list[str]:
    return sorted(labels(g)[0] for g in boxes(path).values())


def test_the_svg_has_a_box_per_node_with_op_shape_and_module_and_an_arrow_per_edge(snap, tmp_path, capsys):
    record = mlp_record(passes=1)
    out = tmp_path / "graph.svg"
    assert main(["render", snap(record), "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"graph written to {out}\n"
    drawn = boxes(out)
    assert set(drawn) == set(record.nodes.keys())
    weight = next(n.id for n in record.nodes.values() if n.parameter == "fc1.weight")
    relu = next(n.id for n in record.nodes.values() if n.op == "relu")
    assert labels(drawn[weight]) == ["fc1.weight", "3×5 float32", "model.fc1"]
    assert labels(drawn[relu]) == ["relu", "4×5 float32", "model"]
    edges = [g for g in ET.parse(out).getroot().iter(f"{SVG}g") if g.get("class") == "edge"]
    assert len(edges) == sum(len(n.inputs) for n in record.nodes.values())


def test_nan_nodes_are_red_and_marked_and_the_nan_origin_doubled(snap, tmp_path):
    record = nan_record()
    out = tmp_path / "graph.svg"
    assert main(["render", snap(record), "--out", str(out), "--pass", "1"]) == 0
    drawn = boxes(out)
    assert set(drawn) == {n.id for n in record.nodes.values() if n.pass_index == 1}
    origin = record.findings[0].node
    assert labels(drawn[origin])[0] == f"! {record.nodes[origin].op}"
    assert any(text.startswith("nan 1") for text in labels(drawn[origin]))
    shapes = outlines(drawn[origin])
    assert len(shapes) == 2 and all(p.get("stroke") == "red" for p in shapes)  # doubled, red
    for node_id, group in drawn.items():
        if node_id == origin:
            continue
        bad = record.nodes[node_id].output.has_nonfinite
        assert (labels(group)[0].startswith("! "), len(outlines(group))) == (bad, 1)
        assert all(p.get("stroke") == ("red" if bad else "black") for p in outlines(group))


def test_the_node_the_script_failed_at_is_marked(snap, tmp_path):
    record = failed_record()
    out = tmp_path / "graph.svg"
    assert main(["render", snap(record), "--out", str(out)]) == 0
    failing = record.error.node
    drawn = boxes(out)
    assert labels(drawn[failing])[0] == f"✗ {record.nodes[failing].op}" and len(outlines(drawn[failing])) == 2
    assert not any(labels(g)[0].startswith("✗") for n, g in drawn.items() if n != failing)


def test_one_module_s_part_holds_its_nodes_and_the_modules_inside_it(snap, tmp_path):
    record = mlp_record(passes=1)
    out = tmp_path / "fc1.svg"
    assert main(["render", snap(record), "--out", str(out), "--module", "model.fc1"]) == 0
    assert first_lines(out) == ["add", "fc1.bias", "fc1.weight", "matmul"]
    out = tmp_path / "model.svg"
    assert main(["render", snap(record), "--out", str(out), "--module", "model"]) == 0
    assert set(boxes(out)) == {n.id for n in record.nodes.values() if n.module and n.module.startswith("model")}
    assert "relu" in first_lines(out) and "tensor" not in first_lines(out)


def test_a_png_is_a_png_of_the_graph_s_size(snap, tmp_path):
    out = tmp_path / "graph.png"
    assert main(["render", snap(mlp_record(passes=1)), "--out", str(out)]) == 0
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert 300 < width < 3000 and 300 < height < 3000  # a dozen boxes at 96 dpi


def fails(capsys, *argv) -> str:
    assert main(["render", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("graphscope: ")
    return err


def test_without_dot_on_path_it_says_how_to_get_it(snap, tmp_path, capsys, monkeypatch):
    path = snap(mlp_record(passes=1))
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing there
    assert shutil.which("dot") is None
    err = fails(capsys, path, "--out", str(tmp_path / "g.svg"))
    assert "Graphviz's `dot` program is not on PATH: install Graphviz" in err and "--dot FILE" in err
    assert not (tmp_path / "g.svg").exists()


def test_bad_input_is_one_line_saying_what_was_wrong(snap, tmp_path, capsys):
    path = snap(mlp_record(passes=1))
    assert "a picture is .svg or .png, not .pdf" in fails(capsys, path, "--out", str(tmp_path / "g.pdf"))
    err = fails(capsys, path, "--out", str(tmp_path / "g.svg"), "--module", "model.fc3")
    assert re.search(r"no module 'model\.fc3' in the snapshot: its modules are 'model', 'model\.fc1'", err)
    assert "no pass 7 in the snapshot: its passes are 0" in fails(
        capsys, path, "--out", str(tmp_path / "g.svg"), "--pass", "7"
    )
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    assert "broken.json" in fails(capsys, str(broken), "--out", str(tmp_path / "g.svg"))
    missing = tmp_path / "missing.json"
    assert "missing.json" in fails(capsys, str(missing), "--out", str(tmp_path / "g.svg"))
    assert not list(tmp_path.glob("g.*"))
