"""Under --as-torch, shapes and dtypes print as torch's, and the legacy and utility names resolve."""

import sys

import graphscope as gs


def test_shapes_dtypes_and_types_print_as_torch_and_the_names_come_back(run_session):
    driver = run_session(
        """
        import torch
        x = torch.zeros(3, 4)
        print(x.shape, x.size(), x.dtype, torch.float64, x.type(), torch.FloatTensor)
    """,
        as_torch=True,
        pause=False,
    )
    state = driver.done()
    assert state.kind == "finished", driver.session.record.error
    assert driver.session.record.console[0].text.startswith(
        "torch.Size([3, 4]) torch.Size([3, 4]) torch.float32 torch.float64 "
        "torch.FloatTensor <class 'torch.FloatTensor'>"
    )
    assert repr(gs.zeros(3, 4).shape) == "graphscope.Size([3, 4])" and repr(gs.float32) == "graphscope.float32"


def test_legacy_and_utility_names_run_unmodified(run_session):
    had_torch = sys.modules.get("torch")
    driver = run_session(
        """
        import torch
        import torch.nn as nn
        import torch.backends.cudnn as cudnn
        from torch.nn.utils import clip_grad_norm_
        torch.backends.cudnn.benchmark = True
        cudnn.deterministic = True
        torch.cuda.manual_seed_all(0)
        device = torch.accelerator.current_accelerator() or "cpu"
        x = torch.FloatTensor([[1, 2], [3, 4]])
        w = torch.Tensor(2, 2).uniform_(-1, 1).requires_grad_()
        loss = torch.linalg.norm(torch.einsum("ij,jk->ik", x, w)) + (x // 2 % 2).sum()
        loss.backward()
        print(clip_grad_norm_([w], 1.0) > 0, torch.backends.cudnn.benchmark, torch.backends.mps.is_available())
        with torch.inference_mode():
            print(x.norm(dim=1, keepdim=True).shape, x.sum(0, keepdims=True).shape)
    """,
        as_torch=True,
        pause=False,
    )
    state = driver.done()
    assert state.kind == "finished", driver.session.record.error
    text = "".join(line.text for line in driver.session.record.console)
    assert "tensor(True) True False" in text and "torch.Size([2, 1]) torch.Size([1, 2])" in text
    assert sys.modules.get("torch") is had_torch


def test_assignments_reach_the_engines_flags_only(run_session):
    driver = run_session(
        """
        import torch
        torch.my_value = 3
        torch.backends.cudnn.allow_tf32 = False
        print(torch.my_value, torch.backends.cudnn.allow_tf32)
    """,
        as_torch=True,
        pause=False,
    )
    try:
        assert driver.done().kind == "finished", driver.session.record.error
        assert driver.session.record.console[0].text.startswith("3 False")
        assert not hasattr(gs, "my_value") and gs.backends.cudnn.allow_tf32 is False
    finally:
        vars(gs.backends.cudnn)["allow_tf32"] = True


PRINTS = """
import torch
x = torch.tensor([204.8, 2048.0, 0.2048], requires_grad=True)
y = (x * 2).sum()
print(x)
print(y, f"{y}", f"{y:.2f}")
print(torch.arange(2000).reshape(40, 50).double())
print(torch.tensor([[1, 2], [3, 4]], dtype=torch.int32), torch.zeros(0, 3), torch.tensor([True, False]))
w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([0.5, -0.5], requires_grad=True)
out = torch.nn.functional.linear(torch.tensor([[1.0, 1.0]]), w, b)
loss = torch.nn.functional.mse_loss(out, torch.zeros(1, 2))
below = loss.grad_fn.next_functions[0][0]
print(loss, loss.grad_fn.name(), below.name(), [type(n).__name__ for n, _ in below.next_functions])
print(below.next_functions[0][0].variable is b, below.next_functions[2][0].name())
torch.set_printoptions(precision=2, linewidth=30)
print(out, out.shape, torch.linspace(0, 1, 9))
"""


def test_a_script_prints_what_it_prints_under_torch(run_session):
    import contextlib
    import io

    import torch

    driver = run_session(PRINTS, as_torch=True, pause=False)
    state = driver.done()
    assert state.kind == "finished", driver.session.record.error
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(PRINTS, {})
    finally:
        torch.set_printoptions(profile="default")
    assert [line.text for line in driver.session.record.console] == printed.getvalue().splitlines()


def test_a_script_logging_with_torchs_summary_writer_fills_the_records_scalars(run_session, tmp_path):
    driver = run_session(
        f"""
        import torch
        from torch.utils.tensorboard import SummaryWriter
        from torch.utils.tensorboard.writer import SummaryWriter as Same
        assert Same is SummaryWriter
        w = torch.nn.Parameter(torch.ones(2))
        optimizer = torch.optim.SGD([w], lr=0.5)
        with SummaryWriter(log_dir={str(tmp_path / "runs")!r}) as writer:
            for step in range(2):
                loss = (w * w).sum()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                writer.add_scalar("Loss/train", loss.item(), step)
    """,
        as_torch=True,
        pause=False,
    )
    state = driver.done()
    assert state.kind == "finished", driver.session.record.error
    series = driver.session.record.training.scalars["Loss/train"]
    assert series.step.tolist() == [0, 1] and series.value.tolist() == [2.0, 0.0]
    assert series.pass_index.tolist() == [1, 2]


def test_a_summary_writer_method_graphscope_does_not_keep_fails_saying_why(run_session, tmp_path):
    driver = run_session(
        f"""
        import torch
        from torch.utils.tensorboard import SummaryWriter
        writer = SummaryWriter({str(tmp_path / "runs")!r})
        writer.add_image("digit", torch.zeros(1, 8, 8), 0)
    """,
        as_torch=True,
        pause=False,
    )
    assert driver.done().kind == "failed"
    error = driver.session.record.error
    assert error.type == "UnsupportedTorchName"
    assert error.message.startswith(
        "torch.utils.tensorboard.SummaryWriter.add_image is not supported by graphscope yet: "
        "graphscope's SummaryWriter logs scalars, histograms and text ("
    )


def test_torch_functional_imports_and_holds_torchs_functions_of_that_module(run_session):
    driver = run_session(
        """
        import torch
        import torch.functional as F
        print(F.einsum is torch.einsum, F.norm is torch.norm, F.split is torch.split, F.unique is torch.unique)
        F.relu(torch.ones(2))
    """,
        as_torch=True,
        pause=False,
    )
    assert driver.done().kind == "failed"
    assert driver.session.record.console[0].text.startswith("True True True True")
    error = driver.session.record.error
    assert error.type == "UnsupportedTorchName" and error.message.startswith("torch.functional.relu is not supported")
