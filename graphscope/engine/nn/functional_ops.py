"""The nn primitives: composites written as one graph node each (the losses live in loss_ops).

Each class says in its docstring why it is a primitive rather than a composition of engine
ops. All code runs on raw device arrays through `xp = namespace(array)`, so one code path
serves NumPy (cpu) and CuPy (cuda).
"""

from __future__ import annotations

import math

from .. import backend
from ..backend import namespace, scatter_add
from ..function import Function
from ..ops.operands import check_devices
from ..outer_grad import OuterGrad

_ndarray = backend.CPU_ARRAY  # the CPU's array class: NumPy inputs skip the device check


# --- linear -----------------------------------------------------------------------------------


class Linear(Function):
    """x @ W.T + b in one node: one BLAS call and an in-place bias add, as PyTorch's addmm."""

    op = "linear"
    reads_inputs = (0, 1)  # bias is not read by backward
    # Set on a node whose weight is used at every time step (a recurrent layer's hidden projection):
    # its backward then gives the weight's grad as an OuterGrad, which only the backward walk takes.
    outer_weight_grad = False

    def forward(self, x, weight, bias=None):
        if x.ndim == 0 or x.shape[-1] != weight.shape[1]:
            raise RuntimeError(
                f"linear: input of shape {tuple(x.shape)} does not match weight of shape "
                f"{tuple(weight.shape)}: the input's last dimension must equal in_features="
                f"{weight.shape[1]}"
            )
        if type(x) is not _ndarray or type(weight) is not _ndarray:
            check_devices("linear", x, weight, bias)
        self.x, self.weight = x, weight
        out = backend.matmul(x, weight.T)
        if bias is not None:
            out += bias
        return out

    rule = "y = x @ Wᵀ + b:  dx = dOut @ W    dW = dOutᵀ @ x    db = Σ dOut over the batch"

    @classmethod
    def contraction(cls, position, index, arrays, grad):
        x, weight = arrays[0], arrays[1]
        if x.ndim != 2:
            return None
        if position == 0:
            i, j = index
            return f"dx[{i},{j}] = Σₖ dOut[{i},k]·W[k,{j}]", [(grad[i, k], weight[k, j]) for k in range(grad.shape[1])]
        if position == 1:
            i, j = index
            return f"dW[{i},{j}] = Σₙ dOut[n,{i}]·x[n,{j}]", [(grad[n, i], x[n, j]) for n in range(grad.shape[0])]
        (j,) = index
        return f"db[{j}] = Σₙ dOut[n,{j}]", [(grad[n, j], 1) for n in range(grad.shape[0])]

    def backward(self, grad):
        x, weight = self.x, self.weight
        needs = self.needs_input_grad
        gx = gw = gb = None
        if needs[0]:
            gx = backend.matmul(grad, weight)
        if needs[1] or (len(needs) > 2 and needs[2]):
            # Batch dims flattened into one (a 2-D input, the usual, has just one).
            g2 = grad if grad.ndim == 2 else backend.reshape(grad, (-1, weight.shape[0]))
            if needs[1]:
                x2 = x if x.ndim == 2 else backend.reshape(x, (-1, weight.shape[1]))
                if self.outer_weight_grad and g2.dtype == x2.dtype == weight.dtype:
                    gw = OuterGrad.of(g2, x2)  # summed over the time steps as one product (see OuterGrad)
                else:
                    gw = backend.matmul(g2.T, x2)
            if len(needs) > 2 and needs[2]:
                gb = backend.sum(g2, axis=0)
        return (gx, gw) if len(needs) == 2 else (gx, gw, gb)


# --- activations ------------------------------------------------------------------------------

# Chebyshev coefficients of g(y) with erfc(z) = t * exp(-z^2 + g(2t - 1)), t = 2 / (2 + z), z >= 0,
# fitted here with mpmath at 40 digits (relative error below 1e-14 for z < 6). NumPy has no erf.
# (Kept four to a line, not one: the formatter is off for the table.)
# fmt: off
_ERFC_CHEB = (
    -0.6513268598908547, 0.6419697923564902, 0.019476473204185836, -0.009561514786808632,
    -0.0009465953444820369, 0.00036683949785276145, 4.252332480690777e-05, -2.0278578112534242e-05,
    -1.6242900046470256e-06, 1.3036558355805232e-06, 1.5626441722066142e-08, -8.523809591492654e-08,
    6.5290544390988515e-09, 5.059343495551469e-09, -9.91364156493033e-10, -2.273651222931836e-10,
    9.646791102015527e-11, 2.3940380830391146e-12, -6.886027526497553e-12, 8.944879273090725e-13,
    3.130921399342958e-13, -1.1270822361367252e-13, 3.810905255189232e-16, 7.106097613609237e-15,
    -1.5230282014571043e-15, -9.457494571291233e-17, 1.210237189224279e-16, -2.816663087747177e-17,
    5.003005559445903e-20, 2.3281042579529253e-18, -8.446077682509006e-19,
)
# fmt: on


def erfc(x):
    """The complementary error function on a device array, to about 1e-15 relative in float64."""
    xp = namespace(x)
    z = xp.abs(x)
    t = 2.0 / (2.0 + z)
    y = 2.0 * t - 1.0
    y2 = 2.0 * y
    b1 = xp.zeros_like(z)
    b2 = xp.zeros_like(z)
    for c in _ERFC_CHEB[:0:-1]:  # Clenshaw's recurrence
        b1, b2 = y2 * b1 - b2 + c, b1
    g = y * b1 - b2 + _ERFC_CHEB[0]
    positive = t * xp.exp(g - z * z)
    return xp.where(x >= 0, positive, 2.0 - positive)


_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


class GELU(Function):
    """x * Phi(x): a primitive because it needs erf, which NumPy lacks, and a one-step derivative."""

    op = "gelu"

    def forward(self, x, approximate="none"):
        xp = namespace(x)
        self.x = x
        self.approximate = approximate
        if approximate == "tanh":
            inner = _SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
            self.tanh = th = xp.tanh(inner)
            return 0.5 * x * (1.0 + th)
        self.cdf = cdf = backend.astype(0.5 * erfc(-_SQRT_HALF * x), x.dtype, copy=False)
        return x * cdf

    rule = "d gelu(x)/dx = Φ(x) + x·φ(x) (Φ, φ: the normal CDF and density; tanh form when approximate)"
    elementwise = True
    local = ("Φ({x}) + {x}·φ({x})", "")

    @classmethod
    def local_for(cls, args):
        # the tanh form's factor is too long to read as a formula: its numbers alone
        return ("", "") if args.get("approximate") == "tanh" else cls.local

    def backward(self, grad):
        xp = namespace(grad)
        x = self.x
        if self.approximate == "tanh":
            th = self.tanh
            dinner = _SQRT_2_OVER_PI * (1.0 + 3 * 0.044715 * x * x)
            return (grad * (0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * dinner),)
        pdf = _INV_SQRT_2PI * xp.exp(-0.5 * x * x)
        return (grad * (self.cdf + x * pdf),)


class LeakyReLU(Function):
    """max(x, 0) + slope * min(x, 0): one comparison kept as a mask instead of a where/mul chain."""

    op = "leaky_relu"

    def forward(self, x, negative_slope=0.01):
        xp = namespace(x)
        self.positive = positive = x > 0
        self.slope = negative_slope
        return xp.where(positive, x, x * negative_slope)

    rule = "d leaky_relu(x)/dx = 1 if x > 0 else slope"
    elementwise = True
    local = ("1 if {x} > 0 else {negative_slope}", "")

    def backward(self, grad):
        xp = namespace(grad)
        return (xp.where(self.positive, grad, grad * self.slope),)


class Dropout(Function):
    """x * mask / (1 - p) with a Bernoulli mask: one node that keeps the mask it applied."""

    op = "dropout"

    def forward(self, x, mask):
        # `mask` is already scaled by 1 / (1 - p); the node keeps it for backward and the debugger.
        self.mask = mask
        return x * mask

    rule = "d dropout(x)/dx = mask/(1 − p) (0 where dropped)"
    elementwise = True
    local = ("{mask}", "")

    def backward(self, grad):
        return (grad * self.mask, None)


class Embedding(Function):
    """weight[indices] with a scatter-add backward that also zeroes the padding row."""

    op = "embedding"
    reads_inputs = (1,)

    def forward(self, weight, indices, padding_idx=None):
        self.indices = indices
        self.num_embeddings = weight.shape[0]
        self.padding_idx = padding_idx
        return backend.take(weight, (indices, ...))

    rule = "d W[idx]/dW = 1 at the looked-up rows (grad rows added into dW; repeats add up, padding row 0)"

    def backward(self, grad):
        dim = grad.shape[-1]
        gw = backend.zeros((self.num_embeddings, dim), grad.dtype, like=grad)
        scatter_add(gw, (backend.reshape(self.indices, (-1,)), ...), backend.reshape(grad, (-1, dim)))
        if self.padding_idx is not None:
            gw[self.padding_idx, ...] = 0
        return (gw, None)


class LayerNorm(Function):
    """Normalise over the last dims: a primitive for the stable one-pass backward (no var graph)."""

    op = "layer_norm"

    def forward(self, x, weight=None, bias=None, normalized_shape=(), eps=1e-5):
        xp = namespace(x)
        k = len(normalized_shape)
        if tuple(x.shape[x.ndim - k :]) != tuple(normalized_shape):
            raise RuntimeError(
                f"layer_norm: input of shape {tuple(x.shape)} does not end in normalized_shape "
                f"{tuple(normalized_shape)}"
            )
        axes = tuple(range(x.ndim - k, x.ndim))
        mean = xp.mean(x, axis=axes, keepdims=True)
        xc = x - mean
        var = xp.mean(xc * xc, axis=axes, keepdims=True)
        self.rstd = rstd = 1.0 / xp.sqrt(var + eps)
        self.xhat = xhat = xc * rstd
        self.axes = axes
        self.weight = weight
        out = xhat
        if weight is not None:
            out = out * weight
        if bias is not None:
            out = out + bias
        return out

    rule = (
        "fused layer norm: x̂ = (x − μ)/σ over the last dims, y = x̂·w + b;\n"
        "dx = (w·dOut − mean(w·dOut) − x̂·mean(w·dOut·x̂))/σ    dw = Σ dOut·x̂    db = Σ dOut"
    )

    def backward(self, grad):
        needs = self.needs_input_grad
        xhat, axes = self.xhat, self.axes
        lead = tuple(range(grad.ndim - len(axes)))
        gx = gw = gb = None
        xp = namespace(grad)
        if needs[1]:
            gw = backend.sum(grad * xhat, axis=lead)
        if needs[2]:
            gb = backend.sum(grad, axis=lead)
        if needs[0]:
            gxhat = grad if self.weight is None else grad * self.weight
            m1 = xp.mean(gxhat, axis=axes, keepdims=True)
            m2 = xp.mean(gxhat * xhat, axis=axes, keepdims=True)
            gx = self.rstd * (gxhat - m1 - xhat * m2)
        return (gx, gw, gb)
