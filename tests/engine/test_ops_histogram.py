"""torch.histogram and torch.histc (functions and Tensor methods) against torch: counts, edges, dtypes, errors."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine.utils.data_reference import same

VALUES = np.array([1.0, 2, 1, 2.5, 4, -1])


def both(values, dtype="float32"):
    return gs.tensor(values, dtype=getattr(gs, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))


def same_histogram(got, expected):
    assert type(got).__name__ == type(expected).__name__ == "histogram"
    same(got.hist, expected.hist, "hist")
    same(got.bin_edges, expected.bin_edges, "bin_edges")


def edges(lib, values, dtype="float32"):
    return lib.tensor(values, dtype=getattr(lib, dtype))


HISTOGRAMS = {
    "4 bins": lambda lib, x: lib.histogram(x, 4),
    "range": lambda lib, x: lib.histogram(x, bins=4, range=(0.0, 3.0)),
    "int range": lambda lib, x: lib.histogram(x, 4, range=[0, 3]),
    "edges": lambda lib, x: lib.histogram(x, edges(lib, [0.0, 1.5, 3.0])),
    "uneven edges": lambda lib, x: lib.histogram(x, edges(lib, [-2.0, 1.0, 1.5, 4.0])),
    "decreasing edges": lambda lib, x: lib.histogram(x, edges(lib, [3.0, 1.5, 0.0])),
    "weight and density": lambda lib, x: lib.histogram(x, 4, weight=lib.arange(6.0), density=True),
    "density": lambda lib, x: lib.histogram(x, 4, density=True),
    "edges, weight, density": lambda lib, x: lib.histogram(
        x, edges(lib, [-2.0, 1.0, 1.5, 4.0]), weight=lib.ones(6) * 2, density=True
    ),
    "equal range": lambda lib, x: lib.histogram(x, 4, range=(1.0, 1.0)),
    "a matrix": lambda lib, x: lib.histogram(x.reshape(2, 3), 3),
    "a matrix weight": lambda lib, x: lib.histogram(x, 3, weight=lib.ones(2, 3)),
    "method": lambda lib, x: x.histogram(3),
    "default bins": lambda lib, x: lib.histogram(x),
}


@pytest.mark.parametrize("case", HISTOGRAMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram_as_torch(case, dtype):
    x, t = both(VALUES, dtype)
    if "weight" in case or "edges" in case:
        x, t = x.to(gs.float32), t.to(torch.float32)
    got = HISTOGRAMS[case](gs, x)
    same_histogram(got, HISTOGRAMS[case](torch, t))
    assert got[0] is got.hist and got[1] is got.bin_edges


@pytest.mark.parametrize("values", [[], [2.0, 2.0], [1.0, float("nan"), 2.0], [0.1, 0.2, 0.3, 0.7, 0.9, 1.0]], ids=str)
def test_histogram_of_empty_constant_and_nan_values_as_torch(values):
    x, t = both(values)
    same_histogram(gs.histogram(x, 10, range=(0.0, 3.0)), torch.histogram(t, 10, range=(0.0, 3.0)))
    if not any(np.isnan(values)):
        same_histogram(gs.histogram(x, 4), torch.histogram(t, 4))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_many_values_and_values_on_the_edges_land_in_torchs_bins(dtype):
    rng = np.random.default_rng(0)
    x, t = both(rng.standard_normal(20000), dtype)
    for bins in (7, 50, 333):
        expected = torch.histogram(t, bins)
        same_histogram(gs.histogram(x, bins), expected)
        on_edges = expected.bin_edges.numpy()  # each edge as a value: which bin each goes to is the test
        same_histogram(gs.histogram(gs.tensor(on_edges), bins), torch.histogram(torch.tensor(on_edges), bins))
        same(gs.histc(x, bins), torch.histc(t, bins))
        same(gs.histc(gs.tensor(on_edges), bins), torch.histc(torch.tensor(on_edges), bins))


HISTCS = {
    "default": lambda lib, x: lib.histc(x),
    "min and max": lambda lib, x: lib.histc(x, bins=4, min=0, max=3),
    "equal min and max": lambda lib, x: lib.histc(x, 4, 1, 1),
    "a tensor bound": lambda lib, x: lib.histc(x, 4, min=lib.tensor(0.0)),
    "a matrix": lambda lib, x: lib.histc(x.reshape(2, 3), 3),
    "method": lambda lib, x: x.histc(4),
    "tenths": lambda lib, x: lib.histc(x / 10, 10, min=0, max=1),
    "just above": lambda lib, x: lib.histc(x, 4, 1, 2.0000001),
}


@pytest.mark.parametrize("case", HISTCS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc_as_torch(case, dtype):
    x, t = both(VALUES, dtype)
    same(HISTCS[case](gs, x), HISTCS[case](torch, t))


@pytest.mark.parametrize("values", [[], [2.0, 2.0], [1.0, float("nan")]], ids=str)
def test_histc_of_empty_constant_and_nan_values_as_torch(values):
    x, t = both(values)
    same(gs.histc(x, 4, min=0, max=2), torch.histc(t, 4, min=0, max=2))
    if not any(np.isnan(values)):
        same(gs.histc(x, 4), torch.histc(t, 4))


def test_neither_has_a_gradient():
    x = gs.tensor(VALUES, dtype=gs.float32, requires_grad=True)
    for out in (*gs.histogram(x, 3), gs.histc(x, 3), *gs.histogram(x, 3, weight=gs.ones(6, requires_grad=True))):
        assert not out.requires_grad and out.grad_fn is None
    assert not torch.histc(torch.tensor(VALUES, requires_grad=True), 3).requires_grad  # torch's histc too


ERRORS = [
    # (call, torch's error type, graphscope's message)
    (lambda lib, x: lib.histogram(x.long(), 4), NotImplementedError, r"histogram\(\) is not implemented for int64"),
    (lambda lib, x: lib.histogram(x, 0), RuntimeError, r"histogram\(\): bins must be > 0, but got 0"),
    (lambda lib, x: lib.histogram(x, -1), RuntimeError, r"histogram\(\): bins must be > 0, but got -1"),
    (lambda lib, x: lib.histogram(x, 4.0), TypeError, r"histogram\(\): bins must be an int .*, not float"),
    (
        lambda lib, x: lib.histogram(x, 4, range=(3.0, 1.0)),
        RuntimeError,
        "min should not exceed max, but got min 3 max 1",
    ),
    (lambda lib, x: lib.histogram(x, 4, range=(0.0, float("inf"))), RuntimeError, r"range \[0, inf\] is not finite"),
    (lambda lib, x: lib.histogram(x * float("nan"), 4), RuntimeError, r"range \[nan, nan\] is not finite"),
    (lambda lib, x: lib.histogram(x, 4, range=(0.0, 1.0, 2.0)), RuntimeError, "range should be .*but got 3"),
    (
        lambda lib, x: lib.histogram(x, lib.tensor([0.0, 1.5, 3.0], dtype=lib.float64)),
        RuntimeError,
        r"the input \(float32\) and the bin edges \(float64\) should have the same dtype",
    ),
    (
        lambda lib, x: lib.histogram(x, lib.tensor([[0.0, 1.5, 3.0]])),
        RuntimeError,
        "bins should be a 1-D tensor of edges, but got 2 dimensions",
    ),
    (lambda lib, x: lib.histogram(x, lib.tensor([1.0])), RuntimeError, "bins must be > 0, but got 0"),
    (
        lambda lib, x: lib.histogram(x, bins=lib.tensor([0.0, 1.0]), range=(0.0, 1.0)),
        TypeError,
        "range= goes with a number of bins, not with a tensor of bin edges",
    ),
    (
        lambda lib, x: lib.histogram(x, 4, weight=lib.ones(5)),
        RuntimeError,
        r"weight should have one value per input value \(6\), but got 5",
    ),
    (
        lambda lib, x: lib.histogram(x, 4, weight=lib.ones(6, dtype=lib.float64)),
        RuntimeError,
        r"the input \(float32\) and weight \(float64\) should have the same dtype",
    ),
    (lambda lib, x: lib.histc(x, 4, 3, 1), RuntimeError, r"histc\(\): max must be larger than min"),
    (lambda lib, x: lib.histc(x, 0), RuntimeError, "bins must be > 0, but got 0"),
    (lambda lib, x: lib.histc(x, 4.0), TypeError, r"histc\(\): bins must be an int \(the number of bins\), not float"),
    (lambda lib, x: lib.histc(x.long(), 4), NotImplementedError, r"histc\(\) is not implemented for int64"),
    (lambda lib, x: lib.histc(x.int(), 4), NotImplementedError, r"histc\(\) is not implemented for int32"),
    (lambda lib, x: lib.histc(x, 4, 0, float("inf")), RuntimeError, r"histc\(\): the range \[0, inf\] is not finite"),
    (lambda lib, x: lib.histc(x * float("nan"), 4), RuntimeError, r"histc\(\): the range \[nan, nan\] is not finite"),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=[e[2] for e in ERRORS])
def test_errors_as_torch(call, error, message):
    x, t = both(VALUES)
    with pytest.raises(error):
        call(torch, t)
    with pytest.raises(error, match=message):
        call(gs, x)
