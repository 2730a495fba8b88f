"""Helpers for the CNN layer tests: run one functional op in graphscope and torch, compare errors."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphscope as gs
import graphscope.nn.functional as F
from tests.engine.torch_reference import check


def check_functional(name, specs, *args, requires_grad=None, dtypes=("float64", "float32"), seed=0, **kwargs):
    """F.<name>(*inputs, *args, **kwargs) against torch's: forward, dtype, shape and every grad."""
    check(
        lambda *t: getattr(F, name)(*t, *args, **kwargs),
        specs,
        lambda *t: getattr(TF, name)(*t, *args, **kwargs),
        requires_grad=requires_grad,
        dtypes=dtypes,
        seed=seed,
    )


def same_error(call, *shapes, dtype="float32"):
    """call(F, *inputs) raises the same exception type and message in graphscope as in torch."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(shape).astype(dtype) for shape in shapes]
    with pytest.raises(Exception) as expected:
        call(TF, *[torch.tensor(a) for a in arrays])
    with pytest.raises(type(expected.value)) as got:
        call(F, *[gs.tensor(a) for a in arrays])
    assert str(got.value) == str(expected.value)
