"""SGD with momentum, dampening, Nesterov and weight decay (PyTorch's update rule)."""

from __future__ import annotations

from .optimizer import Optimizer, nonnegative, required


class SGD(Optimizer):
    """p -= lr * d, where d is the grad (plus weight decay), or its momentum buffer.

    buf = momentum * buf + (1 - dampening) * g (buf = g on the first step);
    d = g + momentum * buf with nesterov, else buf.
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False):
        if lr is not required:
            nonnegative(lr=lr)
        nonnegative(momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, momentum, dampening, nesterov = group["lr"], group["momentum"], group["dampening"], group["nesterov"]
        state = self.state
        for param, array, d in self._grads(group, group["weight_decay"]):
            if momentum:
                slot = state[param]
                buf = slot.get("momentum_buffer")
                if buf is None:
                    buf = slot["momentum_buffer"] = _copy(d)
                    buf_array = buf.array
                else:
                    buf_array = buf.array
                    buf_array *= momentum
                    buf_array += (1 - dampening) * d if dampening else d
                d = d + momentum * buf_array if nesterov else buf_array
            array -= lr * d


def _copy(array):
    from ..backend import copy
    from ..tensor import wrap

    return wrap(copy(array))
