"""Exports (snapshot and DOT) replace only a regular file or nothing, atomically, with the mode a
user expects; every failure is one line and exit 2, and leaves no temporary file behind."""

import os
import socket
import stat
import subprocess
import textwrap

import pytest

from graphscope.trace import snapshot
from graphscope.trace.record.model import Metadata, Record
from graphscope.trace.snapshot.atomic_file import TEMP_MARK, WriteError, write_atomically
from tests.graphscope_command import env, graphscope, script
from tests.hostile.hostile_helpers import loads, one_line_error

TRAIN = """
    import graphscope as gs
    w = gs.ones(3, requires_grad=True)
    for _ in range(3):
        (w * 2).sum().backward()
"""

EXPORTS = [("--export", "snapshot"), ("--dot", "graph")]


def _leftovers(folder):
    return [p.name for p in folder.iterdir() if TEMP_MARK in p.name]


@pytest.mark.parametrize("flag, what", EXPORTS)
def test_a_fifo_is_refused_not_replaced(tmp_path, flag, what):
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    result = graphscope("run", "--headless", flag, fifo, script(tmp_path, TRAIN))
    one_line_error(result, 2, f"cannot write {what} {fifo}", "FIFO", "exit code was 0")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert _leftovers(tmp_path) == []


def test_a_socket_and_a_folder_are_refused(tmp_path):
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock"))
    try:
        with pytest.raises(WriteError, match="is a socket, not a regular file"):
            snapshot.dump(Record(), tmp_path / "sock")
    finally:
        server.close()
    assert stat.S_ISSOCK(os.lstat(tmp_path / "sock").st_mode)
    with pytest.raises(WriteError, match="is a folder"):
        snapshot.dump(Record(), tmp_path)


def test_a_device_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    # /dev/null itself, stat only: the writer must refuse it before creating or renaming anything.
    created = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda *a, **k: created.append(a[0]) or real_open(*a, **k))
    with pytest.raises(WriteError, match="cannot write snapshot /dev/null: it is a device, not a regular file"):
        snapshot.dump(Record(), "/dev/null")
    assert created == []


@pytest.mark.parametrize("flag, what", EXPORTS)
def test_a_symlink_is_followed_to_its_target(tmp_path, flag, what):
    target = tmp_path / "real" / "out.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    result = graphscope("run", "--headless", flag, link, script(tmp_path, TRAIN))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    if flag == "--export":
        loads(target)
    else:
        assert target.read_text().startswith("digraph")
    assert _leftovers(tmp_path) == [] and _leftovers(target.parent) == []


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_gets_the_umasks_mode(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        write_atomically(tmp_path / "new.json", b"{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == mode


def test_a_replaced_file_keeps_its_mode(tmp_path):
    path = tmp_path / "kept.json"
    path.write_text("old")
    os.chmod(path, 0o640)
    snapshot.dump(Record(metadata=Metadata(script="new.py")), path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert snapshot.load(path).metadata.script == "new.py"


def test_a_read_only_file_is_treated_as_cp_treats_it(tmp_path):
    source = tmp_path / "source"
    source.write_text("new")
    by_cp, by_us = tmp_path / "by_cp", tmp_path / "by_us"
    for path in (by_cp, by_us):
        path.write_text("old")
        os.chmod(path, 0o444)
    cp_ok = subprocess.run(["cp", str(source), str(by_cp)], capture_output=True, check=False).returncode == 0
    try:
        snapshot.dump(Record(), by_us)
        ours_ok = True
    except WriteError as error:
        assert str(error) == f"cannot write snapshot {by_us}: Permission denied (the file is read-only)"
        ours_ok = False
    assert ours_ok == cp_ok  # root may replace it, as cp does; anyone else is refused
    assert (by_us.read_text() == "old") == (not ours_ok)


@pytest.mark.parametrize("flag, what", EXPORTS)
def test_a_missing_folder_is_one_line_and_exit_2_naming_the_scripts_code(tmp_path, flag, what):
    out = tmp_path / "missing" / "out"
    path = script(tmp_path, textwrap.dedent(TRAIN) + "import sys\nsys.exit(5)\n")
    result = graphscope("run", "--headless", flag, out, path)
    one_line_error(result, 2, f"graphscope: cannot write {what} {out}: ", "no such folder", "exit code was 5")


def test_a_full_disk_mid_write_is_one_line_and_leaves_no_temporary_file(tmp_path):
    # os.write fails with ENOSPC once the export's temporary file is being written.
    runner = (
        "import errno, os, sys\n"
        "real = os.write\n"
        "def full(fd, data):\n"
        "    if os.readlink(f'/proc/self/fd/{fd}').find('" + TEMP_MARK + "') >= 0 and len(data) > 10:\n"
        "        real(fd, bytes(data[:10]))\n"
        "        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))\n"
        "    return real(fd, data)\n"
        "os.write = full\n"
        "from graphscope.cli import main\n"
        "sys.exit(main())\n"
    )
    out = tmp_path / "out.json"
    out.write_text("the old export")
    result = subprocess.run(
        [os.sys.executable, "-c", runner, "run", "--headless", "--export", str(out), str(script(tmp_path, TRAIN))],
        capture_output=True,
        text=True,
        env=env(),
        timeout=120,
        check=False,
    )
    one_line_error(result, 2, f"cannot write snapshot {out}: No space left on device", "exit code was 0")
    assert out.read_text() == "the old export"
    assert _leftovers(tmp_path) == []


def test_a_temporary_file_is_named_for_its_target_and_graphscope(tmp_path, monkeypatch):
    seen = []
    real_write = os.write

    def spy(fd, data):
        seen.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", spy)
    snapshot.dump(Record(), tmp_path / "run.json")
    name = os.path.basename(seen[0])
    assert name.startswith(".run.json" + TEMP_MARK)
    assert _leftovers(tmp_path) == []
