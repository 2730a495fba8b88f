"""Compare what graphscope's torch.utils.data returns with what torch's returns, structure and all."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.torch_reference import dtype_name


def same(got, expected, where="result"):
    """The same nesting of containers, with equal tensors (shape, dtype, values) and equal plain values."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, gs.Tensor), f"{where}: expected a tensor, got {type(got).__name__}"
        assert got.shape == tuple(expected.shape), f"{where} shape: {got.shape} != {tuple(expected.shape)}"
        assert dtype_name(got.dtype) == dtype_name(expected.dtype), f"{where} dtype: {got.dtype} != {expected.dtype}"
        np.testing.assert_array_equal(got.cpu().numpy(), expected.numpy(), err_msg=where)
    elif isinstance(expected, dict):
        assert type(got) is type(expected) and list(got) == list(expected), f"{where}: {got!r} != {expected!r}"
        for key in expected:
            same(got[key], expected[key], f"{where}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert type(got) is type(expected), f"{where}: {type(got).__name__} != {type(expected).__name__}"
        assert len(got) == len(expected), f"{where}: length {len(got)} != {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            same(g, e, f"{where}[{i}]")
    else:
        assert type(got) is type(expected) and got == expected, f"{where}: {got!r} != {expected!r}"


def torch_error(call) -> tuple:
    """(type, first line of the message) of the error a torch call raises."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 (any error torch raises is the reference)
        return type(error), str(error).splitlines()[0]
    raise AssertionError("torch raised no error")


def raises_as_torch(gs_call, torch_call, kind=None):
    """graphscope raises `kind` (default: torch's error type), its message starting with torch's."""
    torch_kind, message = torch_error(torch_call)
    with pytest.raises(kind or torch_kind) as caught:
        gs_call()
    assert str(caught.value).startswith(message), f"{caught.value!r} does not start with {message!r}"
