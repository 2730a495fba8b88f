"""Learning-rate schedulers give the same lr sequence as torch's."""

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope.engine import nn, optim
from graphscope.engine.optim import lr_scheduler

SCHEDULERS = [
    ("step", lambda lib, opt: lib.StepLR(opt, step_size=3, gamma=0.5)),
    ("multistep", lambda lib, opt: lib.MultiStepLR(opt, milestones=[2, 5, 5, 9], gamma=0.3)),
    ("exponential", lambda lib, opt: lib.ExponentialLR(opt, gamma=0.9)),
    ("lambda", lambda lib, opt: lib.LambdaLR(opt, lambda epoch: 1 / (1 + epoch))),
    ("lambda_per_group", lambda lib, opt: lib.LambdaLR(opt, [lambda e: 0.9**e, lambda e: 1.0 + e])),
    ("cosine", lambda lib, opt: lib.CosineAnnealingLR(opt, T_max=6, eta_min=0.01)),
]


def _sequence(lib, make_optimizer, make_scheduler, steps=15):
    opt = make_optimizer()
    scheduler = make_scheduler(lib, opt)
    lrs = [scheduler.get_last_lr()]
    for _ in range(steps):
        opt.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr())
        assert [g["lr"] for g in opt.param_groups] == lrs[-1]
    return lrs


@pytest.mark.parametrize("name, make", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_schedule_matches_torch(name, make):
    def gs_opt():
        return optim.SGD(
            [{"params": [nn.Parameter(gs.zeros(1))]}, {"params": [nn.Parameter(gs.zeros(1))], "lr": 0.3}], lr=0.1
        )

    def torch_opt():
        return torch.optim.SGD(
            [
                {"params": [torch.nn.Parameter(torch.zeros(1))]},
                {"params": [torch.nn.Parameter(torch.zeros(1))], "lr": 0.3},
            ],
            lr=0.1,
        )

    got = _sequence(lr_scheduler, gs_opt, make)
    expected = _sequence(torch.optim.lr_scheduler, torch_opt, make)
    np.testing.assert_allclose(np.array(got), np.array(expected), rtol=1e-12)


def test_scheduler_sets_initial_lr_and_state_dict_round_trips():
    opt = optim.SGD([nn.Parameter(gs.zeros(1))], lr=1.0)
    scheduler = lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    assert opt.param_groups[0]["initial_lr"] == 1.0
    for _ in range(3):
        scheduler.step()
    state = scheduler.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 3
    other = lr_scheduler.StepLR(optim.SGD([nn.Parameter(gs.zeros(1))], lr=1.0), step_size=5)
    other.load_state_dict(state)
    assert other.step_size == 2 and other.last_epoch == 3


def test_resuming_without_initial_lr_is_refused():
    opt = optim.SGD([nn.Parameter(gs.zeros(1))], lr=1.0)
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.StepLR(opt, step_size=2, last_epoch=4)
