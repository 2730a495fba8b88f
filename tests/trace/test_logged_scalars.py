"""Scalars a recorded script logs with SummaryWriter land in record.training.scalars, point by point."""

import numpy as np

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace.recording.recorder import Recorder
from graphscope.utils.tensorboard import SummaryWriter
from tests.trace.trace_helpers import recorded


def train(log_dir, steps):
    """Gradient descent on a 2-vector, logging as a training loop does after each optimizer step."""
    w = gs.tensor([1.0, -2.0], requires_grad=True)
    optimizer = gs.optim.SGD([w], lr=0.1)
    writer = SummaryWriter(log_dir)
    writer.add_scalar("lr", 0.1)  # before any pass, without a step
    losses = []
    for step in range(steps):
        loss = (w * w).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        writer.add_scalar("loss", loss, 10 * step)
        writer.add_scalars("norm", {"w": w.norm(), "grad": w.grad.norm().item()}, 10 * step)
    writer.close()
    return losses


def test_each_logged_scalar_is_a_point_with_its_step_value_and_passes_begun(tmp_path):
    _, record, losses = recorded(lambda: train(tmp_path / "run", 3))
    scalars = record.training.scalars
    assert list(scalars) == ["lr", "loss", "norm/w", "norm/grad"]
    assert {tag: series.tag for tag, series in scalars.items()} == {tag: tag for tag in scalars}
    assert scalars["lr"].step.tolist() == [0] and scalars["lr"].pass_index.tolist() == [0]
    loss = scalars["loss"]
    assert loss.step.tolist() == [0, 10, 20]
    assert loss.pass_index.tolist() == [1, 2, 3]
    np.testing.assert_allclose(loss.value, losses, rtol=1e-6)
    np.testing.assert_allclose(loss.value, [p.loss for p in record.passes], rtol=1e-6)
    w = np.array([1.0, -2.0])
    norms = [np.linalg.norm(w * 0.8**k) for k in (1, 2, 3)]  # each step scales w by 1 - 2 * lr
    np.testing.assert_allclose(scalars["norm/w"].value, norms, rtol=1e-6)
    assert scalars["norm/grad"].value.dtype == np.float64 and scalars["norm/grad"].step.dtype == np.int64


def test_many_points_are_kept_in_order(tmp_path):
    def log():
        writer = SummaryWriter(tmp_path / "run")
        for i in range(1000):
            writer.add_scalar("i", i / 4, i)

    _, record, _ = recorded(log)
    series = record.training.scalars["i"]
    assert series.step.tolist() == list(range(1000))
    assert series.value.tolist() == [i / 4 for i in range(1000)]
    assert series.pass_index.tolist() == [0] * 1000


def test_a_scalar_logged_after_the_recording_was_sealed_changes_nothing(tmp_path):
    recorder = Recorder()
    writer = SummaryWriter(tmp_path / "run")
    with hooks.observe(recorder):
        writer.add_scalar("loss", 1.0, 0)
        record = recorder.seal(0)
        writer.add_scalar("loss", 2.0, 1)
    assert record.training.scalars["loss"].value.tolist() == [1.0]
