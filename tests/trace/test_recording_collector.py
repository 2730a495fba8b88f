"""The recorder keeps Python's cyclic garbage collector off the record's long-lived objects: what it
makes while paused goes to the oldest generation unscanned, and the collector always runs again."""

import gc

import pytest

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace.recording import collector, recorder
from graphscope.trace.recording.recorder import Policy, Recorder


class Box:
    """A tracked object of the test's own, found by identity in a generation."""


def in_generation(obj: object, generation: int) -> bool:
    return any(o is obj for o in gc.get_objects(generation=generation))


def test_objects_made_while_paused_go_to_the_oldest_generation():
    with collector.Collector().paused():
        made = Box()
    assert in_generation(made, 2)
    assert not in_generation(made, 0)
    assert gc.isenabled()


def test_promotion_leaves_a_script_s_frozen_objects_frozen():
    frozen = Box()
    gc.freeze()
    try:
        count = gc.get_freeze_count()
        collector.Collector().promote_young()
        assert gc.get_freeze_count() == count
        assert not in_generation(frozen, 2)
    finally:
        gc.unfreeze()


def test_a_paused_collector_stays_paused_after_a_nested_pause():
    gc.disable()
    try:
        with collector.Collector().paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def chain(nodes: int, fail: bool = False):
    x = gs.ones(4, requires_grad=True)
    y = x
    for _ in range(nodes):
        y = y.tanh()
    if fail:
        y.register_hook(lambda g: 1 / 0)
    y.sum().backward()


def test_a_long_taped_backward_runs_with_the_collector_paused(monkeypatch):
    monkeypatch.setattr(recorder, "_LONG_BACKWARD", 8)
    seen = []
    original = Recorder.backward_ended

    def ended(self, root):
        seen.append(gc.isenabled())
        original(self, root)

    monkeypatch.setattr(Recorder, "backward_ended", ended)
    rec = Recorder(Policy.every_pass())
    with hooks.observe(rec):
        chain(4)  # short: the collector runs
        chain(16)  # long: paused until its end
    assert seen == [True, False]
    assert gc.isenabled()
    assert len(rec.finish().passes) == 2


def test_the_collector_runs_again_after_a_long_backward_that_raised(monkeypatch):
    monkeypatch.setattr(recorder, "_LONG_BACKWARD", 8)
    rec = Recorder()
    with hooks.observe(rec), pytest.raises(ZeroDivisionError):
        chain(16, fail=True)
    assert gc.isenabled()


def test_the_collector_runs_again_when_a_recording_is_sealed_mid_backward(monkeypatch):
    monkeypatch.setattr(recorder, "_LONG_BACKWARD", 8)
    rec = Recorder()
    monkeypatch.setattr(Recorder, "backward_ended", lambda self, root: None)  # (uninstalled before the end)
    with hooks.observe(rec):
        chain(16)
    assert not gc.isenabled()
    rec.seal(1)
    assert gc.isenabled()


def test_a_recording_asks_how_many_objects_are_frozen_once_it_has_seen_some(monkeypatch):
    """CPython counts frozen objects one by one (~50 ms for 500,000): a script (or an app before it) that
    keeps objects frozen made every pass's end pay that walk, fifty times a pass's own cost."""
    asked = []
    count = gc.get_freeze_count
    monkeypatch.setattr(gc, "get_freeze_count", lambda: asked.append(1) or count())
    frozen = Box()
    gc.freeze()
    try:
        rec = Recorder(Policy.every_pass())
        with hooks.observe(rec):
            for _ in range(20):
                chain(3)
        assert len(rec.finish().passes) == 20
        assert len(asked) == 1
        assert not in_generation(frozen, 2)  # still frozen
    finally:
        gc.unfreeze()
