"""The background summary worker: the same summaries as at once, stored in order, and the
caller's own work when its queue is full."""

import queue

import numpy as np

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace.recording import summary_worker
from graphscope.trace.recording.recorder import Policy, Recorder
from graphscope.trace.stats.summarize import summarize_many


def arrays():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((300, 300)).astype(np.float32), rng.standard_normal(7), np.arange(5)]


def test_a_batch_summarised_on_the_worker_equals_one_summarised_here():
    batch = summary_worker.submit(arrays(), 4096)
    assert batch.result() == summarize_many(arrays(), 4096)


def test_a_full_queue_makes_the_caller_summarise_the_batch_itself(monkeypatch):
    full = queue.Queue(1)
    full.put(object())  # never taken: no worker runs
    monkeypatch.setattr(summary_worker, "_queue", full)
    monkeypatch.setattr(summary_worker, "_start", lambda: None)
    batch = summary_worker.submit(arrays(), 4096)
    assert batch.done.is_set() and batch.result() == summarize_many(arrays(), 4096)


def test_every_pass_of_large_tensors_is_summarised_in_the_background_and_stored_in_order():
    gs.manual_seed(0)
    w = gs.randn(300, 300, requires_grad=True)
    recorder = Recorder(Policy.every_pass())
    means = []
    with hooks.observe(recorder):
        for _ in range(5):
            means.append(float(w.array.astype(np.float64).mean()))
            (w * 2).tanh().sum().backward()
            with gs.no_grad():
                w -= 0.5 * w.grad
            w.grad = None
    record = recorder.finish(0)
    assert recorder._materializer.waiting() == (0, 0)
    values = [n.output for n in record.nodes.values() if n.op == "parameter"]
    np.testing.assert_allclose([s.mean for s in values], means, rtol=1e-5)
    grads = [p.steps[-1].leaf_grads[0].grad for p in record.passes]
    assert all(g is not None and g.shape == (300, 300) for g in grads)


def test_an_output_written_in_place_before_its_summary_is_stored_loses_it():
    w = gs.ones(300, 300, requires_grad=True)
    recorder = Recorder(Policy.every_pass())
    with hooks.observe(recorder):
        y = w * 2
        y.sum().backward()
        with gs.no_grad():
            y.add_(1)  # an untracked write: the recorded value is no longer there to read
    record = recorder.finish(0)
    mul = next(n for n in record.nodes.values() if n.op == "mul")
    assert mul.output is None


def test_small_passes_summarised_together_each_keep_their_own_values():
    w = gs.tensor([1.0, 2.0], requires_grad=True)
    recorder = Recorder(Policy.every_pass())
    with hooks.observe(recorder):
        for _ in range(21):  # more than one group of deferred passes, and a part of one
            (w * 3).sum().backward()
            with gs.no_grad():
                w += 1.0
            w.grad = None
        assert recorder._materializer.waiting()[1]  # the last passes' summaries are still to be made...
    record = recorder.finish(0)
    assert recorder._materializer.waiting() == (0, 0)  # ...and finish made and stored them
    values = [n.output.values.tolist() for n in record.nodes.values() if n.op == "parameter"]
    assert values == [[1.0 + k, 2.0 + k] for k in range(21)]
    products = [n.output.values.tolist() for n in record.nodes.values() if n.op == "mul"]
    assert products == [[3.0 * (1 + k), 3.0 * (2 + k)] for k in range(21)]
