"""One helper that checks a graphscope op against PyTorch CPU: forward value, dtype, shape, and grads.

In the spirit of tinygrad's `helper_test_op`: the same NumPy-generated inputs go to both
libraries, the forward results are compared, then backward is seeded with a fixed random
cotangent (not ones, which hides transposed or mis-broadcast grads) and every input's grad
is compared.
"""

from __future__ import annotations

import numpy as np
import torch

import graphscope as gs

FLOATS = ("float64", "float32")
TOLERANCE = {"float64": dict(rtol=1e-7, atol=1e-9), "float32": dict(rtol=1e-4, atol=1e-5)}


def dtype_name(dtype) -> str:
    """'float32' for gs.float32 and torch.float32 alike."""
    return str(dtype).split(".")[-1]


def _inputs(specs, dtype, rng, low, high):
    """NumPy arrays from specs: a shape tuple gives uniform floats, an array is used as given.

    Float arrays are cast to the dtype under test; integer and bool arrays keep their dtype.
    """
    arrays = []
    for spec in specs:
        if isinstance(spec, np.ndarray):
            arrays.append(spec.astype(dtype) if spec.dtype.kind == "f" else spec.copy())
        else:
            arrays.append(rng.uniform(low, high, size=spec).astype(dtype))
    return arrays


def _outputs(result):
    """A list of output tensors from one tensor or a tuple/list of them (max(dim), split)."""
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _compare(name, got, expected, tol):
    """Compare a graphscope tensor with a torch tensor: shape, dtype, then values."""
    assert isinstance(got, gs.Tensor), f"{name}: expected a graphscope Tensor, got {type(got)}"
    assert tuple(got.shape) == tuple(expected.shape), f"{name} shape: {got.shape} != {tuple(expected.shape)}"
    assert dtype_name(got.dtype) == dtype_name(expected.dtype), f"{name} dtype: {got.dtype} != {expected.dtype}"
    got_values, expected_values = got.detach().cpu().numpy(), expected.detach().numpy()
    if expected.dtype.is_floating_point:
        np.testing.assert_allclose(got_values, expected_values, **tol, err_msg=name)
    else:
        np.testing.assert_array_equal(got_values, expected_values, err_msg=name)


def check(
    fn,
    specs,
    torch_fn=None,
    *,
    requires_grad=None,
    dtypes=FLOATS,
    low=-2.0,
    high=2.0,
    forward_only=False,
    rtol=None,
    atol=None,
    seed=0,
):
    """Run `fn` on graphscope tensors and `torch_fn` (default: `fn`) on torch tensors; compare.

    specs: one entry per input, a shape tuple (random uniform in [low, high)) or a NumPy array
        (edge values, integer indices, bool masks).
    requires_grad: one bool per input; default True for every floating input.
    dtypes: the float dtypes to run the check in.
    """
    torch_fn = torch_fn or fn
    for dtype in dtypes:
        tol = dict(TOLERANCE[dtype])
        tol.update({k: v for k, v in (("rtol", rtol), ("atol", atol)) if v is not None})
        rng = np.random.default_rng(seed)
        arrays = _inputs(specs, dtype, rng, low, high)
        needs = requires_grad or [a.dtype.kind == "f" for a in arrays]
        needs = [bool(n and not forward_only) for n in needs]

        gs_in = [gs.tensor(a.copy(), requires_grad=n) for a, n in zip(arrays, needs)]
        torch_in = [torch.tensor(a.copy(), requires_grad=n) for a, n in zip(arrays, needs)]
        gs_out, torch_out = _outputs(fn(*gs_in)), _outputs(torch_fn(*torch_in))
        assert len(gs_out) == len(torch_out), f"{len(gs_out)} outputs, torch gives {len(torch_out)}"
        for i, (g, t) in enumerate(zip(gs_out, torch_out)):
            _compare(f"[{dtype}] output {i}", g, t, tol)
            assert g.requires_grad == t.requires_grad, f"[{dtype}] output {i} requires_grad: {g.requires_grad}"
        if forward_only or not any(t.requires_grad for t in torch_out):
            continue

        # Backward seeded with a fixed random cotangent per differentiable output.
        pairs = [(g, t) for g, t in zip(gs_out, torch_out) if t.requires_grad]
        cotangents = [rng.standard_normal(t.shape).astype(dtype) for _, t in pairs]
        if len(pairs) == 1:
            pairs[0][0].backward(gs.tensor(cotangents[0]))
            pairs[0][1].backward(torch.tensor(cotangents[0]))
        else:
            sum(((g * gs.tensor(c)).sum() for (g, _), c in zip(pairs, cotangents))).backward()
            torch.autograd.backward([t for _, t in pairs], [torch.tensor(c) for c in cotangents])
        for i, (g, t) in enumerate(zip(gs_in, torch_in)):
            if t.grad is None:
                assert g.grad is None, f"[{dtype}] input {i}: grad {g.grad} where torch has None"
            else:
                assert g.grad is not None, f"[{dtype}] input {i}: grad is None, torch has one"
                _compare(f"[{dtype}] grad of input {i}", g.grad, t.grad, tol)
