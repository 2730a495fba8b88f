"""Compare a graphscope module with its torch.nn twin: copied weights, the same inputs, every output and grad."""

import numpy as np
import torch

import graphscope as gs

TOL = {"float64": dict(rtol=1e-7, atol=1e-9), "float32": dict(rtol=1e-4, atol=1e-5)}
DTYPES = ["float64", "float32"]


def _copy_weights(gs_module, torch_module, dtype):
    state = {k: v.detach().cpu().numpy().astype(dtype) for k, v in torch_module.state_dict().items()}
    gs_module.load_state_dict(state)
    torch_module.to(getattr(torch, dtype))
    gs_module.to(getattr(gs, dtype))


def compare_module(gs_module, torch_module, inputs, dtype, *, grad_inputs=None, seed=0):
    """Forward both modules on the same inputs; backward a random cotangent; compare all grads."""
    tol = TOL[dtype]
    _copy_weights(gs_module, torch_module, dtype)
    grad_inputs = grad_inputs or [a.dtype.kind == "f" for a in inputs]
    gs_in, torch_in = [], []
    for a, needs in zip(inputs, grad_inputs):
        a = a.astype(dtype) if a.dtype.kind == "f" else a
        gs_in.append(gs.tensor(a.copy(), requires_grad=needs))
        torch_in.append(torch.tensor(a.copy(), requires_grad=needs))
    gs_out, torch_out = gs_module(*gs_in), torch_module(*torch_in)
    assert tuple(gs_out.shape) == tuple(torch_out.shape)
    assert str(gs_out.dtype).split(".")[-1] == str(torch_out.dtype).split(".")[-1]
    np.testing.assert_allclose(gs_out.detach().cpu().numpy(), torch_out.detach().cpu().numpy(), **tol)
    if not torch_out.requires_grad:
        return gs_out
    cotangent = np.random.default_rng(seed).standard_normal(torch_out.shape).astype(dtype)
    gs_out.backward(gs.tensor(cotangent))
    torch_out.backward(torch.tensor(cotangent))
    for g, t in zip(gs_in, torch_in):
        if t.grad is not None:
            np.testing.assert_allclose(g.grad.cpu().numpy(), t.grad.cpu().numpy(), **tol)
    torch_params = dict(torch_module.named_parameters())
    for name, p in gs_module.named_parameters():
        t = torch_params[name]
        if t.grad is None:
            assert p.grad is None, name
        else:
            np.testing.assert_allclose(p.grad.cpu().numpy(), t.grad.cpu().numpy(), err_msg=name, **tol)
    return gs_out
