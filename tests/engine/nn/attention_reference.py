"""Run the same attention (a function or a module with torch's weights) in graphscope and torch, compare all."""

import numpy as np
import torch

import graphscope as gs
from tests.engine.nn.module_reference import TOL


def assert_close(got, expected, dtype, what):
    """A graphscope result equal to torch's: shape, dtype and values (NaN where torch has NaN)."""
    assert tuple(got.shape) == tuple(expected.shape), f"{what} shape: {tuple(got.shape)} != {tuple(expected.shape)}"
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], f"{what} dtype"
    np.testing.assert_allclose(got.detach().cpu().numpy(), expected.detach().cpu().numpy(), err_msg=what, **TOL[dtype])


def copy_torch_weights(gs_module, torch_module, dtype):
    """torch's weights, moved away from their init (so a misplaced one cannot pass), loaded into gs_module."""
    with torch.no_grad():
        for p in torch_module.parameters():
            p.uniform_(-0.5, 0.5)
    torch_module.to(getattr(torch, dtype))
    gs_module.to(getattr(gs, dtype))
    result = gs_module.load_state_dict({k: v.numpy() for k, v in torch_module.state_dict().items()})
    assert not result.missing_keys and not result.unexpected_keys
    assert [n for n, _ in gs_module.named_parameters()] == [n for n, _ in torch_module.named_parameters()]


def inputs(arrays, dtype):
    """(graphscope tensors, torch tensors) of the arrays: floats in `dtype` requiring grad, others as they are."""
    gs_in, torch_in = [], []
    for a in arrays:
        if a is None:
            gs_in.append(None)
            torch_in.append(None)
            continue
        grad = a.dtype.kind == "f"
        a = a.astype(dtype) if grad else a
        gs_in.append(gs.tensor(a.copy(), requires_grad=grad))
        torch_in.append(torch.tensor(a.copy(), requires_grad=grad))
    return gs_in, torch_in


def compare(gs_call, torch_call, arrays, dtype, gs_module=None, torch_module=None, seed=0):
    """Call both on the same inputs; compare every output, then the grads of every input and parameter.

    arrays: the positional inputs (float arrays get grads; bool or None pass as they are). Each call
    returns a tensor or a tuple of tensors (None entries are compared as None).
    """
    gs_in, torch_in = inputs(arrays, dtype)
    gs_out, torch_out = gs_call(*gs_in), torch_call(*torch_in)
    gs_out = gs_out if isinstance(gs_out, tuple) else (gs_out,)
    torch_out = torch_out if isinstance(torch_out, tuple) else (torch_out,)
    assert len(gs_out) == len(torch_out)
    rng = np.random.default_rng(seed)
    gs_loss, torch_outputs, cotangents = None, [], []
    for i, (g, t) in enumerate(zip(gs_out, torch_out)):
        assert (g is None) == (t is None), f"[{dtype}] result {i}: {g!r} against torch's {t!r}"
        if t is None:
            continue
        assert_close(g, t, dtype, f"[{dtype}] result {i}")
        c = rng.standard_normal(tuple(t.shape)).astype(dtype)
        finite = np.isfinite(t.detach().numpy())
        c = np.where(finite, c, 0).astype(dtype)
        term = (g.masked_fill(gs.tensor(~finite), 0.0) * gs.tensor(c)).sum()
        gs_loss = term if gs_loss is None else gs_loss + term
        torch_outputs.append(t.masked_fill(torch.tensor(~finite), 0.0))
        cotangents.append(torch.tensor(c))
    gs_loss.backward()
    torch.autograd.backward(torch_outputs, cotangents)
    for i, (g, t) in enumerate(zip(gs_in, torch_in)):
        if t is not None and t.requires_grad:
            if t.grad is None:  # an input torch's computation ignores (a mask under is_causal)
                assert g.grad is None, f"[{dtype}] input {i} has a grad where torch's has none"
            else:
                assert_close(g.grad, t.grad, dtype, f"[{dtype}] grad of input {i}")
    if torch_module is not None:
        torch_params = dict(torch_module.named_parameters())
        for name, p in gs_module.named_parameters():
            assert_close(p.grad, torch_params[name].grad, dtype, f"[{dtype}] grad of {name}")
    return gs_out, torch_out
