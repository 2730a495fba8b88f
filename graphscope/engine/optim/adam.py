"""Adam and AdamW (decoupled weight decay), with amsgrad, as PyTorch's single-tensor update."""

from __future__ import annotations

import math

from ..backend import into
from .optimizer import Optimizer, nonnegative


class Adam(Optimizer):
    """m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; p -= lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps).

    weight_decay adds wd * p to the grad (L2); AdamW instead shrinks p by (1 - lr * wd) first.
    """

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, maximize=False):
        nonnegative(lr=lr, eps=eps)
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        nonnegative(weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize)
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
        decoupled = self._decoupled
        state = self.state
        for param, array, g in self._grads(group, 0 if decoupled else weight_decay):
            slot = state[param]
            if not slot:
                slot["step"] = 0
                slot["exp_avg"] = self._zeros_state(param)
                slot["exp_avg_sq"] = self._zeros_state(param)
                if amsgrad:
                    slot["max_exp_avg_sq"] = self._zeros_state(param)
            step = slot["step"] = slot["step"] + 1
            if weight_decay and decoupled:
                array *= 1 - lr * weight_decay
            m, v = slot["exp_avg"].array, slot["exp_avg_sq"].array
            tmp = g - m
            tmp *= 1 - beta1
            m += tmp  # m.lerp_(g, 1 - beta1)
            v *= beta2
            into(tmp, "multiply", g, g)
            tmp *= 1 - beta2
            v += tmp
            step_size = lr / (1 - beta1**step)
            bias_correction2_sqrt = math.sqrt(1 - beta2**step)
            if amsgrad:
                v_max = slot["max_exp_avg_sq"].array
                into(v_max, "maximum", v_max, v)
                into(tmp, "sqrt", v_max)
            else:
                into(tmp, "sqrt", v)
            tmp /= bias_correction2_sqrt
            tmp += eps
            into(tmp, "divide", m, tmp)
            tmp *= step_size
            array -= tmp


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): p *= 1 - lr * wd before the Adam step."""

    _decoupled = True

    def __init__(
        self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *, maximize=False
    ):
        super().__init__(
            params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize
        )
