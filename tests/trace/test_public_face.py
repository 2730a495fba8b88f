"""The trace layer's public face (`graphscope.trace`): every name it lists, each room loaded only when asked for."""

import subprocess
import sys

import pytest

import graphscope.trace as trace
from tests.graphscope_command import env


def modules_after(statement: str) -> set[str]:
    """The modules a fresh interpreter holds after `import graphscope` and `statement`."""
    code = f"import sys, graphscope; before = set(sys.modules); {statement}; print(*sorted(set(sys.modules) - before))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env(), check=True)
    return set(done.stdout.split())


def loaded(modules: set[str], *prefixes: str) -> set[str]:
    return {m for m in modules if m.startswith(prefixes)}


def test_a_room_of_the_trace_layer_loads_without_the_others():
    modules = modules_after("import graphscope.trace.record.literal")
    others = ("graphscope.trace.recording", "graphscope.trace.snapshot", "graphscope.trace.report")
    assert not loaded(modules, "rich", *others)


def test_telling_a_script_from_a_snapshot_loads_neither_the_reader_nor_the_writer():
    # `graphscope run` asks source_kind first; the snapshot package's face loads read and write on first use.
    modules = modules_after("import graphscope.trace.snapshot.source_kind, graphscope.trace.snapshot.format")
    assert not loaded(modules, "graphscope.trace.snapshot.read", "graphscope.trace.snapshot.write")


def test_the_snapshot_face_gives_the_reader_and_writer_when_asked_for():
    from graphscope.trace import snapshot
    from graphscope.trace.snapshot import read, write

    assert (snapshot.load, snapshot.loads, snapshot.dump, snapshot.dumps) == (
        read.load,
        read.loads,
        write.dump,
        write.dumps,
    )
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        snapshot.nothing  # noqa: B018 (the access is the test)


def test_the_findings_load_without_rich():
    # Findings are data (their messages are text); drawing them is the report's business.
    assert not loaded(modules_after("import graphscope.trace.analysis.findings"), "rich")


def test_every_public_name_is_there_when_asked_for():
    names: dict[str, object] = {}
    exec("from graphscope.trace import *", names)
    assert sorted(set(names) - {"__builtins__"}) == sorted(trace.__all__)
    assert all(names[name] is getattr(trace, name) for name in trace.__all__)
    assert set(trace.__all__) <= set(dir(trace))


def test_a_name_the_face_does_not_list_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        trace.nothing  # noqa: B018 (the access is the test)
