"""Tensors print as torch 2.13 prints them, byte for byte: repr/str of a table of tensors (dtypes,
shapes, magnitudes, NaN/Inf, summarized, autograd suffixes), the print options, and f-strings."""

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope.engine import library_name, printing

RNG = np.random.default_rng(27)
F32 = np.float32


def arr(values, dtype=F32):
    return np.array(values, dtype=dtype)


# name -> the array both libraries print (made once, handed to each library's from_numpy)
ARRAYS = {
    "0-d float": arr(2.4543561935424805),
    "0-d float64": arr(1 / 3, np.float64),
    "0-d int64": arr(7, np.int64),
    "0-d negative int32": arr(-7, np.int32),
    "0-d bool": arr(True, np.bool_),
    "0-d nan": arr(np.nan),
    "0-d negative zero": arr(-0.0),
    "small floats": arr([1.5, -2.25]),
    "one element": arr([3.0]),
    "values spanning orders of magnitude": arr([204.8, 2048.0, 0.2048]),
    "above 1e8": arr([1e9, 1.0]),
    "below 1e-4": arr([1e-5, 0.5]),
    "whole floats": arr([1.0, 2.0, 3.0]),
    "whole floats spanning orders": arr([1.0, 100000.0]),
    "big whole floats": arr([1e20, -3.0], np.float64),
    "tiny float64": arr([1e-300, 1.0], np.float64),
    "nan and inf": arr([np.nan, np.inf, -np.inf, 1.5]),
    "nan, inf and whole": arr([np.nan, np.inf, 2.0]),
    "only nan": arr([np.nan, np.nan]),
    "only inf": arr([np.inf, -np.inf]),
    "zeros": arr([0.0, 0.0, 0.0]),
    "negative zero": arr([-0.0, 0.0, 1.0]),
    "negative zero alone": arr([-0.0]),
    "negatives": arr([-1.25, -100.5, 3.0]),
    "wide span with nan": arr([1e-6, np.nan, 1e6]),
    "int64": arr([1, -20, 300], np.int64),
    "big int64": arr([2**62, -5], np.int64),
    "int32": arr([1, 2, 3], np.int32),
    "int16": arr([-4, 5], np.int16),
    "int8": arr([-128, 127], np.int8),
    "uint8": arr([0, 255, 7], np.uint8),
    "bool": arr([True, False, True], np.bool_),
    "bool matrix": arr([[True, False], [False, False]], np.bool_),
    "float64": arr([0.1, 0.2], np.float64),
    "float16": arr([0.1, 1000.0, -2.5], np.float16),
    "empty": arr([]),
    "empty 0x3": np.zeros((0, 3), F32),
    "empty int64": np.zeros((0,), np.int64),
    "empty 2x0 bool": np.zeros((2, 0), np.bool_),
    "matrix": RNG.standard_normal((3, 4)).astype(F32),
    "3-d": RNG.standard_normal((2, 3, 4)).astype(F32),
    "4-d": RNG.standard_normal((2, 2, 2, 2)).astype(F32),
    "row wrapping at 80 columns": RNG.standard_normal(37).astype(F32),
    "sci rows wrapping": (RNG.standard_normal(23) * 10.0 ** RNG.integers(-6, 6, 23)).astype(F32),
    "wide matrix wrapping": RNG.standard_normal((2, 15)).astype(F32),
    "100 ints": np.arange(-50, 50, dtype=np.int64),
    "1000 elements, not summarized": (np.arange(1000) / 7).astype(F32),
    "1001 elements, summarized": np.arange(1001, dtype=np.int64),
    "summarized 1-d": RNG.standard_normal(2000).astype(F32),
    "summarized 2-d": np.arange(2000, dtype=F32).reshape(40, 50),
    "summarized 3-d": RNG.standard_normal((20, 10, 10)).astype(F32),
    "summarized, short rows": RNG.standard_normal((1001, 1)).astype(F32),
    "uniform times 1000": (RNG.random((5, 5)) * 1000).astype(F32),
}


@pytest.fixture
def torch_names():
    previous = library_name.set_library("torch")
    yield
    library_name.set_library(previous)


@pytest.fixture
def restore_options():
    yield
    printing.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


def both(array, requires_grad=False):
    ours, theirs = gs.from_numpy(array.copy()), torch.from_numpy(array.copy())
    return ours.requires_grad_(requires_grad), theirs.requires_grad_(requires_grad)


@pytest.mark.parametrize("name", ARRAYS)
def test_repr_and_str_are_torchs(name, torch_names):
    ours, theirs = both(ARRAYS[name])
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)


# name -> what is made from a leaf that requires grad (by each library, from the same float array)
AUTOGRAD = {
    "a leaf": lambda lib, x: x,
    "mul": lambda lib, x: x * 2,
    "sum": lambda lib, x: x.sum(),
    "mean": lambda lib, x: x.mean(),
    "exp": lambda lib, x: x.exp(),
    "a float64 non-leaf": lambda lib, x: x.double() * 3,
}


@pytest.mark.parametrize("name", AUTOGRAD)
@pytest.mark.parametrize("source", ["small floats", "matrix", "summarized 2-d", "wide matrix wrapping"])
def test_autograd_suffixes_are_torchs(name, source, torch_names):
    make = AUTOGRAD[name]
    ours, theirs = both(ARRAYS[source], requires_grad=True)
    assert repr(make(gs, ours)) == repr(make(torch, theirs))


def test_a_parameter_prints_as_torchs(torch_names):
    array = ARRAYS["matrix"]
    ours, theirs = gs.nn.Parameter(gs.from_numpy(array.copy())), torch.nn.Parameter(torch.from_numpy(array.copy()))
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)


OPTIONS = [
    {"precision": 2},
    {"precision": 8},
    {"threshold": 5},
    {"edgeitems": 1, "threshold": 10},
    {"edgeitems": 0, "threshold": 10},
    {"linewidth": 40},
    {"linewidth": 200},
    {"sci_mode": True},
    {"sci_mode": False},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "short", "precision": 6},
]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize(
    "source", ["values spanning orders of magnitude", "matrix", "100 ints", "summarized 3-d", "bool", "0-d float"]
)
def test_print_options_are_torchs(options, source, torch_names, restore_options):
    gs.set_printoptions(**options)
    torch.set_printoptions(**options)
    ours, theirs = both(ARRAYS[source])
    assert repr(ours) == repr(theirs)


def test_printoptions_are_restored_by_the_default_profile_but_sci_mode_is_always_set(restore_options):
    gs.set_printoptions(precision=2, sci_mode=True)
    gs.set_printoptions(linewidth=100)
    assert printing.get_printoptions() == {
        "precision": 2,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 100,
        "sci_mode": None,
    }
    gs.set_printoptions(profile="short", sci_mode=False)
    gs.set_printoptions(profile="default")
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()


def test_the_printoptions_block_restores_the_options(restore_options):
    with printing.printoptions(precision=1):
        assert repr(gs.tensor([1.25, 2.5])) == "tensor([1.2, 2.5])"
    assert repr(gs.tensor([1.25, 2.5])) == "tensor([1.2500, 2.5000])"


def test_an_unknown_profile_is_refused(restore_options):
    with pytest.raises(ValueError, match="unknown print profile 'long': use one of 'default', 'short', 'full'"):
        gs.set_printoptions(profile="long")


@pytest.mark.parametrize("spec", ["", ".4f", ".2e", "10.3f", "+", "g"])
@pytest.mark.parametrize("value", [2.4543561935424805, -0.0, 1e-9])
def test_a_0d_tensor_formats_as_its_number(spec, value):
    ours, theirs = both(arr(value), requires_grad=True)
    assert format(ours, spec) == format(theirs, spec) == format(theirs.item(), spec)


@pytest.mark.parametrize("value", [arr(7, np.int64), arr(False, np.bool_)])
def test_a_0d_int_or_bool_tensor_formats_as_its_number(value):
    ours, theirs = both(value)
    assert f"{ours}" == f"{theirs}" and f"{ours:>4}" == f"{theirs:>4}"


def test_other_tensors_format_only_without_a_spec(torch_names):
    ours, theirs = both(ARRAYS["matrix"])
    assert f"{ours}" == f"{theirs}" == repr(theirs)
    for t in (ours, theirs):
        with pytest.raises(TypeError, match=r"unsupported format string passed to Tensor\.__format__"):
            f"{t:.4f}"


def test_a_0d_parameter_formats_only_without_a_spec(torch_names):
    ours, theirs = gs.nn.Parameter(gs.tensor(1.5)), torch.nn.Parameter(torch.tensor(1.5))
    assert f"{ours}" == f"{theirs}"
    for t in (ours, theirs):
        with pytest.raises(TypeError, match=r"unsupported format string passed to Parameter\.__format__"):
            f"{t:.2f}"


@pytest.mark.parametrize("source", ["small floats", "float64", "empty", "0-d float64", "int32"])
def test_the_dtype_suffix_follows_the_default_dtype(source, torch_names):
    gs.set_default_dtype(gs.float64)
    torch.set_default_dtype(torch.float64)
    try:
        ours, theirs = both(ARRAYS[source])
        assert repr(ours) == repr(theirs)
    finally:
        gs.set_default_dtype(gs.float32)
        torch.set_default_dtype(torch.float32)
