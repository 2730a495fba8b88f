"""Snapshot writes are atomic: a writer killed mid-write leaves the old file whole, never a partial one."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import graphscope
from graphscope.trace import snapshot
from graphscope.trace.atomic_file import WriteError
from graphscope.trace.record import Metadata, Node, Record
from graphscope.trace.summary import summarize

REPO = Path(graphscope.__file__).resolve().parent.parent

WRITER = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    from graphscope.trace import snapshot
    from graphscope.trace.record import Node, Record
    from graphscope.trace.summary import summarize

    s = summarize(np.random.default_rng(0).standard_normal(64).astype(np.float32))
    record = Record(nodes={i: Node(i, "tensor", output=s) for i in range(20000)})
    real_write = os.write

    def write_then_hang(fd, data):
        n = real_write(fd, data)
        print("mid-write", flush=True)
        time.sleep(600)
        return n

    os.write = write_then_hang
    snapshot.dump(record, sys.argv[1])
""")


def test_writer_killed_mid_write_leaves_the_old_snapshot_intact(tmp_path):
    path = tmp_path / "snap.json"
    old = Record(metadata=Metadata(script="old.py"), nodes={0: Node(0, "tensor", output=summarize(np.ones(3)))})
    snapshot.dump(old, path)
    before = path.read_bytes()

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, env=env, text=True)
    try:
        assert writer.stdout.readline().strip() == "mid-write"
        partial = [p for p in tmp_path.iterdir() if p.name != "snap.json"]
        assert partial and partial[0].stat().st_size > 0  # the new data is going to a temporary file
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()

    assert path.read_bytes() == before
    assert snapshot.load(path) == old


def test_a_failed_write_removes_its_temporary_file_and_keeps_the_old(tmp_path, monkeypatch):
    path = tmp_path / "snap.json"
    snapshot.dump(Record(), path)
    before = path.read_bytes()

    def full_disk(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(WriteError, match="No space left"):
        snapshot.dump(Record(metadata=Metadata(script="new.py")), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["snap.json"]


def test_writing_into_a_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(WriteError, match="cannot write snapshot"):
        snapshot.dump(Record(), tmp_path / "missing" / "snap.json")


def test_a_new_snapshot_replaces_the_old_one_completely(tmp_path):
    path = tmp_path / "snap.json"
    snapshot.dump(Record(metadata=Metadata(script="a.py")), path)
    snapshot.dump(Record(metadata=Metadata(script="b.py")), path)
    assert snapshot.load(path).metadata.script == "b.py"
    assert [p.name for p in tmp_path.iterdir()] == ["snap.json"]
