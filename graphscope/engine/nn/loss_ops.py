"""The loss primitives: each loss one graph node, forward and backward side by side, as PyTorch's
*LossBackward0 nodes (fused for numerical stability: log-sum-exp inside cross-entropy, the
log-sigmoid inside BCE with logits, piecewise Huber, KL's log terms).

Over 450 lines on purpose: PyTorch's dozen losses side by side, each forward beside its backward,
read and checked against torch as one family.
"""

from __future__ import annotations

from .. import backend, dtypes
from ..backend import namespace
from ..function import Function
from .loss_reduction import quiet, reduce, reduction_scale

_ndarray = backend.CPU_ARRAY  # the CPU's array class: NumPy inputs skip the device check


# --- classification and regression losses ---------------------------------------------------------------------


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
        # torch's types: ValueError for another batch size (or any target of a 1-d input), else RuntimeError
        batch_differs = x.ndim < 2 or (target.ndim >= 1 and target.shape[0] != x.shape[0])
        raise (ValueError if batch_differs else RuntimeError)(
            f"{name}: input of shape {tuple(x.shape)} needs a target of shape {expected}, got {tuple(target.shape)}"
        )


def _class_rows(t, num_classes, ignore_index, name):
    """Flattened integer targets as safe row indices plus the mask of ignored rows (or None).

    Raises IndexError naming the first target outside [0, num_classes) that is not ignore_index.
    """
    xp = namespace(t)
    if t.size and int(xp.min(t)) >= 0 and int(xp.max(t)) < num_classes and not 0 <= ignore_index < num_classes:
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
                raise RuntimeError(
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
            return reduce(loss, reduction)

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

    rule = (
        "fused log_softmax + nll: loss = −log softmax(z)[target];  "
        "dz = (softmax(z) − onehot(target))·dOut (/N for mean)"
    )
    reduces = True

    @classmethod
    def local_for(cls, args):
        # written out for class targets without weights or smoothing, the usual case; numbers alone otherwise
        if args.get("label_smoothing") or args.get("reduction", "mean") == "none":
            return ()
        return ("({softmax} − {onehot})/{N}",) if args.get("reduction", "mean") == "mean" else ("{softmax} − {onehot}",)

    @classmethod
    def local_values(cls, arrays, args):
        logits, target, weight = arrays[:3]
        xp = namespace(logits)
        if (
            logits.ndim != 2
            or weight is not None
            or backend.is_floating(target)
            or bool(xp.any(target == args.get("ignore_index", -100)))
        ):
            raise ValueError("written out for (N, C) logits and class targets, unweighted, none ignored")
        e = xp.exp(logits - xp.max(logits, axis=1, keepdims=True))
        onehot = xp.zeros_like(logits)
        onehot[xp.arange(logits.shape[0]), target] = 1
        return {"softmax": e / xp.sum(e, axis=1, keepdims=True), "onehot": onehot, "N": logits.shape[0]}

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

    rule = "d nll(logp, t)/dlogp = −1 at the target class, 0 elsewhere (·weight, /N for mean)"

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
        self.diff = diff = x - y
        self.reduction = reduction
        return reduce(diff * diff, reduction)

    rule = "d (x − y)²/dx = 2·(x − y)    d/dy = −2·(x − y)    (/N for mean)"
    reduces = True

    @classmethod
    def local_for(cls, args):
        if args.get("reduction", "mean") == "mean":
            return ("2·({x} − {y})/{N}", "−2·({x} − {y})/{N}")
        return ("2·({x} − {y})", "−2·({x} − {y})")

    @classmethod
    def local_values(cls, arrays, args):
        return {"N": int(namespace(arrays[0]).broadcast_arrays(arrays[0], arrays[1])[0].size)}

    def backward(self, grad):
        g = 2.0 * reduction_scale(grad, self.reduction, self.diff.size) * self.diff
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
        return reduce(xp.abs(diff), reduction)

    rule = "d |x − y|/dx = sign(x − y)    d/dy = −sign(x − y)    (/N for mean)"

    def backward(self, grad):
        g = reduction_scale(grad, self.reduction, self.sign.size) * self.sign
        needs = self.needs_input_grad
        return (g if needs[0] else None, -g if needs[1] else None)


class BinaryCrossEntropy(Function):
    """-(y log p + (1-y) log(1-p)) with PyTorch's log clamp at -100 and its gradient's 1e-12 floor."""

    op = "binary_cross_entropy"
    reads_inputs = (0, 1, 2)

    def forward(self, p, y, weight=None, reduction="mean"):
        xp = namespace(p)
        if bool(xp.any((p < 0) | (p > 1))):
            raise RuntimeError(
                "binary_cross_entropy: all input values must be between 0 and 1 "
                "(apply sigmoid first, or use binary_cross_entropy_with_logits)"
            )
        self.p, self.y, self.weight, self.reduction = p, y, weight, reduction
        with quiet(xp):
            log_p = xp.maximum(xp.log(p), -100.0)
            log_q = xp.maximum(xp.log1p(-p), -100.0)
        loss = -(y * log_p + (1 - y) * log_q)
        if weight is not None:
            loss = loss * weight
        return reduce(loss, reduction)

    rule = "d bce(p, y)/dp = (p − y)/(p·(1 − p))    (/N for mean)"

    def backward(self, grad):
        xp = namespace(grad)
        p, y = self.p, self.y
        scale = reduction_scale(grad, self.reduction, max(p.size, y.size))
        gx = scale * (p - y) / xp.maximum((1 - p) * p, 1e-12)
        if self.weight is not None:
            gx = gx * self.weight
        needs = self.needs_input_grad
        gy = None
        if len(needs) > 1 and needs[1]:
            with quiet(xp):
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
        return reduce(loss, reduction)

    rule = "fused sigmoid + bce: d/dx = σ(x) − y (with pos_weight: (1 + (pw − 1)·y)·σ(x) − pw·y)    (/N for mean)"

    def backward(self, grad):
        xp = namespace(grad)
        x, y = self.x, self.y
        size = max(x.size, y.size)
        scale = reduction_scale(grad, self.reduction, size)
        e = xp.exp(-xp.abs(x))  # sigmoid without overflow on either side
        sig = xp.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        gx = sig - y if self.log_weight is None else (1 - y) + self.log_weight * (sig - 1)
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


# --- Huber / smooth L1 and KL divergence ---


class Huber(Function):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = x - y), times `scale`:
    smooth_l1_loss is scale 1; huber_loss with delta is beta = delta, scale = delta."""

    op = "huber_loss"

    def forward(self, x, y, beta, scale, reduction):
        xp = namespace(x)
        self.diff = diff = x - y
        self.beta, self.scale, self.reduction = beta, scale, reduction
        size = xp.abs(diff)
        loss = size if beta == 0 else xp.where(size < beta, 0.5 * diff * diff / beta, size - 0.5 * beta)
        return reduce(loss * scale if scale != 1 else loss, reduction)

    rule = "d huber(x − y)/dx = (x − y)/β if |x − y| < β else sign(x − y), times the scale    (/N for mean)"

    def backward(self, grad):
        xp, diff, beta = namespace(grad), self.diff, self.beta
        slope = xp.sign(diff) if beta == 0 else xp.clip(diff / beta, -1.0, 1.0)
        g = reduction_scale(grad, self.reduction, diff.size) * (self.scale * slope)
        needs = self.needs_input_grad
        return (g if needs[0] else None), (-g if needs[1] else None), None, None, None


class SmoothL1(Huber):
    op = "smooth_l1_loss"
    rule = "d smooth_l1(x − y)/dx = (x − y)/β if |x − y| < β else sign(x − y)    (/N for mean)"


class KLDiv(Function):
    """target * (log target - input) (0 where target is 0), or exp(t) * (t - input) for a log target."""

    op = "kl_div"

    def forward(self, x, t, log_target, reduction):
        xp = namespace(x)
        self.x, self.t, self.log_target, self.reduction = x, t, log_target, reduction
        if log_target:
            loss = xp.exp(t) * (t - x)
        else:
            with quiet(xp):
                loss = xp.where(t == 0, 0, t * xp.log(xp.where(t == 0, 1, t))) - t * x
        if reduction == "batchmean":
            batch = x.shape[0] if x.ndim else 1
            return reduce(loss, "sum") / batch
        return reduce(loss, reduction)

    rule = "d kl_div(x, t)/dx = −t    d/dt = ln t + 1 − x    (log_target: −eᵗ and eᵗ·(t − x + 1))"

    def backward(self, grad):
        xp, x, t = namespace(grad), self.x, self.t
        if self.reduction == "batchmean":
            g = grad / (x.shape[0] if x.ndim else 1)
        else:
            g = reduction_scale(grad, self.reduction, x.size)
        needs = self.needs_input_grad
        if self.log_target:
            et = xp.exp(t)
            return (-et * g if needs[0] else None), (et * (t - x + 1) * g if needs[1] else None), None, None
        with quiet(xp):
            # d/dt (t log t) is log t + t/t: NaN at t == 0, as torch's xlogy gives.
            grad_t = (xp.where(t == 0, 0, xp.log(xp.where(t == 0, 1, t))) + t / t - x) * g if needs[1] else None
        return (-t * g if needs[0] else None), grad_t, None, None
