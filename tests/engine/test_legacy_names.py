"""torch.Size, torch.Tensor(...) forms, the legacy typed constructors and Tensor.type(), as PyTorch."""

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope.engine import library_name


def same(got, expected):
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_array_equal(np.asarray(got), expected.numpy())


def test_shape_and_size_are_sizes_that_behave_as_torch_size():
    x, t = gs.zeros(3, 4), torch.zeros(3, 4)
    for got, expected in (
        (x.shape, t.shape),
        (x.size(), t.size()),
        (x.shape[1:], t.shape[1:]),
        (x.shape + (5,), t.shape + (5,)),
        ((5,) + x.shape, (5,) + t.shape),
        (x.shape * 2, t.shape * 2),
    ):
        assert isinstance(got, gs.Size) and got == expected
    assert x.shape == (3, 4) and x.shape[0] == 3 and x.size(-1) == 4 and x.shape.numel() == 12
    assert gs.Size() == () and gs.Size([2, np.int64(3)]) == (2, 3)


def test_size_prints_under_the_library_name():
    assert repr(gs.zeros(3, 4).shape) == "graphscope.Size([3, 4])" and str(gs.Size([2])) == "graphscope.Size([2])"
    previous = library_name.set_library("torch")
    try:
        assert repr(gs.zeros(3, 4).shape) == repr(torch.zeros(3, 4).shape) == "torch.Size([3, 4])"
        assert repr(gs.Size()) == repr(torch.Size())
        assert repr(gs.float32) == "torch.float32" and str(gs.int64) == "torch.int64"
    finally:
        library_name.set_library(previous)
    assert repr(gs.float32) == "graphscope.float32"


def test_size_errors():
    with pytest.raises(TypeError, match="Size\\(\\) takes an iterable of 'int' \\(item 0 is 'float'\\)"):
        gs.Size([2.5])
    with pytest.raises(IndexError, match="Dimension out of range"):
        gs.zeros(3, 4).size(2)


def test_nelement_is_numel():
    assert gs.zeros(3, 4).nelement() == torch.zeros(3, 4).nelement() == 12


@pytest.mark.parametrize(
    "args", [(2, 3), ([1, 2],), ((2, 3),), ([[1.5, 2], [3, 4]],), (np.array([1, 2]),), (), (0,)], ids=str
)
def test_tensor_constructor_forms(args):
    got, expected = gs.Tensor(*args), torch.Tensor(*args)
    assert tuple(got.shape) == tuple(expected.shape) and got.dtype is gs.float32
    if expected.numel() and args and not isinstance(args[0], int):
        np.testing.assert_array_equal(np.asarray(got), expected.numpy())
    assert not got.requires_grad and got.is_leaf


def test_tensor_constructor_of_a_size_and_of_a_tensor():
    assert gs.Tensor(gs.Size([2, 3])).shape == (2, 3)
    source = gs.tensor([1, 2])
    alias = gs.Tensor(source)
    assert alias.dtype is gs.int64
    source[0] = 5
    assert alias.tolist() == [5, 2]


def test_tensor_constructor_uses_the_default_dtype():
    gs.set_default_dtype(gs.float64)
    try:
        assert gs.Tensor([1, 2]).dtype is gs.float64 and gs.Tensor(2).dtype is gs.float64
    finally:
        gs.set_default_dtype(gs.float32)


@pytest.mark.parametrize(
    "args, error, message",
    [
        ((2.5,), TypeError, "data must be a sequence \\(got float\\)"),
        ((-1,), RuntimeError, "negative dimension -1"),
        ((2, [1]), TypeError, "sizes must be ints"),
        (([[1, 2], [3]],), TypeError, "could not build a tensor"),
    ],
    ids=str,
)
def test_tensor_constructor_errors(args, error, message):
    with pytest.raises(error, match=message):
        gs.Tensor(*args)


LEGACY = [
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "LongTensor",
    "IntTensor",
    "ShortTensor",
    "CharTensor",
    "ByteTensor",
    "BoolTensor",
]


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_constructors_from_data_and_sizes(name):
    if name == "HalfTensor" and gs.get_default_device().type == "strict":
        pytest.skip("array-api-strict has no float16")
    same(getattr(gs, name)([1.7, 0, 2]), getattr(torch, name)([1.7, 0, 2]))
    got, expected = getattr(gs, name)(2, 3), getattr(torch, name)(2, 3)
    assert tuple(got.shape) == tuple(expected.shape) and got.dtype.name == str(expected.dtype).split(".")[-1]


@pytest.mark.parametrize("name", LEGACY)
def test_isinstance_checks_the_dtype(name):
    for dtype in (gs.float32, gs.float64, gs.int64, gs.bool):
        t = gs.zeros(2, dtype=dtype)
        expected = isinstance(torch.zeros(2, dtype=getattr(torch, dtype.name)), getattr(torch, name))
        assert isinstance(t, getattr(gs, name)) == expected


def test_legacy_constructor_of_a_tensor_of_another_dtype_raises():
    with pytest.raises(TypeError, match="expected a float32 tensor, got int64"):
        gs.FloatTensor(gs.zeros(2, dtype=gs.int64))


def test_type_names_and_converts():
    assert gs.zeros(2).type() == "graphscope.FloatTensor"
    assert gs.zeros(2, dtype=gs.int64).type() == "graphscope.LongTensor"
    for spec in (gs.LongTensor, "torch.LongTensor", gs.int64):
        assert gs.zeros(2).type(spec).dtype is gs.int64
    previous = library_name.set_library("torch")
    try:
        assert gs.zeros(2).type() == torch.zeros(2).type() and repr(gs.FloatTensor) == repr(torch.FloatTensor)
    finally:
        library_name.set_library(previous)
    with pytest.raises(ValueError, match=r"invalid type: 'torch\.NoSuchTensor'"):
        gs.zeros(2).type("torch.NoSuchTensor")


def test_tensor_with_a_float64_dtype_keeps_every_digit():
    assert gs.tensor([1.7], dtype=gs.float64).item() == torch.tensor([1.7], dtype=torch.float64).item() == 1.7


def test_a_saved_shape_loads_back_as_a_size_in_both_libraries():
    import io

    buffer = io.BytesIO()
    gs.save({"shape": gs.zeros(3, 4).shape}, buffer)
    buffer.seek(0)
    assert type(gs.load(buffer)["shape"]) is gs.Size
    buffer.seek(0)
    assert torch.load(buffer)["shape"] == torch.Size([3, 4])
