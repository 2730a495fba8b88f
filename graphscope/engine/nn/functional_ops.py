"""The nn primitives: composites written as one graph node each, forward and backward side by side.

Each class says in its docstring why it is a primitive rather than a composition of engine
ops. All code runs on raw device arrays through `xp = namespace(array)`, so one code path
serves NumPy (cpu) and CuPy (cuda).
"""

from __future__ import annotations

import contextlib
import math

from .. import backend, dtypes
from ..backend import namespace, scatter_add
from ..function import Function
from ..ops.operands import check_devices

_REDUCTIONS = ("none", "mean", "sum")
_ndarray = backend.CPU_ARRAY  # the CPU's array class: NumPy inputs skip the device check


def check_reduction(reduction: str, name: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{name}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")


def _quiet(xp):
    """Silence NumPy's divide/overflow warnings where infinities are expected and handled."""
    errstate = getattr(xp, "errstate", None)
    if errstate is None:
        return contextlib.nullcontext()
    return errstate(divide="ignore", over="ignore", invalid="ignore")


def _reduce(xp, loss, reduction):
    """Apply `reduction` to elementwise `loss`, returning an array (never a NumPy scalar)."""
    if reduction == "mean":
        return xp.mean(loss)
    if reduction == "sum":
        return backend.sum(loss)
    return loss


def _reduction_scale(grad, reduction, size):
    """The factor each element's loss gradient is multiplied by under `reduction`."""
    if reduction == "mean":
        return grad / size if size else grad
    return grad


# --- linear -----------------------------------------------------------------------------------


class Linear(Function):
    """x @ W.T + b in one node: one BLAS call and an in-place bias add, as PyTorch's addmm."""

    op = "linear"
    reads_inputs = (0, 1)  # bias is not read by backward

    def forward(self, x, weight, bias=None):
        if x.ndim == 0 or x.shape[-1] != weight.shape[1]:
            raise ValueError(
                f"linear: input of shape {tuple(x.shape)} does not match weight of shape "
                f"{tuple(weight.shape)}: the input's last dimension must equal in_features="
                f"{weight.shape[1]}"
            )
        if type(x) is not _ndarray or type(weight) is not _ndarray:
            check_devices("linear", x, weight, bias)
        self.x, self.weight = x, weight
        out = x @ weight.T
        if bias is not None:
            out += bias
        return out

    def backward(self, grad):
        x, weight = self.x, self.weight
        needs = self.needs_input_grad
        gx = gw = gb = None
        if needs[0]:
            gx = grad @ weight
        if needs[1] or (len(needs) > 2 and needs[2]):
            g2 = backend.reshape(grad, (-1, weight.shape[0]))
            if needs[1]:
                gw = g2.T @ backend.reshape(x, (-1, weight.shape[1]))
            if len(needs) > 2 and needs[2]:
                gb = backend.sum(g2, axis=0)
        return (gx, gw) if len(needs) == 2 else (gx, gw, gb)


# --- activations ------------------------------------------------------------------------------

# Chebyshev coefficients of g(y) with erfc(z) = t * exp(-z^2 + g(2t - 1)), t = 2 / (2 + z), z >= 0,
# fitted here with mpmath at 40 digits (relative error below 1e-14 for z < 6). NumPy has no erf.
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
        if tuple(x.shape[x.ndim - k:]) != tuple(normalized_shape):
            raise ValueError(
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


# --- losses -----------------------------------------------------------------------------------


def _classes_last(x):
    """(M, C) view of an (N, C, d1, ...) / (N, C) / (C,) input, classes on the last axis."""
    if x.ndim == 2:
        return x
    if x.ndim == 1:
        return backend.reshape(x, (1, -1))
    xp = namespace(x)
    return backend.reshape(xp.moveaxis(x, 1, -1), (-1, x.shape[1]))


def _classes_back(g2, shape):
    """Undo `_classes_last` on a gradient of shape (M, C)."""
    if len(shape) == 2:
        return g2
    if len(shape) == 1:
        return backend.reshape(g2, shape)
    xp = namespace(g2)
    moved = (shape[0],) + tuple(shape[2:]) + (shape[1],)
    return xp.moveaxis(backend.reshape(g2, moved), -1, 1)


def _check_class_target(x, target, name):
    dtype = backend.dtype_of(target)
    if dtype.is_floating_point or dtype is dtypes.bool_:
        raise TypeError(
            f"{name}: expected an integer class target (int64), got {dtype.name}; "
            "for class probabilities pass a float target of the input's shape"
        )
    expected = (x.shape[0],) + tuple(x.shape[2:]) if x.ndim >= 2 else ()
    if tuple(target.shape) != expected:
        raise ValueError(
            f"{name}: input of shape {tuple(x.shape)} needs a target of shape {expected}, "
            f"got {tuple(target.shape)}"
        )


def _class_rows(t, num_classes, ignore_index, name):
    """Flattened integer targets as safe row indices plus the mask of ignored rows (or None).

    Raises IndexError naming the first target outside [0, num_classes) that is not ignore_index.
    """
    xp = namespace(t)
    if t.size and 0 <= int(xp.min(t)) and int(xp.max(t)) < num_classes and not 0 <= ignore_index < num_classes:
        return t, None
    ignored = t == ignore_index
    bad = ~ignored & ((t < 0) | (t >= num_classes))
    if bool(xp.any(bad)):
        value = int(t[bad][0])
        raise IndexError(
            f"{name}: target {value} is out of range for {num_classes} classes "
            f"(valid targets are 0..{num_classes - 1}, or ignore_index={ignore_index})"
        )
    return xp.where(ignored, 0, t), ignored


class CrossEntropy(Function):
    """log_softmax + NLL fused: max-shifted and stable, and its gradient is just softmax - target."""

    op = "cross_entropy"
    reads_inputs = (1, 2)  # the logits are not read back: backward uses the saved log-probabilities

    def forward(self, logits, target, weight=None, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
        xp = namespace(logits)
        shape = logits.shape
        num_classes = shape[1] if logits.ndim >= 2 else shape[0]
        x2 = _classes_last(logits)
        m = xp.max(x2, axis=1, keepdims=True)
        shifted = x2 - m
        logp = shifted - xp.log(backend.sum(xp.exp(shifted), axis=1, keepdims=True))
        self.logp, self.shape, self.reduction = logp, shape, reduction
        eps = float(label_smoothing)
        self.eps, self.weight = eps, weight
        dtype = logits.dtype
        rows = logp.shape[0]

        if backend.is_floating(target):  # class probabilities
            if tuple(target.shape) != tuple(shape):
                raise ValueError(
                    f"cross_entropy: probability targets must have the input's shape {tuple(shape)}, "
                    f"got {tuple(target.shape)}"
                )
            q = _classes_last(target)
            if eps:
                q = q * (1.0 - eps) + eps / num_classes
            if weight is not None:
                q = q * weight
            self.q, self.soft = q, True
            loss = -backend.sum(logp * q, axis=1)
            self.denominator = rows
            if reduction == "none":
                return backend.reshape(loss, (shape[0],) + tuple(shape[2:]) if logits.ndim >= 2 else ())
            return _reduce(xp, loss, reduction)

        self.soft = False
        _check_class_target(logits, target, "cross_entropy")
        t, ignored = _class_rows(backend.reshape(target, (-1,)), num_classes, ignore_index, "cross_entropy")
        self.t, self.ignored = t, ignored
        self.rows = row_index = backend.arange(rows, like=logp)
        picked = backend.take(logp, (row_index, t))
        w_t = None if weight is None else backend.take(weight, (t,))
        self.w_t = w_t
        nll = -picked if w_t is None else -picked * w_t
        if eps:
            smooth = -backend.sum(logp if weight is None else logp * weight, axis=1)
            loss = (1.0 - eps) * nll + (eps / num_classes) * smooth
        else:
            loss = nll
        if ignored is not None:
            loss = backend.astype(xp.where(ignored, 0, loss), dtype, copy=False)
        if reduction == "none":
            return backend.reshape(loss, target.shape)
        if reduction == "sum":
            return backend.sum(loss)
        if w_t is None:
            denominator = rows if ignored is None else rows - backend.sum(backend.astype(ignored, dtype))
        else:
            denominator = backend.sum(w_t if ignored is None else xp.where(ignored, 0, w_t))
        self.denominator = denominator
        return backend.sum(loss) / denominator

    def backward(self, grad):
        xp = namespace(grad)
        logp = self.logp
        num_classes = logp.shape[1]
        p = xp.exp(logp)
        if self.reduction == "none":
            scale = backend.reshape(grad, (-1, 1))
        elif self.reduction == "mean":
            scale = grad / self.denominator
        else:
            scale = grad
        needs = self.needs_input_grad
        if self.soft:
            q = self.q
            gx = (p * backend.sum(q, axis=1, keepdims=True) - q) * scale
            gt = None
            if len(needs) > 1 and needs[1]:
                factor = 1.0 - self.eps
                gt = -logp * factor * scale if self.weight is None else -logp * self.weight * factor * scale
                gt = _classes_back(gt, self.shape)
            return (_classes_back(gx, self.shape), gt) + (None,) * (len(needs) - 2)

        eps, weight, w_t, t, ignored = self.eps, self.weight, self.w_t, self.t, self.ignored
        picked = (self.rows, t)
        if ignored is not None:
            keep = backend.reshape(backend.astype(~ignored, p.dtype), (-1, 1))
            scale = scale * keep
        # Row i's target weights are q_i = (1-eps) w_t[i] onehot(t_i) + eps/C w; the gradient of
        # -sum_c q_ic logp_ic is p_i * sum_c q_ic - q_i.
        per_row = scale if scale.ndim == 0 else scale[:, 0]
        if weight is None:
            gx = p * scale
            backend.put(gx, picked, backend.take(gx, picked) - (1.0 - eps) * per_row)
            if eps:
                gx -= (eps / num_classes) * scale
        else:
            row_total = (1.0 - eps) * w_t + (eps / num_classes) * backend.sum(weight)
            gx = p * (backend.reshape(row_total, (-1, 1)) * scale)
            backend.put(gx, picked, backend.take(gx, picked) - (1.0 - eps) * w_t * per_row)
            if eps:
                gx -= (eps / num_classes) * weight * scale
        return (_classes_back(gx, self.shape),) + (None,) * (len(needs) - 1)


class NLLLoss(Function):
    """-input[i, target_i] with ignore_index and class weights in one node (a masked gather)."""

    op = "nll_loss"
    reads_inputs = (1, 2)

    def forward(self, logp, target, weight=None, ignore_index=-100, reduction="mean"):
        xp = namespace(logp)
        shape = logp.shape
        num_classes = shape[1] if logp.ndim >= 2 else shape[0]
        _check_class_target(logp, target, "nll_loss")
        x2 = _classes_last(logp)
        rows = x2.shape[0]
        t, ignored = _class_rows(backend.reshape(target, (-1,)), num_classes, ignore_index, "nll_loss")
        w_t = backend.full((rows,), 1.0, logp.dtype, like=logp) if weight is None else backend.take(weight, (t,))
        if ignored is not None:
            w_t = backend.astype(xp.where(ignored, 0, w_t), logp.dtype, copy=False)
        self.t, self.w_t, self.shape, self.reduction, self.dtype = t, w_t, shape, reduction, logp.dtype
        loss = -backend.take(x2, (backend.arange(rows, like=x2), t)) * w_t
        if reduction == "none":
            return backend.reshape(loss, target.shape)
        if reduction == "sum":
            return backend.sum(loss)
        self.denominator = backend.sum(w_t)
        return backend.sum(loss) / self.denominator

    def backward(self, grad):
        t, w_t = self.t, self.w_t
        rows = t.shape[0]
        num_classes = self.shape[1] if len(self.shape) >= 2 else self.shape[0]
        if self.reduction == "none":
            scale = backend.reshape(grad, (-1,))
        elif self.reduction == "mean":
            scale = grad / self.denominator
        else:
            scale = grad
        gx = backend.zeros((rows, num_classes), self.dtype, like=grad)
        backend.put(gx, (backend.arange(rows, like=grad), t), -w_t * scale)
        return (_classes_back(gx, self.shape),) + (None,) * (len(self.needs_input_grad) - 1)


class MSELoss(Function):
    """mean((x - y)^2) in one node, as PyTorch's MseLossBackward0 (small training loops are overhead-bound)."""

    op = "mse_loss"

    def forward(self, x, y, reduction="mean"):
        xp = namespace(x)
        self.diff = diff = x - y
        self.reduction = reduction
        return _reduce(xp, diff * diff, reduction)

    def backward(self, grad):
        g = 2.0 * _reduction_scale(grad, self.reduction, self.diff.size) * self.diff
        needs = self.needs_input_grad
        return (g if needs[0] else None, -g if needs[1] else None)


class L1Loss(Function):
    """mean(|x - y|) in one node (its gradient is sign(x - y), 0 where they are equal, as PyTorch)."""

    op = "l1_loss"

    def forward(self, x, y, reduction="mean"):
        xp = namespace(x)
        diff = x - y
        self.sign = xp.sign(diff)
        self.reduction = reduction
        return _reduce(xp, xp.abs(diff), reduction)

    def backward(self, grad):
        g = _reduction_scale(grad, self.reduction, self.sign.size) * self.sign
        needs = self.needs_input_grad
        return (g if needs[0] else None, -g if needs[1] else None)


class BinaryCrossEntropy(Function):
    """-(y log p + (1-y) log(1-p)) with PyTorch's log clamp at -100 and its gradient's 1e-12 floor."""

    op = "binary_cross_entropy"
    reads_inputs = (0, 1, 2)

    def forward(self, p, y, weight=None, reduction="mean"):
        xp = namespace(p)
        if bool(xp.any((p < 0) | (p > 1))):
            raise ValueError(
                "binary_cross_entropy: all input values must be between 0 and 1 "
                "(apply sigmoid first, or use binary_cross_entropy_with_logits)"
            )
        self.p, self.y, self.weight, self.reduction = p, y, weight, reduction
        with _quiet(xp):
            log_p = xp.maximum(xp.log(p), -100.0)
            log_q = xp.maximum(xp.log1p(-p), -100.0)
        loss = -(y * log_p + (1 - y) * log_q)
        if weight is not None:
            loss = loss * weight
        return _reduce(xp, loss, reduction)

    def backward(self, grad):
        xp = namespace(grad)
        p, y = self.p, self.y
        scale = _reduction_scale(grad, self.reduction, max(p.size, y.size))
        gx = scale * (p - y) / xp.maximum((1 - p) * p, 1e-12)
        if self.weight is not None:
            gx = gx * self.weight
        needs = self.needs_input_grad
        gy = None
        if len(needs) > 1 and needs[1]:
            with _quiet(xp):
                gy = scale * (xp.maximum(xp.log1p(-p), -100.0) - xp.maximum(xp.log(p), -100.0))
            if self.weight is not None:
                gy = gy * self.weight
        return (gx, gy) + (None,) * (len(needs) - 2)


class BinaryCrossEntropyWithLogits(Function):
    """sigmoid + BCE fused: log(1 + e^-|x|) never overflows, and the gradient is sigmoid(x) - y."""

    op = "binary_cross_entropy_with_logits"

    def forward(self, x, y, weight=None, pos_weight=None, reduction="mean"):
        xp = namespace(x)
        # softplus(-x) = log(1 + e^-x), computed stably.
        softplus_neg = xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(-x, 0)
        if pos_weight is not None:
            log_weight = 1 + (pos_weight - 1) * y
            loss = (1 - y) * x + log_weight * softplus_neg
        else:
            log_weight = None
            loss = (1 - y) * x + softplus_neg
        if weight is not None:
            loss = loss * weight
        self.x, self.y, self.weight, self.pos_weight = x, y, weight, pos_weight
        self.log_weight, self.softplus_neg, self.reduction = log_weight, softplus_neg, reduction
        return _reduce(xp, loss, reduction)

    def backward(self, grad):
        xp = namespace(grad)
        x, y = self.x, self.y
        size = max(x.size, y.size)
        scale = _reduction_scale(grad, self.reduction, size)
        e = xp.exp(-xp.abs(x))  # sigmoid without overflow on either side
        sig = xp.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        if self.log_weight is None:
            gx = sig - y
        else:
            gx = (1 - y) + self.log_weight * (sig - 1)
        gx = gx * scale
        if self.weight is not None:
            gx = gx * self.weight
        needs = self.needs_input_grad
        gy = None
        if len(needs) > 1 and needs[1]:
            gy = -x if self.pos_weight is None else -x + (self.pos_weight - 1) * self.softplus_neg
            gy = gy * scale
            if self.weight is not None:
                gy = gy * self.weight
        return (gx, gy) + (None,) * (len(needs) - 2)
