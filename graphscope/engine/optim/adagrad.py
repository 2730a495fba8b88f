"""Adagrad: per-element learning rates from the sum of squared grads, as PyTorch's update rule."""

from __future__ import annotations

from .. import backend
from ..backend import into
from ..tensor import wrap
from .optimizer import Optimizer, nonnegative


class Adagrad(Optimizer):
    """s += g^2; p -= lr / (1 + (t - 1) lr_decay) * g / (sqrt(s) + eps); weight_decay adds wd * p to g."""

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        nonnegative(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            maximize=maximize,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:  # torch fills the state here, not at the first step
            for param in group["params"]:
                self._initial_state(param, group)

    def _initial_state(self, param, group):
        slot = self.state[param]
        slot["step"] = 0
        slot["sum"] = wrap(
            backend.full(param.shape, group["initial_accumulator_value"], param.array.dtype, like=param.array)
        )

    def _update_group(self, group):
        lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
        for param, array, g in self._grads(group, group["weight_decay"]):
            slot = self.state[param]
            if not slot:  # a group added after construction
                self._initial_state(param, group)
            step = slot["step"] = slot["step"] + 1
            clr = lr / (1 + (step - 1) * lr_decay)
            total = slot["sum"].array
            total += g * g
            std = backend.namespace(total).sqrt(total)
            std += eps
            into(std, "divide", g, std)
            std *= clr
            array -= std
