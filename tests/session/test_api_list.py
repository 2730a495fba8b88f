"""The README's list of supported names is generated from the code, grouped as PyTorch's docs group it."""

import types

import pytest

import graphscope
from graphscope.engine.nn import functional
from graphscope.readme_section import README
from graphscope.session import api_list

REGENERATE = "python -m graphscope.session.api_list --write"


def test_the_readme_list_is_up_to_date():
    with open(README, encoding="utf-8") as f:
        text = f.read()
    assert api_list.replaced(text) == text, (
        f"README.md's supported-API list is out of date: run `{REGENERATE}` and commit README.md"
    )


def group_of_each_name():
    return {(prefix, name): title for title, (prefix, names) in api_list.groups().items() for name in names}


def test_every_supported_name_is_listed_once():
    listed = group_of_each_name()
    names = [f"{prefix}.{name}" for prefix, name in listed if prefix != "torch.Tensor" or name.isidentifier()]
    assert sorted(names) == sorted(api_list.supported())
    assert len(names) == len(set(names))


@pytest.mark.parametrize(
    "prefix, name, title",
    [
        ("torch", "Tensor", "Tensors"),
        ("torch.Tensor", "sum", "Tensor methods"),
        ("torch.Tensor", "shape", "Tensor attributes"),
        ("torch.Tensor", "@", "Tensor operators"),
        ("torch", "float32", "dtypes and devices"),
        ("torch", "cuda.is_available", "dtypes and devices"),
        ("torch", "zeros", "Creation ops"),
        ("torch", "cat", "Indexing, slicing, joining, mutating ops"),
        ("torch", "randn", "Random sampling"),
        ("torch", "manual_seed", "Random sampling"),
        ("torch", "exp", "Math operations: pointwise"),
        ("torch", "sum", "Math operations: reduction"),
        ("torch", "logsumexp", "Math operations: reduction"),
        ("torch", "eq", "Math operations: comparison"),
        ("torch", "matmul", "Math operations: BLAS and LAPACK"),
        ("torch", "no_grad", "Locally disabling gradient computation"),
        ("torch.autograd", "grad", "Autograd"),
        ("torch.nn", "Sequential", "Containers"),
        ("torch.nn", "ReLU", "Non-linear activations"),
        ("torch.nn", "Linear", "Linear layers"),
        ("torch.nn", "LayerNorm", "Normalization layers"),
        ("torch.nn", "TransformerEncoderLayer", "Transformer layers"),
        ("torch.nn", "MultiheadAttention", "Non-linear activations"),
        ("torch.nn", "CrossEntropyLoss", "Loss functions"),
        ("torch.nn.functional", "cross_entropy", "nn.functional"),
        ("torch.optim", "Adam", "Optimizers"),
        ("torch.optim.lr_scheduler", "StepLR", "Learning-rate schedulers"),
    ],
)
def test_names_are_grouped_as_pytorchs_docs(prefix, name, title):
    assert group_of_each_name()[(prefix, name)] == title


def test_groups_come_in_pytorchs_docs_order():
    titles = list(api_list.groups())
    assert titles.index("Tensors") < titles.index("Creation ops") < titles.index("Random sampling")
    assert titles.index("Math operations: other") < titles.index("Autograd") < titles.index("Containers")
    assert titles.index("Linear layers") < titles.index("nn.functional") < titles.index("Loss functions")
    assert titles.index("Optimizers") < titles.index("Learning-rate schedulers")


def test_a_name_added_to_a_module_is_listed(monkeypatch):
    def frobnicate(input):
        return input

    monkeypatch.setattr(functional, "frobnicate", frobnicate, raising=False)
    monkeypatch.setattr(functional, "__all__", [*functional.__all__, "frobnicate"])
    assert group_of_each_name()[("torch.nn.functional", "frobnicate")] == "nn.functional"
    assert "`frobnicate`" in api_list.render()


def test_a_name_from_an_unknown_engine_module_is_listed_under_other(monkeypatch):
    frobnicate = types.FunctionType((lambda: None).__code__, {}, "frobnicate")
    frobnicate.__module__ = "graphscope.engine.frobnication"
    monkeypatch.setattr(graphscope, "frobnicate", frobnicate, raising=False)
    assert group_of_each_name()[("torch", "frobnicate")] == "Other"
    assert list(api_list.groups())[-1] == "Other"


def test_a_readme_without_markers_says_what_to_add():
    with pytest.raises(ValueError, match="README has no api-list markers: add the two lines"):
        api_list.replaced("# a README\n")
