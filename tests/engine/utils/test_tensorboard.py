"""SummaryWriter as torch.utils.tensorboard's: its arguments, its errors, the scalars it announces, and no
files without the `tensorboard` package (torch's own writer needs that package; its messages are quoted here
from torch/utils/tensorboard/summary.py and _convert_np.py, torch 2.13)."""

import os
import socket
import sys

import numpy as np
import pytest

import graphscope as gs
from graphscope.engine import hooks
from graphscope.utils.tensorboard import SummaryWriter


class Scalars(hooks.Observer):
    def __init__(self):
        self.logged = []

    def scalar_logged(self, tag, value, step):
        self.logged.append((tag, value, step))


@pytest.fixture
def without_tensorboard(monkeypatch):
    """The `tensorboard` package cannot be imported (as in graphscope's own environment)."""
    monkeypatch.setitem(sys.modules, "tensorboard", None)


def logged(run):
    observer = Scalars()
    with hooks.observe(observer):
        run()
    return observer.logged


def test_add_scalar_announces_the_number_and_its_step(without_tensorboard, tmp_path):
    writer = SummaryWriter(tmp_path / "run")
    assert logged(
        lambda: (
            writer.add_scalar("loss", gs.tensor(2.5, requires_grad=True) * 2, 0),
            writer.add_scalar("loss", gs.tensor([[0.25]]), np.int64(1)),
            writer.add_scalar("lr", np.float32(0.5), gs.tensor(7)),
            writer.add_scalar("lr", 3),
        )
    ) == [("loss", 5.0, 0), ("loss", 0.25, 1), ("lr", 0.5, 7), ("lr", 3.0, None)]


def test_add_scalars_announces_each_entry_as_main_tag_slash_tag(without_tensorboard, tmp_path):
    writer = SummaryWriter(tmp_path / "run")
    assert logged(lambda: writer.add_scalars("loss", {"train": 1.0, "val": gs.tensor(2.0)}, 4)) == [
        ("loss/train", 1.0, 4),
        ("loss/val", 2.0, 4),
    ]


@pytest.mark.parametrize("value, size, ndim", [(gs.ones(3), 3, 1), (gs.ones(2, 2), 4, 2), (gs.ones(0), 0, 1)])
def test_a_scalar_of_more_or_fewer_than_one_element_fails_as_torch(without_tensorboard, tmp_path, value, size, ndim):
    writer = SummaryWriter(tmp_path / "run")
    expected = f"Tensor should contain one element (0 dimensions). Was given size: {size} and {ndim} dimensions."
    observer = Scalars()
    for log in (lambda: writer.add_scalar("x", value, 0), lambda: writer.add_scalars("x", {"a": 1.0, "b": value})):
        with hooks.observe(observer), pytest.raises(AssertionError) as caught:
            log()
        assert str(caught.value).startswith(expected)
    assert observer.logged == []  # add_scalars checks every entry before logging any


def test_a_value_that_is_no_number_fails_as_torch(without_tensorboard, tmp_path):
    writer = SummaryWriter(tmp_path / "run")
    with pytest.raises(
        NotImplementedError, match=r"^Got <class 'list'>, but numpy array or torch tensor are expected\.$"
    ):
        writer.add_scalar("x", [1.0], 0)
    with pytest.raises(ValueError, match="could not convert string to float: 'high'"):
        writer.add_scalar("x", "high", 0)


def test_an_empty_histogram_fails_as_torch(without_tensorboard, tmp_path):
    writer = SummaryWriter(tmp_path / "run")
    with pytest.raises(ValueError, match=r"^The input has no element\.$"):
        writer.add_histogram("h", gs.ones(0), 0)


def test_without_tensorboard_every_call_works_and_no_file_appears(without_tensorboard, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_lr0.1") as writer:
        writer.add_scalar("loss", 1.0, 0)
        writer.add_scalars("loss", {"a": 1.0}, 0)
        writer.add_histogram("w", gs.randn(10), 0)
        writer.add_histogram("w", np.arange(5.0), 1, bins="auto", max_bins=3)
        writer.add_text("note", "hello", 0)
        writer.flush()
    writer.close()  # a second close does nothing, as torch's
    assert os.listdir(tmp_path) == []
    assert writer.get_logdir().startswith(os.path.join("runs", ""))
    assert writer.get_logdir().endswith("_" + socket.gethostname() + "_lr0.1")


def test_log_dir_is_kept_as_given(without_tensorboard, tmp_path):
    assert SummaryWriter(tmp_path / "exp1", comment="ignored").get_logdir() == tmp_path / "exp1"
    assert SummaryWriter(log_dir="exp2").log_dir == "exp2"
