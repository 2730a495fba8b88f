"""`graphscope summary` and `view` on hostile files: anything that is not a regular snapshot is one
line and exit 2 (never a hang, a memory blow-up or a traceback); every valid run summarises."""

import json
import os
import random

import numpy as np
import pytest

from graphscope.trace import snapshot
from graphscope.trace.record.model import BackwardPass, Metadata, Node, Record, SourceSite
from graphscope.trace.stats.summarize import summarize
from tests.graphscope_command import graphscope, script
from tests.hostile.hostile_helpers import loads, one_line_error


def _record(**passes) -> Record:
    site = SourceSite("model.py", 3, "<module>", "loss = model(x)")
    node = Node(0, "tensor", output=summarize(np.arange(6, dtype=np.float32)), site=site)
    return Record(
        metadata=Metadata(script="model.py"),
        nodes={0: node},
        passes=[BackwardPass(0, loss=1.5, grad_norms={"w": 0.25}, node_count=1, root=0, order=(0,), finished=True)],
    )


@pytest.mark.parametrize("command", ["summary", "view"])
def test_a_fifo_is_refused_at_once(tmp_path, command):
    fifo = tmp_path / "snap.json"
    os.mkfifo(fifo)
    one_line_error(graphscope(command, fifo), 2, str(fifo), "FIFO", "not a snapshot file")


@pytest.mark.parametrize("command", ["summary", "view"])
def test_a_device_is_refused_at_once(command):
    one_line_error(graphscope(command, "/dev/zero"), 2, "/dev/zero", "is a device")


def test_a_folder_is_refused(tmp_path):
    one_line_error(graphscope("summary", tmp_path), 2, str(tmp_path), "folder")


def test_a_large_file_of_whitespace_is_read_in_chunks_as_empty(tmp_path):
    path = tmp_path / "blank.json"
    with open(path, "wb") as f:
        f.write(b" \n\t\r" * (16 * 2**20))  # 64 MiB: read and dropped a chunk at a time
    one_line_error(graphscope("summary", path), 2, str(path), "the file is empty")


def test_reading_stops_at_the_first_byte_that_cannot_begin_a_snapshot(tmp_path):
    path = tmp_path / "junk.json"
    with open(path, "wb") as f:
        f.write(b"\n" * 3 + b"  x" + b"y" * (32 * 2**20))
    one_line_error(graphscope("summary", path), 2, str(path), "line 4, column 3", "begins with {")


def test_a_file_over_the_size_limit_says_its_size_and_how_to_raise_it(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(snapshot.dumps(_record()))
    size = path.stat().st_size
    line = one_line_error(
        graphscope("summary", path, GRAPHSCOPE_MAX_SNAPSHOT="1000"),
        2,
        str(path),
        f"{size:,} bytes",
        "GRAPHSCOPE_MAX_SNAPSHOT",
    )
    assert "1,000 bytes" in line
    assert graphscope("summary", path, GRAPHSCOPE_MAX_SNAPSHOT=str(size)).returncode == 0


def test_a_bad_size_limit_is_one_line(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(snapshot.dumps(_record()))
    one_line_error(
        graphscope("summary", path, GRAPHSCOPE_MAX_SNAPSHOT="lots"),
        2,
        "GRAPHSCOPE_MAX_SNAPSHOT",
        "not a number of bytes",
    )


@pytest.mark.parametrize("where", ["loss", "grad_norms"])
def test_a_400_digit_integer_as_a_number_is_exit_2_with_its_place(tmp_path, where):
    doc = json.loads(snapshot.dumps(_record()))
    if where == "loss":
        doc["passes"][0]["loss"] = 10**400
    else:
        doc["passes"][0]["grad_norms"]["w"] = -(10**400)
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(doc))
    place = "passes[0].loss" if where == "loss" else "passes[0].grad_norms['w']"
    one_line_error(graphscope("summary", path), 2, str(path), place, "401 digits is too large")


def test_a_lone_surrogate_in_a_source_text_is_shown_escaped(tmp_path):
    record = _record()
    record.nodes[0].site = SourceSite("model.py", 3, "<module>", "x = '\udfff'")
    record.console = []
    path = tmp_path / "s.json"
    snapshot.dump(record, path)
    assert "\\udfff" in path.read_text()
    result = graphscope("summary", path)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr


@pytest.mark.slow
def test_a_lone_surrogate_in_the_scripts_error_is_recorded_exported_and_summarised(tmp_path):
    path = script(
        tmp_path,
        """
        import graphscope as gs
        w = gs.ones(2, requires_grad=True)
        (w * 3).sum().backward()
        raise ValueError("oops \\udfff")
    """,
    )
    out = tmp_path / "s.json"
    result = graphscope("run", "--headless", "--export", out, path)
    assert result.returncode == 1 and "snapshot written" in result.stderr, result.stderr[-2000:]
    assert loads(out).error.message == "oops \udfff"
    assert "\\udfff" in graphscope("summary", out).stdout


@pytest.mark.slow
def test_losses_at_the_ends_of_the_float_range_are_summarised_and_exported(tmp_path):
    path = script(
        tmp_path,
        """
        import graphscope as gs
        w = gs.ones(1, dtype=gs.float64, requires_grad=True)
        for scale in (1.7e308, -1.7e308, 1.7e308, 1.0):
            (w * scale).sum().backward()
    """,
    )
    out = tmp_path / "s.json"
    result = graphscope("run", "--headless", "--export", out, path)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "loss" in result.stdout
    assert [p.loss for p in loads(out).passes] == [1.7e308, -1.7e308, 1.7e308, 1.0]


@pytest.mark.slow
def test_generated_damaged_snapshots_are_each_one_clear_error(tmp_path):
    """Truncations and value swaps at random places of a valid snapshot: SnapshotError, never another exception."""
    text = snapshot.dumps(_record())
    doc = json.loads(text)
    rng = random.Random(12)
    bad = [text[: rng.randrange(1, len(text))] for _ in range(40)]
    hostile_values = [None, True, -1, 2**70, 10**400, 1.5, "nan", "\udfff", "\x1b[2J", [], {}, [[[]]], "x" * 5000]

    def paths(value, prefix=()):
        if isinstance(value, dict):
            for k, v in value.items():
                yield from paths(v, prefix + (k,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                yield from paths(v, prefix + (i,))
        yield prefix

    places = [p for p in paths(doc) if p]
    for _ in range(150):
        changed = json.loads(text)
        place = rng.choice(places)
        holder = changed
        for key in place[:-1]:
            holder = holder[key]
        holder[place[-1]] = rng.choice(hostile_values)
        bad.append(json.dumps(changed))
    for i, candidate in enumerate(bad):
        try:
            snapshot.loads(candidate, f"case{i}.json")
        except snapshot.SnapshotError as error:
            assert "\n" not in str(error) and str(error).startswith(f"case{i}.json: ")
    # and through the command line, a few of them
    for i, candidate in enumerate(bad[::25]):
        path = tmp_path / f"case{i}.json"
        path.write_text(candidate, errors="surrogatepass")
        result = graphscope("summary", path)
        assert result.returncode in (0, 2) and "Traceback" not in result.stderr, result.stderr[-2000:]
        if result.returncode == 2:
            one_line_error(result, 2, str(path))


def test_reading_stops_at_a_nul_byte_after_a_plausible_start(tmp_path):
    path = tmp_path / "disguised.json"
    with open(path, "wb") as f:
        f.write(b'  {"format": "graphscope-snapshot"' + b"\0" + b"x" * (32 * 2**20))
    one_line_error(graphscope("summary", path), 2, str(path), "byte 34 is a NUL byte", "binary file")
