"""Adagrad, LBFGS, ReduceLROnPlateau, OneCycleLR and gradient clipping follow torch step for step."""

import math

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope.engine import nn, optim
from graphscope.engine.optim import lr_scheduler
from tests.engine.optim.twin_training import STEPS, data, make_pair, train

ADAGRAD = [
    ("adagrad", dict(lr=0.1)),
    ("adagrad_decay", dict(lr=0.2, lr_decay=0.01, weight_decay=0.05)),
    ("adagrad_initial", dict(lr=0.05, initial_accumulator_value=0.1, eps=1e-6)),
    ("adagrad_maximize", dict(lr=0.01, maximize=True)),
]


def _same_parameters(gs_model, torch_model, rtol):
    for (name, gp), (_, tp) in zip(gs_model.named_parameters(), torch_model.named_parameters()):
        np.testing.assert_allclose(
            np.asarray(gp.detach()), tp.detach().numpy(), rtol=rtol, atol=rtol * 1e-3, err_msg=name
        )


@pytest.mark.parametrize("name, options", ADAGRAD, ids=[a[0] for a in ADAGRAD])
def test_adagrad_trajectory_matches_torch_in_float64(name, options):
    gs_model, torch_model = make_pair()
    x, y = data()
    gs_losses = train(gs_model, lambda p: optim.Adagrad(p, **options), gs.tensor(x), gs.tensor(y), gs)
    torch_losses = train(
        torch_model, lambda p: torch.optim.Adagrad(p, **options), torch.tensor(x), torch.tensor(y), torch
    )
    np.testing.assert_allclose(gs_losses, torch_losses, rtol=1e-9, atol=1e-12)
    _same_parameters(gs_model, torch_model, 1e-9)
    if not options.get("maximize"):
        assert gs_losses[-1] < gs_losses[0]


def _float32_pair():
    gs_model, torch_model = make_pair()
    x, y = data()
    return gs_model.float(), torch_model.float(), x.astype(np.float32), y


def test_adagrad_in_float32_tracks_torch():
    gs_model, torch_model, x, y = _float32_pair()
    gs_losses = train(gs_model, lambda p: optim.Adagrad(p, lr=0.1), gs.tensor(x), gs.tensor(y), gs)
    torch_losses = train(torch_model, lambda p: torch.optim.Adagrad(p, lr=0.1), torch.tensor(x), torch.tensor(y), torch)
    np.testing.assert_allclose(gs_losses, torch_losses, rtol=1e-4)


def test_adagrad_state_is_made_at_construction_as_torch():
    param = nn.Parameter(gs.ones(3))
    opt = optim.Adagrad([param], initial_accumulator_value=0.5)
    assert opt.state[param]["step"] == 0 and opt.state[param]["sum"].tolist() == [0.5, 0.5, 0.5]


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(lr=-1), "Invalid learning rate: -1"),
        (dict(lr_decay=-1), "Invalid lr_decay value: -1"),
        (dict(weight_decay=-1), "Invalid weight_decay value: -1"),
        (dict(eps=-1), "Invalid epsilon value: -1"),
        (dict(initial_accumulator_value=-1), "Invalid initial_accumulator_value value: -1"),
    ],
    ids=str,
)
def test_adagrad_rejects_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        optim.Adagrad([nn.Parameter(gs.ones(2))], **options)


# --- LBFGS ------------------------------------------------------------------------------------------


def _lbfgs_run(lib, model, make_optimizer, x, y, steps):
    optimizer = make_optimizer(model.parameters())
    loss_fn = lib.nn.CrossEntropyLoss()
    losses = []

    def closure():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss

    for _ in range(steps):
        losses.append(optimizer.step(closure).item())
    return losses, optimizer


LBFGS = [
    ("plain", dict(lr=0.5, max_iter=5)),
    ("strong_wolfe", dict(lr=1, max_iter=8, line_search_fn="strong_wolfe")),
    ("small_history", dict(lr=0.3, max_iter=6, history_size=3)),
    ("strong_wolfe_history", dict(max_iter=10, history_size=4, line_search_fn="strong_wolfe")),
]


@pytest.mark.parametrize("name, options", LBFGS, ids=[o[0] for o in LBFGS])
def test_lbfgs_trajectory_matches_torch_in_float64(name, options):
    gs_model, torch_model = make_pair()
    x, y = data()
    gs_losses, gs_opt = _lbfgs_run(gs, gs_model, lambda p: optim.LBFGS(p, **options), gs.tensor(x), gs.tensor(y), 8)
    torch_losses, torch_opt = _lbfgs_run(
        torch, torch_model, lambda p: torch.optim.LBFGS(p, **options), torch.tensor(x), torch.tensor(y), 8
    )
    np.testing.assert_allclose(gs_losses, torch_losses, rtol=1e-7, atol=1e-10)
    _same_parameters(gs_model, torch_model, 1e-6)
    gs_state = gs_opt.state[gs_opt.param_groups[0]["params"][0]]
    torch_state = torch_opt.state[torch_opt.param_groups[0]["params"][0]]
    assert (gs_state["func_evals"], gs_state["n_iter"]) == (torch_state["func_evals"], torch_state["n_iter"])
    assert gs_losses[-1] < gs_losses[0]


def test_lbfgs_in_float32_tracks_torch():
    gs_model, torch_model, x, y = _float32_pair()
    options = dict(max_iter=5, line_search_fn="strong_wolfe")
    gs_losses, _ = _lbfgs_run(gs, gs_model, lambda p: optim.LBFGS(p, **options), gs.tensor(x), gs.tensor(y), 3)
    torch_losses, _ = _lbfgs_run(
        torch, torch_model, lambda p: torch.optim.LBFGS(p, **options), torch.tensor(x), torch.tensor(y), 3
    )
    np.testing.assert_allclose(gs_losses, torch_losses, rtol=1e-3)


def test_lbfgs_minimises_the_rosenbrock_function_as_torch():
    def run(lib):
        xy = lib.tensor([-1.5, 2.0], dtype=lib.float64, requires_grad=True)
        opt = (optim if lib is gs else torch.optim).LBFGS([xy], max_iter=50, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        return np.asarray(xy.detach())

    got, expected = run(gs), run(torch)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_allclose(got, [1.0, 1.0], atol=1e-4)


def test_lbfgs_errors():
    params = [nn.Parameter(gs.ones(2))]
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        optim.LBFGS(params, line_search_fn="backtracking")
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        optim.LBFGS([{"params": params}, {"params": [nn.Parameter(gs.ones(1))]}])
    with pytest.raises(RuntimeError, match=r"LBFGS\.step\(\) needs a closure"):
        optim.LBFGS(params).step()
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.LBFGS(params, lr=-1)


# --- schedulers ------------------------------------------------------------------------------------


def _sgd(lib, momentum=0.9):
    return lib.optim.SGD(
        [{"params": [lib.nn.Parameter(lib.zeros(1))]}, {"params": [lib.nn.Parameter(lib.zeros(1))], "lr": 0.3}],
        lr=0.1,
        momentum=momentum,
    )


def _same_in_both(record):
    """record(lib, schedulers) -> rows of numbers, made in graphscope and in torch: they must agree."""
    got, expected = record(gs, lr_scheduler), record(torch, torch.optim.lr_scheduler)
    np.testing.assert_allclose(np.array(got), np.array(expected), rtol=1e-12)


PLATEAU = [
    dict(),
    dict(mode="max", factor=0.5, patience=2),
    dict(patience=1, cooldown=2, min_lr=0.02),
    dict(threshold_mode="abs", threshold=0.05, patience=0, min_lr=[0.001, 0.1]),
    dict(factor=0.5, patience=1, eps=0.04),
]
METRICS = [1.0, 0.9, 0.95, 0.95, 0.96, 0.85, 0.86, 0.87, 0.88, 0.9, 0.91, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3]


@pytest.mark.parametrize("options", PLATEAU, ids=str)
def test_reduce_lr_on_plateau_matches_torch(options):
    def record(lib, schedulers):
        scheduler = schedulers.ReduceLROnPlateau(_sgd(lib), **options)
        rows = []
        for i, metric in enumerate(METRICS):
            scheduler.step(lib.tensor(metric) if i % 2 else metric)  # a float or a 0-d tensor
            rows.append(scheduler.get_last_lr() + [scheduler.num_bad_epochs, scheduler.cooldown_counter])
        return rows

    _same_in_both(record)


def test_reduce_lr_on_plateau_errors():
    opt = _sgd(gs)
    with pytest.raises(ValueError, match=r"Factor should be < 1\.0"):
        lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode avg is unknown"):
        lr_scheduler.ReduceLROnPlateau(opt, mode="avg")
    with pytest.raises(ValueError, match="threshold mode pct is unknown"):
        lr_scheduler.ReduceLROnPlateau(opt, threshold_mode="pct")
    with pytest.raises(ValueError, match="expected 2 min_lrs, got 1"):
        lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1])


ONE_CYCLE = [
    dict(max_lr=1.0, total_steps=20),
    dict(max_lr=[0.5, 2.0], epochs=4, steps_per_epoch=5, anneal_strategy="linear"),
    dict(max_lr=1.0, total_steps=30, three_phase=True, pct_start=0.25),
    dict(max_lr=0.1, total_steps=10, cycle_momentum=False),
    dict(max_lr=0.3, total_steps=12, base_momentum=0.8, max_momentum=0.9, div_factor=10.0, final_div_factor=100.0),
]


@pytest.mark.parametrize("options", ONE_CYCLE, ids=str)
@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_one_cycle_lr_and_momentum_match_torch(options, optimizer):
    def record(lib, schedulers):
        opt = (
            _sgd(lib)
            if optimizer == "sgd"
            else lib.optim.Adam(
                [{"params": [lib.nn.Parameter(lib.zeros(1))]}, {"params": [lib.nn.Parameter(lib.zeros(1))]}], lr=0.1
            )
        )
        scheduler = schedulers.OneCycleLR(opt, **options)
        rows = []
        for _ in range(options.get("total_steps") or options["epochs"] * options["steps_per_epoch"]):
            momenta = [g["momentum"] if optimizer == "sgd" else g["betas"][0] for g in opt.param_groups]
            rows.append(scheduler.get_last_lr() + momenta)
            opt.step()
            scheduler.step()
        return rows

    _same_in_both(record)


def test_one_cycle_errors():
    opt = _sgd(gs)
    with pytest.raises(ValueError, match="You must define either total_steps OR \\(epochs AND steps_per_epoch\\)"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0)
    with pytest.raises(ValueError, match="Expected positive integer total_steps, but got 0"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=0)
    with pytest.raises(ValueError, match="Expected float between 0 and 1 pct_start, but got 2"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5, pct_start=2)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5, anneal_strategy="step")
    with pytest.raises(ValueError, match=r"max_lr must have the same length as optimizer\.param_groups"):
        lr_scheduler.OneCycleLR(opt, max_lr=[1.0], total_steps=5)
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        lr_scheduler.OneCycleLR(optim.Adagrad([nn.Parameter(gs.ones(1))]), max_lr=1.0, total_steps=5)
    scheduler = lr_scheduler.OneCycleLR(_sgd(gs), max_lr=1.0, total_steps=2)
    scheduler.step()
    scheduler.step()
    with pytest.raises(ValueError, match=r"Tried to step 3 times\. The specified number of total steps is 2"):
        scheduler.step()


def test_lambda_lr_with_adam_trains_as_torch():
    gs_model, torch_model = make_pair()
    x, y = data()
    losses = []
    for lib, model, t, schedulers in (
        (gs, gs_model, gs.tensor, lr_scheduler),
        (torch, torch_model, torch.tensor, torch.optim.lr_scheduler),
    ):
        opt_module = optim if lib is gs else torch.optim
        opt = opt_module.Adam(model.parameters(), lr=0.02)
        scheduler = schedulers.LambdaLR(opt, lambda epoch: 0.9**epoch)
        run = []
        for _ in range(STEPS // 5):
            opt.zero_grad()
            loss = lib.nn.CrossEntropyLoss()(model(t(x)), t(y))
            loss.backward()
            opt.step()
            scheduler.step()
            run.append(loss.item())
        losses.append(run)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-9)


# --- gradient clipping ------------------------------------------------------------------------------


def _grads_pair(seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (4,), (2, 2, 2)]
    values = [rng.standard_normal(s) * 3 for s in shapes]
    grads = [rng.standard_normal(s) * 2 for s in shapes]
    made = []
    for lib in (gs, torch):
        params = [lib.nn.Parameter(lib.tensor(v)) for v in values]
        for p, g in zip(params, grads):
            p.grad = lib.tensor(g)
        made.append(params)
    return made


@pytest.mark.parametrize(
    "max_norm, norm_type", [(1.0, 2.0), (100.0, 2.0), (0.5, 1), (2.0, math.inf), (1.0, 3.0)], ids=str
)
def test_clip_grad_norm_matches_torch(max_norm, norm_type):
    gs_params, torch_params = _grads_pair()
    got = gs.nn.utils.clip_grad_norm_(gs_params, max_norm, norm_type=norm_type)
    expected = torch.nn.utils.clip_grad_norm_(torch_params, max_norm, norm_type=norm_type)
    assert isinstance(got, gs.Tensor) and got.shape == ()
    np.testing.assert_allclose(got.item(), expected.item(), rtol=1e-12)
    for g, t in zip(gs_params, torch_params):
        np.testing.assert_allclose(np.asarray(g.grad), t.grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_of_one_tensor_and_of_no_grads():
    gs_params, torch_params = _grads_pair()
    np.testing.assert_allclose(
        gs.nn.utils.clip_grad_norm_(gs_params[0], 1.0).item(),
        torch.nn.utils.clip_grad_norm_(torch_params[0], 1.0).item(),
        rtol=1e-12,
    )
    assert gs.nn.utils.clip_grad_norm_([nn.Parameter(gs.ones(2))], 1.0).item() == 0.0


def test_clip_grad_norm_refuses_a_non_finite_norm_when_asked():
    param = nn.Parameter(gs.ones(2))
    param.grad = gs.tensor([math.inf, 1.0])
    with pytest.raises(
        RuntimeError, match=r"The total norm of order 2\.0 for gradients from `parameters` is non-finite"
    ):
        gs.nn.utils.clip_grad_norm_([param], 1.0, error_if_nonfinite=True)


@pytest.mark.parametrize("clip_value", [0.5, 3.0])
def test_clip_grad_value_matches_torch(clip_value):
    gs_params, torch_params = _grads_pair(1)
    assert gs.nn.utils.clip_grad_value_(gs_params, clip_value) is None
    torch.nn.utils.clip_grad_value_(torch_params, clip_value)
    for g, t in zip(gs_params, torch_params):
        np.testing.assert_array_equal(np.asarray(g.grad), t.grad.numpy())
