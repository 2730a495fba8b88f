"""gradcheck: compare analytic grads with float64 central finite differences."""

from __future__ import annotations

import numpy as np

from .. import grad_mode
from ..backend import to_host
from ..tensor import Tensor, wrap
from .grad import grad as autograd_grad


class GradcheckError(RuntimeError):
    """The analytic and numerical Jacobians differ."""


def _outputs(fn, inputs):
    out = fn(*inputs)
    return (out,) if isinstance(out, Tensor) else tuple(out)


def gradcheck(func, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **_ignored):
    """True when every output's analytic Jacobian matches finite differences for every input."""
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    checked = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    for i in checked:
        if inputs[i].array.dtype != np.float64:
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
            seed = np.zeros(n_out)
            seed[k] = 1.0
            grads = autograd_grad(_outputs(func, inputs)[o], [inputs[i] for i in checked],
                                  grad_outputs=wrap(seed.reshape(output.shape)), allow_unused=True)
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
    x = inputs[i].array
    flat = x.reshape(-1)
    columns = []
    with grad_mode.no_grad():
        for j in range(flat.size):
            original = flat[j].item()
            flat[j] = original + eps
            plus = to_host(_outputs(func, inputs)[o].array).reshape(-1).astype(np.float64)
            flat[j] = original - eps
            minus = to_host(_outputs(func, inputs)[o].array).reshape(-1).astype(np.float64)
            flat[j] = original
            columns.append((plus - minus) / (2 * eps))
    return np.stack(columns, axis=1) if columns else np.zeros((0, 0))
