"""torch.autograd.Variable, the pre-0.4 wrapper kept for old scripts: it makes a detached Tensor."""

from __future__ import annotations

import operator
import warnings

from .. import backend, dtypes
from ..function import Function as Node
from ..tensor import Tensor, wrap
from .custom import CustomNode

__all__ = ["Variable"]

VOLATILE_WARNING = "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."


class VariableMeta(type):
    """`isinstance(t, Variable)` is true of every Tensor, and calling Variable makes a Tensor, as torch's."""

    def __instancecheck__(cls, other: object) -> bool:
        return isinstance(other, Tensor)

    def __call__(
        cls,
        data: object = None,
        requires_grad: object = False,
        volatile: object = False,
        _grad_fn: object = None,
        name: object = None,
    ) -> Tensor:
        """Variable(data, requires_grad, volatile, _grad_fn, name): `data` detached (sharing its storage),
        with requires_grad set; no data gives an empty tensor of the default dtype."""
        requires_grad, volatile = operator.index(requires_grad), operator.index(volatile)  # type: ignore[arg-type]
        if name is not None and not isinstance(name, str):
            raise TypeError(f"argument 5 must be str or None, not {type(name).__name__}")
        if volatile:
            warnings.warn(VOLATILE_WARNING, UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if _grad_fn is not None:
            if not isinstance(_grad_fn, CustomNode):  # torch's check: a node of a Python Function
                kind = _grad_fn.name() if isinstance(_grad_fn, Node) else type(_grad_fn).__name__  # MulBackward0
                raise TypeError(f"_grad_fn has to be a Function object or None, but got {kind}")
            raise RuntimeError(
                "_grad_fn argument to legacy Variable constructor is no longer supported.  Instead, please "
                "invoke your _grad_fn to produce a variable with it as the _grad_fn."
            )
        if data is None:
            device = backend.get_default_device()
            native = backend.native_dtype_for(dtypes.get_default_dtype(), device)
            out = wrap(backend.create(device, "empty", (0,), dtype=native))
        elif isinstance(data, Tensor):
            out = Tensor.detach(data)  # a Parameter's data comes back as a plain Tensor, as in torch
        else:
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if name is not None:
            out.name = name
        return out.requires_grad_(bool(requires_grad))


class Variable(metaclass=VariableMeta):
    """torch.autograd.Variable: `Variable(t)` is `t.detach()`; `requires_grad=True` makes it a leaf that
    requires grad; `volatile=` warns and is ignored (use `no_grad()`)."""
