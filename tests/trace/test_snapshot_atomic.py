"""Snapshot writes are atomic: a writer killed mid-write leaves the old file whole, never a partial one."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import graphscope
from graphscope.trace import snapshot
from graphscope.trace.record.model import Metadata, Node, Record
from graphscope.trace.snapshot.atomic_file import HOST, STALE_SECONDS, TEMP_MARK, WriteError
from graphscope.trace.stats.summarize import summarize

REPO = Path(graphscope.__file__).resolve().parent.parent

WRITER = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    from graphscope.trace import snapshot
    from graphscope.trace.record.model import Node, Record
    from graphscope.trace.stats.summarize import summarize

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


def test_the_next_write_removes_the_partial_file_a_killed_writer_left(tmp_path):
    path = tmp_path / "snap.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, env=env, text=True)
    try:
        assert writer.stdout.readline().strip() == "mid-write"
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    assert len(list(tmp_path.iterdir())) == 1  # the partial file, left behind
    snapshot.dump(Record(), path)
    assert [p.name for p in tmp_path.iterdir()] == ["snap.json"]


def _partial(folder: Path, target: str, writer: str, age: float = 0.0) -> Path:
    """A file named as a partial of `target` by `writer` ("PID@HOST-" or "" for a name without
    one, as graphscope before issue 26 wrote), last changed `age` seconds ago."""
    path = folder / f".{target}{TEMP_MARK}{writer}0123abcd"
    path.write_text("{")
    when = time.time() - age
    os.utime(path, (when, when))
    return path


def test_a_partial_file_of_a_live_writer_is_kept(tmp_path):
    live = _partial(tmp_path, "snap.json", f"{os.getpid()}@{HOST}-")
    snapshot.dump(Record(), tmp_path / "snap.json")
    assert live.exists()


def test_a_partial_file_of_a_writer_on_another_host_is_kept_until_it_is_stale(tmp_path):
    dead = _dead_pid()
    fresh = _partial(tmp_path, "snap.json", f"{dead}@0000beef-")
    stale = _partial(tmp_path, "snap.json", f"{dead + 1}@0000beef-", STALE_SECONDS + 60)
    snapshot.dump(Record(), tmp_path / "snap.json")
    assert fresh.exists() and not stale.exists()


def test_a_partial_file_without_a_writer_is_removed_once_stale(tmp_path):
    fresh = _partial(tmp_path, "snap.json", "")
    old = tmp_path / f".snap.json{TEMP_MARK}89abcdef"
    old.write_text("{")
    os.utime(old, (time.time() - STALE_SECONDS - 60,) * 2)
    snapshot.dump(Record(), tmp_path / "snap.json")
    assert fresh.exists() and not old.exists()


def test_only_partial_files_of_the_same_target_are_removed(tmp_path):
    dead = f"{_dead_pid()}@{HOST}-"
    folder = tmp_path / f".snap.json{TEMP_MARK}{dead}fedcba98"
    folder.mkdir()
    longer = tmp_path / f".snap.json{TEMP_MARK}{dead}0123abcd.bak"
    longer.write_text("{")
    kept = [
        _partial(tmp_path, "other.json", dead),  # another target
        _partial(tmp_path, f"snap.json{TEMP_MARK}1", dead),  # a target whose name holds the mark
        folder,
        longer,
    ]  # not a regular file; not the whole name
    removed = _partial(tmp_path, "snap.json", dead)
    snapshot.dump(Record(), tmp_path / "snap.json")
    assert all(p.exists() for p in kept) and not removed.exists()


def _dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


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
