"""Every export, taken at any moment of a run, loads: a flush while a pass runs, a record sealed
while its script thread is stuck, a large tensor summarised without a copy, other threads left out."""

import threading
import tracemalloc

import numpy as np
import pytest

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.recording.recorder import SUMMARIZE_AT_ONCE, Policy, Recorder
from graphscope.trace.stats.summarize import PIECE, summarize


def _loads(record):
    assert snapshot.loads(snapshot.dumps(record)) == record


@pytest.mark.parametrize("at_pass", range(8))
def test_a_flush_in_the_middle_of_any_pass_gives_a_record_that_loads(at_pass):
    w = gs.randn(4, 4, requires_grad=True)
    recorder = Recorder(Policy(keep_first=1, keep_last=3))
    cuts = []

    class Pause(hooks.Observer):  # the session pausing at a breakpoint in this pass only
        def before_node(self, node, grad_output):
            if len(recorder.record.passes) == at_pass + 1 and not cuts:
                cuts.append(snapshot.dumps(recorder.flush()))

    with hooks.observe(recorder), hooks.observe(Pause()):
        for _ in range(8):
            (w @ w).tanh().sum().backward()
    snapshot.loads(cuts[0])
    _loads(recorder.finish())


def test_a_record_sealed_in_the_middle_of_a_pass_loads_and_takes_nothing_more():
    w = gs.randn(4, 4, requires_grad=True)
    recorder = Recorder(Policy(keep_first=1, keep_last=3))
    sealed = []

    class Cut(hooks.Observer):
        def before_node(self, node, grad_output):
            if len(recorder.record.passes) == 6 and not sealed:
                hooks.uninstall(recorder)  # as the headless runner does after Ctrl-C
                sealed.append(recorder.seal(130))

    with hooks.observe(recorder), hooks.observe(Cut()):
        for _ in range(8):
            (w @ w).tanh().sum().backward()
        recorder.console("stdout", "after the cut")
        assert recorder.finish(0) is sealed[0]
    record = sealed[0]
    assert len(record.passes) == 6 and record.metadata.exit_code == 130
    assert not record.passes[-1].finished and not record.console
    _loads(record)


def test_an_observer_of_one_thread_is_told_once_of_each_other_thread():
    recorder = Recorder()
    w = gs.ones(3, requires_grad=True)

    def work():
        for _ in range(3):
            (w * 2).sum().backward()

    with hooks.observe(recorder):
        work()
        for name in ("a", "b"):
            thread = threading.Thread(target=work, name=name)
            thread.start()
            thread.join()
    record = recorder.finish(0)
    assert len(record.passes) == 3
    assert [c.text.split("'")[1] for c in record.console] == ["a", "b"] == [n.split("'")[1] for n in recorder.notes]
    _loads(record)


def _peak(run) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_large_leaf_and_its_grad_are_summarised_at_once_not_copied():
    n = SUMMARIZE_AT_ONCE + 1
    w = gs.randn(n, requires_grad=True)
    recorder = Recorder()

    def plain():
        w.grad = None
        (w * w).sum().backward()

    def recorded():
        with hooks.observe(recorder):
            plain()
        recorder.finish(0)

    recorded()  # once first: what the recorder keeps between runs (its scratch buffers) is not in the peak
    recorder = Recorder()
    extra = _peak(recorded) - _peak(plain)
    # a copy of w and of its grad would be two more arrays on top of the recorder's own (about two:
    # it holds w*w's output through the backward instead of letting it go)
    assert extra < 2.5 * 4 * n
    record = recorder.record
    leaf = next(node for node in record.nodes.values() if node.op == "parameter")
    assert leaf.output.numel == n and np.isclose(leaf.output.mean, float(w.mean()), rtol=1e-4, atol=1e-6)
    _loads(record)


def test_a_nan_in_a_large_leaf_is_still_found():
    w = gs.ones(SUMMARIZE_AT_ONCE + 1, requires_grad=True)
    with gs.no_grad():
        w[5] = float("nan")
    recorder = Recorder()
    with hooks.observe(recorder):
        for _ in range(6):
            (w * 2).sum().backward()
    record = recorder.finish(0)
    assert any(f.kind == "nan-origin" for f in record.findings)


def test_a_summary_of_a_large_non_contiguous_array_copies_only_pieces():
    a = np.random.default_rng(0).standard_normal((2048, 2048)).astype(np.float32).T  # 16 MiB, a view
    tracemalloc.start()
    try:
        s = summarize(a)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * 8 * PIECE  # a few pieces' worth, not the array's 16 MiB (or its float64 double)
    assert np.isclose(s.mean, float(a.mean(dtype=np.float64)), atol=1e-6)
    assert np.isclose(s.std, float(a.std(dtype=np.float64, ddof=1)), rtol=1e-5)
    assert s.preview.tolist() == a.reshape(-1)[:64].tolist()
