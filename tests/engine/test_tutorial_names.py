"""Every torch name PyTorch's runnable tutorials use is graphscope's, or fails as a declared UnsupportedTorchName
with its reason (the names: tutorial_names.txt, written by `python -m tests.engine.tutorial_names`)."""

import pytest

from graphscope.engine.unsupported import DECLARED, UnsupportedTorchName, declared_reason, unsupported
from graphscope.session.torch_alias import TorchAliases
from tests.engine.tutorial_names import read_names, standing

NAMES = read_names()


def test_the_list_holds_the_scanned_tutorials_names():
    assert len(NAMES) == len(set(NAMES)) > 150
    assert {"torch.nn.Linear", "torch.optim.SGD", "torch.nn.functional.relu", "torch.utils.data.DataLoader"} <= set(
        NAMES
    )


@pytest.mark.parametrize("name", NAMES)
def test_a_tutorials_name_is_graphscopes_or_declared_unsupported(name):
    kind, prefix = standing(name)
    assert kind in ("present", "unsupported"), f"{name}: graphscope lacks {prefix} and does not declare it"


def test_a_declared_name_fails_at_use_with_its_reason():
    with TorchAliases():
        import torch

        with pytest.raises(UnsupportedTorchName) as caught:
            torch.jit.script  # noqa: B018 (the attribute's lookup is what fails)
    message = str(caught.value)
    assert message.startswith(f"torch.jit is not supported by graphscope yet: {DECLARED['torch.jit']} (")
    assert message == str(unsupported("torch.jit"))


def test_a_name_under_a_declared_one_has_its_reason_and_others_have_none():
    assert declared_reason("torch.nn.utils.prune.l1_unstructured") == DECLARED["torch.nn.utils.prune"]
    assert declared_reason("torch.onnx.export(dynamo=...)") == DECLARED["torch.onnx"]
    assert declared_reason("torch.fft") is None
    assert declared_reason("torch.nn.utils.pruned") is None
