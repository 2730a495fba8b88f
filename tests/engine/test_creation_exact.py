"""Creation makes the requested dtype straight from the exact values (never via float32), and
refuses integers that do not fit exactly as torch 2.13 does: same values, same errors."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.torch_reference import dtype_name

# float16 where the test device has it (the strict array-API device does not)
DTYPES = ["float16"] * (str(gs.get_default_device()) == "cpu") + [
    "float32",
    "float64",
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "bool",
]
VALUES = [
    0.1,
    1 / 3,
    1e308,
    -1e-300,
    2.0**53 + 1,
    65519.0,
    70000.0,
    1e39,
    3,
    -7,
    127,
    2**31 - 1,
    2**53 + 1,
    2**62 + 1,
    -(2**63),
    True,
    2.5,
    -0.0,
]
CREATORS = {
    "tensor": lambda lib, v, d: lib.tensor([v], dtype=d),
    "tensor (scalar)": lambda lib, v, d: lib.tensor(v, dtype=d),
    "tensor (nested)": lambda lib, v, d: lib.tensor([[v], [v]], dtype=d),
    "as_tensor": lambda lib, v, d: lib.as_tensor([v], dtype=d),
    "full": lambda lib, v, d: lib.full((2,), v, dtype=d),
    "full_like": lambda lib, v, d: lib.full_like(lib.zeros(2, dtype=d), v),
}


def _both(make, value, dtype):
    """(graphscope result, torch result), each a tensor or the exception it raised."""
    out = []
    for lib in (gs, torch):
        try:
            out.append(make(lib, value, getattr(lib, dtype)))
        except (RuntimeError, ValueError, OverflowError, TypeError) as error:
            out.append(error)
    return out


@pytest.mark.parametrize("creator", sorted(CREATORS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_creation_function_gives_torchs_exact_value_or_error(creator, dtype):
    for value in VALUES:
        got, expected = _both(CREATORS[creator], value, dtype)
        if isinstance(expected, Exception):
            assert type(got) is type(expected) and str(got) == str(expected), (value, got, expected)
            continue
        assert not isinstance(got, Exception), (value, got)
        assert dtype_name(got.dtype) == dtype_name(expected.dtype)
        np.testing.assert_array_equal(got.cpu().numpy(), expected.numpy(), err_msg=f"{creator}({value!r}, {dtype})")


def test_a_python_float_in_float64_is_that_float():
    assert gs.tensor([0.1], dtype=gs.float64).item() == 0.1
    assert gs.tensor([1e308], dtype=gs.float64).item() == 1e308


@pytest.mark.parametrize("data", [[2**63], [-(2**63) - 1], [2**64], [[1], [2**80]], 2**63, [True, 2**63]], ids=str)
def test_an_integer_beyond_int64_raises_as_torch(data):
    with pytest.raises(ValueError) as expected:
        torch.tensor(data)
    with pytest.raises(ValueError, match=str(expected.value)):
        gs.tensor(data)


def test_an_integer_beyond_int64_is_fine_as_a_float():
    for data in ([2**63], [2**64], [1.5, 2**63]):
        got, expected = gs.tensor(data, dtype=gs.float64), torch.tensor(data, dtype=torch.float64)
        np.testing.assert_array_equal(got.cpu().numpy(), expected.numpy())
    np.testing.assert_array_equal(gs.tensor([1.5, 2**63]).cpu().numpy(), torch.tensor([1.5, 2**63]).numpy())


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1e10, 1e10, 300, -129, -1, -256, 255.9])
def test_a_value_out_of_an_integer_dtypes_range_raises_as_torch(dtype, value):
    got, expected = _both(CREATORS["tensor"], value, dtype)
    if isinstance(expected, Exception):
        assert type(got) is type(expected) and str(got) == str(expected)
    else:
        np.testing.assert_array_equal(got.cpu().numpy(), expected.numpy())
