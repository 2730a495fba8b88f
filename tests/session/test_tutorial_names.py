"""Under --as-torch, the names that old and public PyTorch tutorials use resolve as torch's (issue 27)."""


def console_of(run_session, source):
    """The text a script printed under --as-torch; it must finish."""
    driver = run_session(source, as_torch=True, pause=False)
    assert driver.done().kind == "finished", driver.session.record.error
    return "".join(line.text for line in driver.session.record.console)


def test_variable_from_both_of_its_modules(run_session):
    text = console_of(
        run_session,
        """
        import torch
        from torch.autograd import Variable
        from torch.autograd.variable import Variable as Same
        x = Variable(torch.ones(2), requires_grad=True)
        (x * 3).sum().backward()
        print(Same is Variable, isinstance(x, Variable), x.grad.tolist(), callable(torch.autograd.variable))
    """,
    )
    assert "True True [3.0, 3.0] True" in text


def test_a_loader_with_workers_runs_in_the_script(run_session):
    text = console_of(
        run_session,
        """
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        loader = DataLoader(TensorDataset(torch.arange(5.0)), batch_size=2, num_workers=2, pin_memory=False,
                            persistent_workers=True)
        print([x.tolist() for x, in loader], loader.prefetch_factor)
    """,
    )
    assert "[[0.0, 1.0], [2.0, 3.0], [4.0]] 2" in text


def test_onnx_imports_and_its_export_is_unsupported_at_the_call(run_session):
    driver = run_session(
        """
        import torch
        import torch.onnx
        model = torch.nn.Linear(2, 1)
        print("trained", torch.onnx.is_in_onnx_export())
        torch.onnx.export(model, torch.zeros(1, 2), "model.onnx")
        print("not reached")
    """,
        as_torch=True,
        pause=False,
    )
    assert driver.done().kind == "failed"
    error = driver.session.record.error
    assert error.type == "UnsupportedTorchName" and error.site.line == 6
    assert error.message.startswith("torch.onnx.export is not supported by graphscope yet")
    assert "".join(line.text for line in driver.session.record.console) == "trained False"


def test_a_script_saves_a_numpy_array_and_a_whole_model(run_session, tmp_path):
    text = console_of(
        run_session,
        f"""
        import numpy as np
        import torch
        model = torch.nn.Sequential(torch.nn.Linear(2, 1))
        torch.save(np.arange(3.0), {str(tmp_path / "array.pt")!r})
        torch.save(model, {str(tmp_path / "model.pt")!r})
        print(torch.load({str(tmp_path / "array.pt")!r}, weights_only=False).tolist())
    """,
    )
    assert "[0.0, 1.0, 2.0]" in text and (tmp_path / "model.pt").stat().st_size > 0
