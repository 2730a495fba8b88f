"""Edge cases that torch 2.13 refuses (or allows) and graphscope must do the same: a bool mask of
the wrong shape, an in-place change of a tensor a node saved as its output, writes through `.data`."""

import numpy as np
import pytest
import torch

import graphscope as gs


def _error_or_shape(lib, build):
    try:
        return tuple(build(lib).shape)
    except IndexError as error:
        return str(error)


MASKS = {
    "too short": lambda lib: lib.ones(3)[lib.tensor([True, False])],
    "2-d mask, second dim wrong": lambda lib: lib.ones(3, 4)[lib.ones(3, 5, dtype=lib.bool)],
    "after a slice": lambda lib: lib.ones(3, 4)[:, lib.tensor([True, False, True])],
    "after an ellipsis": lambda lib: lib.ones(3, 4)[..., lib.tensor([True, False, True])],
    "after a new axis": lambda lib: lib.ones(3, 4)[None, lib.tensor([True, False])],
    "a list of bools": lambda lib: lib.ones(3, 4)[[True, False]],
    "after an int": lambda lib: lib.ones(3, 4)[0, lib.tensor([True] * 4)],
    "right shape": lambda lib: lib.ones(3, 4)[lib.tensor([True, False, True])],
    "right shape after a slice": lambda lib: lib.ones(3, 4)[:, lib.tensor([True, False, True, False])],
    "a 0-d mask": lambda lib: lib.ones(3, 4)[lib.tensor(True)],
}


@pytest.mark.parametrize("case", sorted(MASKS))
def test_a_bool_masks_shape_is_checked_as_torch_checks_it(case):
    assert _error_or_shape(gs, MASKS[case]) == _error_or_shape(torch, MASKS[case])


def test_a_wrong_mask_in_an_assignment_is_refused_too():
    x = gs.ones(3)
    with pytest.raises(IndexError, match=r"The shape of the mask \[2\] at index 0 does not match"):
        x[gs.tensor([True, False])] = 0.0


OUTPUT_SAVERS = {
    "exp": lambda lib, x: x.exp(),
    "tanh": lambda lib, x: x.tanh(),
    "sigmoid": lambda lib, x: lib.sigmoid(x),
    "relu": lambda lib, x: lib.relu(x * 2),
    "sqrt": lambda lib, x: (x * x + 1).sqrt(),
    "softmax": lambda lib, x: x.softmax(0),
    "log_softmax": lambda lib, x: x.log_softmax(0),
    "pow (tensor exponent)": lambda lib, x: lib.pow(x * 0 + 2, x),
}
CHANGES = {
    "add_": lambda lib, y: y.add_(1),
    "mul_": lambda lib, y: y.mul_(2),
    "setitem": lambda lib, y: y.__setitem__(0, 5.0),
    "under no_grad": lambda lib, y: _no_grad(lib, lambda: y.add_(1)),
}


def _no_grad(lib, change):
    with lib.no_grad():
        change()


def _backward_after(lib, make, change):
    x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    y = make(lib, x)
    change(lib, y)
    try:
        y.sum().backward()
    except RuntimeError as error:
        return str(error).split(":")[0]
    return x.grad.detach().cpu().numpy().tolist()


@pytest.mark.parametrize("change", sorted(CHANGES))
@pytest.mark.parametrize("op", sorted(OUTPUT_SAVERS))
def test_an_in_place_change_of_a_saved_output_fails_backward_as_in_torch(op, change):
    got = _backward_after(gs, OUTPUT_SAVERS[op], CHANGES[change])
    expected = _backward_after(torch, OUTPUT_SAVERS[op], CHANGES[change])
    assert got == expected
    assert got == "one of the variables needed for gradient computation has been modified by an inplace operation"


def test_the_error_names_the_output_and_the_node():
    x = gs.ones(3, requires_grad=True)
    y = x.exp()
    y.add_(1)
    with pytest.raises(
        RuntimeError,
        match=r"output 0 of ExpBackward0 \(a tensor of shape \(3,\) and dtype "
        r"float32\) is at version 1; expected version 0",
    ):
        y.sum().backward()


def test_a_changed_output_of_an_op_that_does_not_save_it_is_fine():
    got = _backward_after(gs, lambda lib, x: x * 3, CHANGES["add_"])
    assert got == _backward_after(torch, lambda lib, x: x * 3, CHANGES["add_"]) == [3.0, 3.0, 3.0]


@pytest.mark.parametrize("target", ["input", "output"])
def test_a_write_through_data_goes_unseen_by_backward_as_in_torch(target):
    def run(lib):
        w = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = w.exp() if target == "output" else w * w
        (y if target == "output" else w).data.add_(1)
        y.sum().backward()
        return w.grad.detach().cpu().numpy()

    np.testing.assert_allclose(run(gs), run(torch))


def test_data_has_its_own_version_counter_and_detach_shares_it():
    w = gs.ones(2, requires_grad=True)
    w.data.add_(1)
    assert w._version == 0
    w.detach().add_(1)
    assert w._version == 1
    assert w.tolist() == [3.0, 3.0]
