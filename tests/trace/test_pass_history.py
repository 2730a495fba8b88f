"""PassHistory: a long run's passes held as rows of columns read back exactly as the objects they were."""

import math
import tracemalloc

import pytest

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.record.model import BackwardPass, Record, Step
from graphscope.trace.record.pass_history import PassHistory, grad_norms_by_pass, with_steps
from graphscope.trace.recording.recorder import Policy, Recorder

PASSES = [
    BackwardPass(0, loss=1.5, grad_norms={"w": 0.5, "b": 0.25}, node_count=7, finished=True),
    BackwardPass(1, loss=None, grad_norms={}, node_count=3, finished=False),
    BackwardPass(2, loss=-math.inf, grad_norms={"w": math.nan}, node_count=7, finished=True),
    BackwardPass(3, loss=math.nan, grad_norms={"w": 1e308, "b": -0.0}, node_count=0, finished=True),
    BackwardPass(4, loss=2.0, grad_norms={"b": 1.0, "w": 2.0}, node_count=9, finished=True),
]


def _trimmed(p: BackwardPass) -> BackwardPass:
    return BackwardPass(p.index, p.loss, dict(p.grad_norms), p.node_count, False, p.finished)


def test_a_compacted_pass_reads_back_as_it_was():
    history = PassHistory()
    for p in PASSES:
        history.append(_trimmed(p))
    for i in (0, 2, 3, 1, 4):
        history.compact(i)
    assert history == [_trimmed(p) for p in PASSES]
    assert [list(p.grad_norms) for p in history] == [list(p.grad_norms) for p in PASSES]  # order kept


def test_held_passes_are_the_objects_themselves_and_it_reads_like_a_list():
    history = PassHistory()
    objects = [_trimmed(p) for p in PASSES]
    for p in objects:
        history.append(p)
    history.compact(1)
    assert history[0] is objects[0] and history[-1] is objects[-1] and history[1] is not objects[1]
    assert [p.index for p in reversed(history)] == [4, 3, 2, 1, 0]
    assert [p.index for p in history[1:4]] == [1, 2, 3] and history[-2].index == 3
    with pytest.raises(IndexError):
        history[5]


def test_grad_norms_read_from_rows_are_those_of_the_passes():
    history = PassHistory()
    for p in PASSES:
        history.append(_trimmed(p))
    for i in (0, 3, 4):
        history.compact(i)
    got = [(i, list(norms)) for i, norms in grad_norms_by_pass(history)]
    assert got == [(p.index, list(p.grad_norms.items())) for p in PASSES]
    assert [(i, list(norms)) for i, norms in grad_norms_by_pass(PASSES)] == got


def test_only_held_passes_with_steps_are_read_for_steps():
    history = PassHistory()
    objects = [_trimmed(p) for p in PASSES]
    objects[2].steps = [Step(5, None)]
    objects[4].steps = [Step(6, None)]
    for p in objects:
        history.append(p)
    history.compact(0)
    assert [p.index for p in with_steps(history)] == [2, 4] == [p.index for p in with_steps(objects)]
    assert history.held() == objects[1:]


@pytest.mark.slow
def test_a_long_run_keeps_every_loss_in_little_memory_and_its_snapshot_loads():
    w = gs.ones(2, requires_grad=True)
    recorder = Recorder(Policy(keep_first=1, keep_last=3))
    with hooks.observe(recorder):
        for i in range(4300):
            if i == 2300:  # past the recorder's warm-up (caches it fills, then prunes)
                tracemalloc.start()
            (w * float(i)).sum().backward()
            w.grad = None
        grown = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    record = recorder.finish(0)
    assert [p.loss for p in record.passes] == [2.0 * i for i in range(4300)]
    assert [p.detailed for p in record.passes] == [True] + [False] * 4296 + [True] * 3
    # bytes a pass (a BackwardPass object and its dicts took about 350): its row about 100; the training
    # series' loss and grad norm buffers take 16, counted here as up to 45 (buffers grown within the
    # window are counted whole)
    assert grown / 2000 < 160
    assert snapshot.loads(snapshot.dumps(record)) == record


def test_a_loaded_snapshot_keeps_its_passes_without_detail_as_rows_too():
    passes = [BackwardPass(0, loss=1.0, grad_norms={"w": 1.0}, node_count=0, finished=True)]  # detailed
    passes += [_trimmed(p) for p in PASSES[1:]]
    passes.append(BackwardPass(9, loss=3.0, detailed=False, finished=True))  # not where its index says
    loaded = snapshot.loads(snapshot.dumps(Record(passes=passes))).passes
    assert isinstance(loaded, PassHistory) and loaded == passes
    assert [loaded.compactable(i) for i in range(len(passes))] == [False] * len(passes)  # compacted already
    assert sorted(loaded._held) == [0, 5]  # the detailed pass and the odd one stay objects
