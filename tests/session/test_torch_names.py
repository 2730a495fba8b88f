"""Under --as-torch every torch name graphscope lacks fails as one UnsupportedTorchName, and graphscope's
NumPy warnings stay quiet; scripts that are not under --as-torch see Python's own errors."""

import sys

import pytest

from tests.graphscope_command import graphscope, script

MESSAGE = (
    "{} is not supported by graphscope yet (this script runs on graphscope's engine because "
    "of --as-torch); see \"The engine's API\" in graphscope's README for the supported names"
)


def failure(run_session, source, **options):
    driver = run_session(source, as_torch=True, pause=False, break_on_nan=False, **options)
    state = driver.done()
    assert state.kind == "failed", state
    return driver.session.record.error


@pytest.mark.parametrize(
    "line, name",
    [
        ("torch.ones(3).stft(4)", "torch.Tensor.stft"),
        ("torch.ones(3).frobnicate()", "torch.Tensor.frobnicate"),
        ("torch.nn.Parameter(torch.ones(3)).frobnicate", "torch.nn.Parameter.frobnicate"),
        ("torch.fft.rfft(torch.ones(4))", "torch.fft"),
        ("torch.cuda.memory_allocated()", "torch.cuda.memory_allocated"),
        ("torch.random.fork_rng()", "torch.random.fork_rng"),
        ("torch.optim.SGD([torch.nn.Parameter(torch.ones(2))], lr=0.1).frobnicate()", "torch.optim.SGD.frobnicate"),
    ],
    ids=[
        "tensor-method",
        "tensor-method-2",
        "parameter-method",
        "module-attribute",
        "namespace-attribute",
        "submodule-attribute",
        "optimizer-method",
    ],
)
def test_a_missing_attribute_is_named(run_session, line, name):
    error = failure(run_session, f"import torch\n{line}\n")
    assert error.type == "UnsupportedTorchName"
    assert error.message == MESSAGE.format(name)
    assert error.site is not None and error.site.line == 2


@pytest.mark.parametrize(
    "line, name",
    [
        ("torch.sum(torch.ones(3), dtype=torch.float64, foo=1)", "torch.sum(foo=...)"),
        ("torch.ones(3).sum(foo=1)", "torch.Tensor.sum(foo=...)"),
        ("torch.nn.Linear(3, 4, device_mesh=None)", "torch.nn.Linear(device_mesh=...)"),
        ("F.relu(torch.ones(3), foo=2)", "torch.nn.functional.relu(foo=...)"),
        ("Linear(3, 4,\n       device_mesh=None)", "torch.nn.Linear(device_mesh=...)"),
        (
            "print(torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1, fused=True))",
            "torch.optim.SGD(fused=...)",
        ),
    ],
    ids=["function", "tensor-method", "class", "functional-alias", "imported-class-two-lines", "nested-call"],
)
def test_an_unknown_keyword_argument_is_named(run_session, line, name):
    error = failure(
        run_session, f"import torch\nimport torch.nn.functional as F\nfrom torch.nn import Linear\n{line}\n"
    )
    assert error.type == "UnsupportedTorchName"
    assert error.message == MESSAGE.format(name)
    assert "UnsupportedTorchName: " + MESSAGE.format(name) in error.traceback


@pytest.mark.parametrize(
    "line, name",
    [
        ("from torch.distributions import Normal", "torch.distributions"),
        ("import torch.distributions", "torch.distributions"),
        ("import torch.optim.swa_utils", "torch.optim.swa_utils"),
        ("from torch.nn import Frobnicate", "torch.nn.Frobnicate"),
        ("from torch import fft", "torch.fft"),
    ],
    ids=[
        "from-distributions",
        "import-distributions",
        "submodule-of-an-alias",
        "from-import-name",
        "from-import-module",
    ],
)
def test_a_missing_module_or_imported_name_is_named(run_session, line, name):
    error = failure(run_session, f"import torch\n{line}\n")
    assert error.type == "UnsupportedTorchName"
    assert error.message == MESSAGE.format(name)


def test_a_missing_module_is_still_an_import_error_the_script_can_catch(run_session):
    driver = run_session(
        """
        import torch
        try:
            from torch.distributions import Normal
        except ImportError as error:
            print("no distributions:", type(error).__name__)
        print(hasattr(torch, "fft"), hasattr(torch.ones(2), "stft"), hasattr(torch.ones(2), "sum"))
    """,
        as_torch=True,
        pause=False,
    )
    assert driver.done().kind == "finished", driver.session.record.error
    assert [line.text for line in driver.session.record.console] == [
        "no distributions: UnsupportedTorchModule",
        "False False True",
    ]


@pytest.mark.parametrize(
    "source, kind",
    [
        ("def f(a):\n    return a\nf(1, foo=2)\n", "TypeError"),
        ("class Net(torch.nn.Module):\n    pass\nNet().fc3\n", "AttributeError"),
        ("torch.ones(2).__frobnicate__\n", "AttributeError"),
        ("import no_such_module_anywhere\n", "ModuleNotFoundError"),
    ],
    ids=["user-function-keyword", "user-module-attribute", "private-tensor-name", "non-torch-import"],
)
def test_the_scripts_own_errors_keep_their_type(run_session, source, kind):
    error = failure(run_session, "import torch\n" + source)
    assert error.type == kind and "not supported by graphscope" not in error.message


def test_without_as_torch_a_missing_tensor_method_is_pythons_attribute_error(run_session):
    driver = run_session("import graphscope as gs\ngs.ones(3).stft(4)\n", pause=False)
    driver.done()
    error = driver.session.record.error
    assert (error.type, error.message) == ("AttributeError", "'Tensor' object has no attribute 'stft'")


OVERFLOWS = """
    import warnings
    warnings.simplefilter("always")  # every warning shown, the engine's own filter overridden
    import numpy as np
    {import_torch}
    w = torch.tensor([3e38, 1.0], requires_grad=True)
    (w * 10).sum().backward()  # overflow in the engine's forward and backward
    print((w * 10 - w * 10).mean())  # inf - inf: invalid value
    np.float32(3e38) * np.float32(10)  # the script's own NumPy overflow
"""


def test_graphscopes_numpy_warnings_are_not_printed_under_as_torch(tmp_path):
    path = script(tmp_path, OVERFLOWS.format(import_torch="import torch"))
    result = graphscope("run", "--headless", "--as-torch", path)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "Warning" in line]
    assert warnings == [f"{path}:9: RuntimeWarning: overflow encountered in scalar multiply"]


def test_graphscopes_numpy_warnings_are_printed_without_as_torch(tmp_path):
    result = graphscope(
        "run", "--headless", script(tmp_path, OVERFLOWS.format(import_torch="import graphscope as torch"))
    )
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "Warning" in line]
    assert any("graphscope" in line and "overflow encountered in multiply" in line for line in warnings)
    assert len(warnings) > 1


def test_the_warning_filter_is_removed_after_the_run(run_session):
    import warnings

    before = warnings.showwarning
    run_session("import torch\n", as_torch=True, pause=False).done()
    assert warnings.showwarning is before
    assert "torch" not in sys.modules or type(sys.modules["torch"]).__name__ != "TorchAlias"


def test_a_headless_run_reports_the_unsupported_name(tmp_path):
    result = graphscope("run", "--headless", "--as-torch", script(tmp_path, "import torch\ntorch.ones(2).sum(foo=1)\n"))
    assert result.returncode == 1
    assert "UnsupportedTorchName: " + MESSAGE.format("torch.Tensor.sum(foo=...)") in result.stderr
