"""gradcheck: compare analytic grads with float64 central finite differences."""

from __future__ import annotations

import numpy as np

from .. import dtypes, grad_mode
from ..backend import from_host, to_host
from ..tensor import Tensor, wrap
from .grad import grad as autograd_grad


class GradcheckError(RuntimeError):
    """The analytic and numerical Jacobians differ."""


def _outputs(fn, inputs):
    out = fn(*inputs)
    return (out,) if isinstance(out, Tensor) else tuple(out)


def gradcheck(func, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **_ignored):
    """True when every output's analytic Jacobian matches finite differences for every input.

    Jacobians are compared on the host; the function runs on its inputs' device.
    """
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    checked = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    for i in checked:
        if inputs[i].dtype is not dtypes.float64:
            raise GradcheckError(
                f"gradcheck needs float64 inputs for accurate finite differences; input {i} is "
                f"{inputs[i].dtype.name} (use .double())"
            )
    outputs = _outputs(func, inputs)
    for o, output in enumerate(outputs):
        if not output.requires_grad:
            continue
        n_out = output.numel()
        analytic = {i: np.zeros((n_out, inputs[i].numel())) for i in checked}
        for k in range(n_out):
            seed = np.zeros(n_out, dtype=output.dtype.numpy)
            seed[k] = 1.0
            seed = wrap(from_host(seed.reshape(output.shape), output.device))
            grads = autograd_grad(
                _outputs(func, inputs)[o], [inputs[i] for i in checked], grad_outputs=seed, allow_unused=True
            )
            for i, g in zip(checked, grads):
                if g is not None:
                    analytic[i][k] = to_host(g.array).reshape(-1)
        for i in checked:
            numeric = _numerical_jacobian(func, inputs, i, o, eps)
            if not np.allclose(analytic[i], numeric, atol=atol, rtol=rtol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {o} with respect to input {i},\n"
                    f"numerical:{numeric}\nanalytical:{analytic[i]}"
                )
    return True


def _numerical_jacobian(func, inputs, i, o, eps):
    """Central differences, one input element at a time, each on a perturbed copy of input i."""
    x = inputs[i]
    host = to_host(x.array)
    columns = []

    def output_with(value, j):
        moved = host.copy()
        moved.reshape(-1)[j] = value
        perturbed = list(inputs)
        perturbed[i] = wrap(from_host(moved, x.device))
        return to_host(_outputs(func, perturbed)[o].array).reshape(-1).astype(np.float64)

    with grad_mode.no_grad():
        for j in range(host.size):
            original = host.reshape(-1)[j]
            plus, minus = output_with(original + eps, j), output_with(original - eps, j)
            columns.append((plus - minus) / (2 * eps))
    return np.stack(columns, axis=1) if columns else np.zeros((0, 0))
