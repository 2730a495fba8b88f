"""Parameter: a leaf Tensor that a Module registers as one of its trainable weights."""

from __future__ import annotations

from .. import backend, dtypes
from ..tensor import Tensor


class Parameter(Tensor):
    """A Tensor that requires grad by default and is registered when assigned to a Module attribute.

    `Parameter(t)` shares `t`'s storage (and version counter), as in PyTorch.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            device = backend.get_default_device()
            array = backend.create(
                device, "empty", (0,), dtype=backend.native_dtype_for(dtypes.get_default_dtype(), device)
            )
            vc = [0]
        elif isinstance(data, Tensor):
            array, vc = data.array, data._vc
        else:
            base = Tensor(data)
            array, vc = base.array, base._vc
        self = object.__new__(cls)
        self.array = array
        self.grad_fn = None
        self._grad = None
        self._vc = vc
        self.requires_grad = False
        if requires_grad:
            self.requires_grad_(True)
        return self

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happens in __new__

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)
