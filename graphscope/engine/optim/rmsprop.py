"""RMSprop with momentum, centering and weight decay, as PyTorch's update rule."""

from __future__ import annotations

from ..backend import namespace
from .optimizer import Optimizer, nonnegative


class RMSprop(Optimizer):
    """s = alpha s + (1-alpha) g^2; p -= lr * g / (sqrt(s - centered mean^2) + eps), optionally through momentum."""

    def __init__(
        self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, *, maximize=False
    ):
        nonnegative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = dict(
            lr=lr,
            alpha=alpha,
            eps=eps,
            weight_decay=weight_decay,
            momentum=momentum,
            centered=centered,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        momentum, centered = group["momentum"], group["centered"]
        state = self.state
        for param, array, g in self._grads(group, group["weight_decay"]):
            xp = namespace(array)
            slot = state[param]
            if not slot:
                slot["step"] = 0
                slot["square_avg"] = self._zeros_state(param)
                if momentum > 0:
                    slot["momentum_buffer"] = self._zeros_state(param)
                if centered:
                    slot["grad_avg"] = self._zeros_state(param)
            slot["step"] += 1
            square_avg = slot["square_avg"].array
            square_avg *= alpha
            square_avg += (1 - alpha) * (g * g)
            if centered:
                grad_avg = slot["grad_avg"].array
                grad_avg += (1 - alpha) * (g - grad_avg)  # grad_avg.lerp_(g, 1 - alpha)
                avg = xp.sqrt(square_avg - grad_avg * grad_avg)
            else:
                avg = xp.sqrt(square_avg)
            avg += eps
            if momentum > 0:
                buf = slot["momentum_buffer"].array
                buf *= momentum
                buf += g / avg
                array -= lr * buf
            else:
                array -= lr * (g / avg)
