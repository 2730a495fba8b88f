"""Optimizer behaviour: skipped grads, no graph nodes, zero_grad, param groups, state_dict, errors."""

import copy

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope.engine import hooks, nn, optim

ALL = [
    lambda p: optim.SGD(p, lr=0.1, momentum=0.9),
    lambda p: optim.Adam(p, lr=0.1),
    lambda p: optim.AdamW(p, lr=0.1, amsgrad=True),
    lambda p: optim.RMSprop(p, lr=0.1, momentum=0.5, centered=True),
]
IDS = ["sgd", "adam", "adamw", "rmsprop"]


def _loss(model, x):
    return (model(x) ** 2).mean()


@pytest.mark.parametrize("make", ALL, ids=IDS)
def test_step_skips_parameters_without_grad(make):
    model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
    model[0].requires_grad_(False)
    frozen = model[0].weight.detach().cpu().numpy().copy()
    trained = model[1].weight.detach().cpu().numpy().copy()
    opt = make(model.parameters())
    _loss(model, gs.randn(8, 3)).backward()
    assert model[0].weight.grad is None
    opt.step()
    np.testing.assert_array_equal(model[0].weight.detach().cpu().numpy(), frozen)
    assert not np.array_equal(model[1].weight.detach().cpu().numpy(), trained)
    assert model[0].weight not in opt.state


@pytest.mark.parametrize("make", ALL, ids=IDS)
def test_step_records_no_graph_nodes_and_keeps_parameters_leaves(make):
    model = nn.Linear(3, 2)
    opt = make(model.parameters())
    _loss(model, gs.randn(4, 3)).backward()

    class Count(hooks.Observer):
        created = 0

        def node_created(self, *args):
            Count.created += 1

    with hooks.observe(Count()):
        opt.step()
    assert Count.created == 0
    assert all(p.is_leaf and p.requires_grad and p.grad_fn is None for p in model.parameters())


@pytest.mark.parametrize("make", ALL, ids=IDS)
def test_step_updates_in_place_and_bumps_versions(make):
    model = nn.Linear(3, 2)
    opt = make(model.parameters())
    array, version = model.weight.array, model.weight._version
    _loss(model, gs.randn(4, 3)).backward()
    opt.step()
    assert model.weight.array is array
    assert model.weight._version == version + 1


def test_step_after_a_saved_weight_changed_is_caught_by_backward():
    model = nn.Linear(3, 2)
    opt = optim.SGD(model.parameters(), lr=0.1)
    _loss(model, gs.randn(4, 3)).backward()
    loss = _loss(model, gs.randn(4, 3, requires_grad=True))
    opt.step()  # changes the weight the new graph saved
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


@pytest.mark.parametrize("make", ALL, ids=IDS)
def test_state_lives_on_the_parameter_device_and_dtype(make):
    model = nn.Linear(3, 2).double()
    opt = make(model.parameters())
    _loss(model, gs.randn(4, 3, dtype=gs.float64)).backward()
    opt.step()
    for state in opt.state.values():
        for value in state.values():
            if isinstance(value, gs.Tensor):
                assert value.dtype == gs.float64 and value.device == model.weight.device


def test_zero_grad_sets_to_none_or_zero():
    model = nn.Linear(3, 2)
    opt = optim.SGD(model.parameters(), lr=0.1)
    _loss(model, gs.randn(4, 3)).backward()
    opt.zero_grad(set_to_none=False)
    assert all(np.all(p.grad.cpu().numpy() == 0) for p in model.parameters())
    opt.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_step_returns_the_closure_loss():
    model = nn.Linear(3, 1)
    opt = optim.SGD(model.parameters(), lr=0.1)
    x = gs.randn(4, 3)

    def closure():
        opt.zero_grad()
        loss = _loss(model, x)
        loss.backward()
        return loss

    first = opt.step(closure).item()
    assert opt.step(closure).item() < first


def test_param_groups_take_defaults_for_missing_options():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    opt = optim.Adam([{"params": model[0].parameters(), "lr": 0.5}, {"params": model[1].parameters()}], lr=0.01)
    assert [g["lr"] for g in opt.param_groups] == [0.5, 0.01]
    assert opt.param_groups[1]["betas"] == (0.9, 0.999)
    opt.add_param_group({"params": [nn.Parameter(gs.zeros(2))], "lr": 1.0})
    assert len(opt.param_groups) == 3


def test_a_parameter_in_two_groups_is_refused():
    p = nn.Parameter(gs.zeros(2))
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: optim.SGD([], lr=0.1), "empty parameter list"),
        (lambda: optim.SGD([nn.Parameter(gs.zeros(1))], lr=-1), "Invalid learning rate: -1"),
        (lambda: optim.SGD([nn.Parameter(gs.zeros(1))], lr=0.1, nesterov=True), "Nesterov momentum requires"),
        (lambda: optim.Adam([nn.Parameter(gs.zeros(1))], betas=(1.0, 0.9)), "Invalid beta parameter at index 0"),
        (lambda: optim.SGD([(gs.ones(2, requires_grad=True) * 2)], lr=0.1), "non-leaf"),
        (lambda: optim.SGD({nn.Parameter(gs.zeros(1))}, lr=0.1), "ordered collections"),
    ],
)
def test_bad_arguments_give_clear_errors(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


def test_state_dict_round_trip_continues_identically():
    def run(model, opt, steps, x):
        for _ in range(steps):
            opt.zero_grad()
            _loss(model, x).backward()
            opt.step()

    x = gs.randn(8, 3)
    model = nn.Linear(3, 2)
    opt = optim.Adam(model.parameters(), lr=0.05, amsgrad=True)
    run(model, opt, 3, x)
    saved_model, saved_opt = copy.deepcopy(model.state_dict()), copy.deepcopy(opt.state_dict())
    run(model, opt, 3, x)

    clone = nn.Linear(3, 2)
    clone.load_state_dict(saved_model)
    clone_opt = optim.Adam(clone.parameters(), lr=0.9)
    clone_opt.load_state_dict(saved_opt)
    assert clone_opt.param_groups[0]["lr"] == 0.05
    run(clone, clone_opt, 3, x)
    np.testing.assert_allclose(clone.weight.detach().cpu().numpy(), model.weight.detach().cpu().numpy(), rtol=1e-6)


def test_state_dict_layout_matches_torch():
    p = nn.Parameter(gs.zeros(2))
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = gs.ones(2)
    opt.step()
    state = opt.state_dict()
    tp = torch.nn.Parameter(torch.zeros(2))
    topt = torch.optim.SGD([tp], lr=0.1, momentum=0.9)
    tp.grad = torch.ones(2)
    topt.step()
    tstate = topt.state_dict()
    assert set(state) == set(tstate) == {"state", "param_groups"}
    assert list(state["state"]) == list(tstate["state"]) == [0]
    np.testing.assert_allclose(
        state["state"][0]["momentum_buffer"].cpu().numpy(), tstate["state"][0]["momentum_buffer"].cpu().numpy()
    )
    assert state["param_groups"][0]["params"] == [0]


def test_load_state_dict_with_a_different_group_layout_is_refused():
    opt = optim.SGD([nn.Parameter(gs.zeros(1))], lr=0.1)
    other = optim.SGD([nn.Parameter(gs.zeros(1)), nn.Parameter(gs.zeros(1))], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict(other.state_dict())


def test_repr_lists_groups_like_torch():
    p = nn.Parameter(gs.zeros(1))
    text = repr(optim.SGD([p], lr=0.1, momentum=0.9))
    assert text.startswith("SGD (\nParameter Group 0\n") and "    lr: 0.1\n" in text and "    momentum: 0.9\n" in text
