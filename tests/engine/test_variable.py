"""torch.autograd.Variable and torch.autograd.variable, as torch 2.13 keeps them for old scripts."""

import warnings

import numpy as np
import pytest
import torch
from torch.autograd import Variable as TorchVariable

import graphscope as gs
from graphscope.autograd import Variable


def test_variable_is_a_detached_tensor_sharing_storage():
    for lib, V in ((gs, Variable), (torch, TorchVariable)):
        t = lib.ones(2)
        v = V(t)
        assert v is not t and not v.requires_grad and type(v) is lib.Tensor
        v[0] = 5
        assert t.tolist() == [5.0, 1.0]
        assert isinstance(t, V) and not isinstance(3, V)


def test_requires_grad_makes_a_leaf_and_leaves_the_original_alone():
    for lib, V in ((gs, Variable), (torch, TorchVariable)):
        t = lib.tensor([1.0, 2.0, 3.0])
        x = V(t, requires_grad=True)
        assert x.requires_grad and x.is_leaf and not t.requires_grad
        (x * x).sum().backward()
        np.testing.assert_array_equal(np.asarray(x.grad.tolist()), [2.0, 4.0, 6.0])
        y = V(t * 2, True)  # positional, as the old tutorials write it
        assert y.requires_grad and y.is_leaf


def test_variable_of_a_result_detaches_it():
    for lib, V in ((gs, Variable), (torch, TorchVariable)):
        z = V(lib.ones(2, requires_grad=True) * 2)
        assert not z.requires_grad and z.grad_fn is None


def test_variable_of_a_parameter_is_a_plain_tensor_and_no_data_is_empty():
    assert type(Variable(gs.nn.Parameter(gs.ones(1)))) is gs.Tensor
    assert type(TorchVariable(torch.nn.Parameter(torch.ones(1)))) is torch.Tensor
    got, expected = Variable(), TorchVariable()
    assert tuple(got.shape) == tuple(expected.shape) == (0,) and got.dtype is gs.float32


def test_volatile_warns_as_torch_and_is_ignored():
    for lib, V in ((gs, Variable), (torch, TorchVariable)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            v = V(lib.ones(2), volatile=True)
        assert [str(w.message) for w in caught] == [
            "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."
        ]
        assert caught[0].category is UserWarning and caught[0].filename == __file__
        assert not v.requires_grad
        refused = pytest.raises(ValueError, match="Variable can't be volatile and require_grad at the same time!")
        with refused, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            V(lib.ones(2), requires_grad=True, volatile=True)


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        ((3,), {}, TypeError, "Variable data has to be a tensor, but got int"),
        (("ones",), {"requires_grad": "x"}, TypeError, "'str' object cannot be interpreted as an integer"),
        (("ones",), {"name": 3}, TypeError, "argument 5 must be str or None, not int"),
        (("ones",), {"_grad_fn": 4}, TypeError, "_grad_fn has to be a Function object or None, but got int"),
        (("int",), {"requires_grad": True}, RuntimeError, "Only Tensors of floating point"),
        (("ones",), {"foo": 1}, TypeError, "'foo'"),
    ],
)
def test_errors_as_torch(args, kwargs, error, message):
    for lib, V in ((gs, Variable), (torch, TorchVariable)):
        data = {"ones": lib.ones(2), "int": lib.ones(2, dtype=lib.int64)}
        with pytest.raises(error, match=message):
            V(*(data.get(a, a) for a in args), **kwargs)


def test_a_grad_fn_is_refused_as_torch():
    for lib, V in ((gs, Variable), (torch, TorchVariable)):

        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        y = Double.apply(lib.ones(2, requires_grad=True))
        with pytest.raises(RuntimeError, match="_grad_fn argument to legacy Variable constructor is no longer"):
            V(lib.ones(2), _grad_fn=y.grad_fn)
        with pytest.raises(TypeError, match="_grad_fn has to be a Function object or None, but got MulBackward0"):
            V(lib.ones(2), _grad_fn=(lib.ones(2, requires_grad=True) * 2).grad_fn)


def test_name_is_kept_as_torch():
    assert Variable(gs.ones(2), name="abc").name == TorchVariable(torch.ones(2), name="abc").name == "abc"


def test_the_lowercase_variable_function_errors_as_torch():
    for lib in (gs, torch):
        with pytest.raises(RuntimeError, match=r"^torch.autograd.variable\(...\) is deprecated, use torch.tensor"):
            lib.autograd.variable(1)
