"""graphscope.autograd: grad, user-defined Functions, gradcheck and anomaly detection (as torch.autograd)."""

from ..grad_mode import enable_grad, no_grad, set_grad_enabled
from .anomaly import detect_anomaly
from .custom import Function, FunctionCtx
from .grad import grad
from .jacobian_check import GradcheckError, gradcheck
from .variable import Variable


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """torch.autograd.backward: call .backward() on each tensor with its grad."""
    from ..tensor import Tensor

    tensors = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)
    grad_tensors = (
        (None,) * len(tensors)
        if grad_tensors is None
        else ((grad_tensors,) if isinstance(grad_tensors, Tensor) else tuple(grad_tensors))
    )
    for n, (t, g) in enumerate(zip(tensors, grad_tensors), 1):
        keep = (create_graph if retain_graph is None else retain_graph) or n < len(tensors)
        t.backward(g, retain_graph=keep, create_graph=create_graph, inputs=inputs)


def variable(*args, **kwargs):
    """torch.autograd.variable: removed from torch long ago; torch 2.13 still answers with this error."""
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")


__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "grad",
    "gradcheck",
    "no_grad",
    "set_grad_enabled",
    "variable",
]
