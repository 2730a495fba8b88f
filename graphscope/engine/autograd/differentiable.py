"""Each op's backward written again as Tensor ops, keyed by its Function class, for create_graph=True.

A Function's own `backward` runs on raw arrays: quick, and invisible to autograd. Under
`backward(create_graph=True)` the engine runs the rule here instead, so the grads it produces are
graph nodes themselves and can be differentiated again (gradient penalties, Hessian-vector
products); softmax's and the losses' rules are in `loss_rules.py`. Where a grad is not built from
other ops, the nodes of `grad_nodes.py` stand for it; an op without a rule still gives its grads,
through `NotDifferentiable`, whose own backward says which op it was.
"""

from __future__ import annotations

import math

from ..function import Function
from ..nn.functional_ops import Dropout, LeakyReLU, Linear
from ..ops.arithmetic import Add, Div, Maximum, Minimum, Mul, Pow, Sub, Where
from ..ops.indexing import Gather, GetItem, MaskedFill, Narrow
from ..ops.matmul import Matmul
from ..ops.norms import VectorNorm
from ..ops.reduction import Mean, Std, Sum, Var, expand_back
from ..ops.reorder import Cumsum, Flip, Roll, Triangle
from ..ops.rounding import Ceil, Floor, Round
from ..ops.shape import Cat, Expand, Permute, Repeat, Reshape, Stack
from ..ops.unary import (
    LN_10,
    Abs,
    Cast,
    Clamp,
    Clone,
    Cos,
    Exp,
    Log,
    Log1p,
    Log10,
    Neg,
    Relu,
    Rsqrt,
    Sigmoid,
    Sign,
    Sin,
    Sqrt,
    Tanh,
    cast,
)
from ..tensor import Tensor
from .custom import CustomNode
from .grad_nodes import Adjoint, ConstantFactor, NotDifferentiable, adjoint_of, constant_factor_of
from .loss_rules import LOSS_RULES
from .rule_parts import Rule, expand_back_to, masked, needed, output_tensor


def differentiable_backward(node: Function, grad: Tensor) -> tuple[Tensor | None, ...]:
    """`node`'s grads for each of its inputs (None where none flows), as Tensors made by graph ops."""
    rule = _rule_for(type(node))
    if rule is not None:
        grads = rule(node, grad)
        if grads is not None:  # (None: not for these arguments, a norm of p < 1)
            return grads
    arrays = node.backward(grad.array)
    sources = [grad] + [x for x in node.inputs if isinstance(x, Tensor)]
    of = f"{node.op} ({node.name()})"
    return tuple(None if g is None else NotDifferentiable.apply(*sources, result=g, of=of) for g in arrays)


def _rule_for(cls: type) -> Rule | None:
    """The rule of `cls`, or of the class it inherits its backward from (view's for flatten)."""
    rule = RULES.get(cls)
    if rule is None:
        for base in cls.__mro__[1:]:
            if base in RULES and base.backward is cls.backward:  # type: ignore[attr-defined]
                rule = RULES[cls] = RULES[base]
                break
    return rule


# --- elementwise -------------------------------------------------------------------------------


def _add(node, g):
    return needed(node, lambda: g, lambda: g)


def _sub(node, g):
    return needed(node, lambda: g, lambda: -g)


def _mul(node, g):
    a, b = node.inputs
    return needed(node, lambda: g * b, lambda: g * a)


def _div(node, g):
    a, b = node.inputs
    return needed(node, lambda: g / b, lambda: -g * a / (b * b))


def _pow(node, g):
    a, b = node.inputs
    need_a, need_b = node.needs_input_grad
    grad_a = grad_b = None
    if need_a:
        if isinstance(b, Tensor):
            grad_a = masked(g * b * a ** (b - 1), node.b == 0)
        else:
            grad_a = g * (b * a ** (b - 1)) if b != 0 else g * 0
    if need_b:
        log_a = a.log() if isinstance(a, Tensor) else math.log(a) if a > 0 else -math.inf if a == 0 else math.nan
        grad_b = g * masked(output_tensor(node) * log_a, (node.a == 0) & (node.b >= 0))
    return grad_a, grad_b


def _neg(node, g):
    return (-g,)


def _exp(node, g):
    return (g * output_tensor(node),)


def _log(node, g):
    return (g / node.inputs[0],)


def _log1p(node, g):
    return (g / (1 + node.inputs[0]),)


def _log10(node, g):
    return (g / (node.inputs[0] * LN_10),)


def _sqrt(node, g):
    return (g / (2 * output_tensor(node)),)


def _rsqrt(node, g):
    return (g * -0.5 * output_tensor(node) ** 3,)


def _abs(node, g):
    return (g * node.inputs[0].sign(),)


def _sin(node, g):
    return (g * node.inputs[0].cos(),)


def _cos(node, g):
    return (-g * node.inputs[0].sin(),)


def _tanh(node, g):
    out = output_tensor(node)
    return (g * (1 - out * out),)


def _sigmoid(node, g):
    out = output_tensor(node)
    return (g * out * (1 - out),)


def _constant_factor(node, g):
    """An op whose derivative is constant per element: each input's grad a ConstantFactor node."""
    made = constant_factor_of(type(node))
    return tuple(
        made.apply(g, of=node, position=k) if need and isinstance(x, Tensor) else None
        for k, (x, need) in enumerate(zip(node.inputs, node.needs_input_grad))
    )


def _clone(node, g):
    return (g,)


def _cast(node, g):
    return cast(g, node.source), None


def _custom(node, g):
    return node.tensor_grads(g)  # the user's backward, run under grad mode: its ops are the graph


# --- reductions and shapes ---------------------------------------------------------------------


def _sum(node, g):
    return (expand_back_to(g, node.shape, node.axes, node.keepdim),) + (None,) * (len(node.inputs) - 1)


def _mean(node, g):
    return (expand_back_to(g / node.count, node.shape, node.axes, node.keepdim),) + (None,) * (len(node.inputs) - 1)


def _centered_over_n(node) -> Tensor:
    """var's and std's x − mean(x) over n − correction (inf where that is 0, as torch)."""
    x = node.inputs[0]
    axes = tuple(range(x.ndim)) if node.axes is None else node.axes  # (Mean's backward wants axes with keepdim)
    n = math.prod(x.shape[a] for a in axes) - node.correction
    return (x - Mean.apply(x, axes, True)) * (1 / n if n else math.inf)


def _var(node, g):
    g = expand_back_to(g, node.inputs[0].shape, node.axes, node.keepdim)
    return (2 * g * _centered_over_n(node), None, None, None)


def _std(node, g):
    # where the std is 0 its grad is 0, as torch
    zero = expand_back(node.out == 0, node.inputs[0].shape, node.axes, node.keepdim)
    out = MaskedFill.apply(expand_back_to(output_tensor(node), node.inputs[0].shape, node.axes, node.keepdim), zero, 1)
    g = expand_back_to(g, node.inputs[0].shape, node.axes, node.keepdim)
    return (masked(g / out, zero) * _centered_over_n(node), None, None, None)


def _vector_norm(node, g):
    x, p = node.inputs[0], node.p
    if p < 1:
        return None
    g = expand_back_to(g, x.shape, node.axes, node.keepdim)
    if p == 1:
        return (g * x.sign(), None, None, None)
    # where the norm is 0 its grad is 0, as torch
    zero = expand_back(node.out == 0, x.shape, node.axes, node.keepdim)
    safe = MaskedFill.apply(expand_back_to(output_tensor(node), x.shape, node.axes, node.keepdim), zero, 1)
    if p == 2:
        return (x * masked(g / safe, zero), None, None, None)
    return (x.sign() * x.abs() ** (p - 1) * masked(g / safe ** (p - 1), zero), None, None, None)


def _reshape(node, g):
    return Reshape.apply(g, node.shape), None


def _permute(node, g):
    inverse = [0] * len(node.axes)
    for i, a in enumerate(node.axes):
        inverse[a] = i
    return Permute.apply(g, tuple(inverse)), None


def _expand(node, g):
    return g, None  # the engine sums it back to the input's shape


def _linear_in_input(node, g):
    """An op linear in its one tensor input: its grad is an Adjoint node."""
    args = node.inputs[1:]
    return (adjoint_of(type(node)).apply(g, tuple(node.inputs[0].shape), *args),) + (None,) * len(args)


def _adjoint(node, g):
    return (node.of.apply(g, *node.args), None) + (None,) * len(node.args)


def _cat(node, g):
    indices, start = [], 0
    for size in node.sizes:
        indices.append((slice(None),) * node.axis + (slice(start, start + size), Ellipsis))
        start += size
    return needed(node, *(lambda index=index: GetItem.apply(g, index) for index in indices))


def _stack(node, g):
    before = (slice(None),) * node.axis
    return needed(node, *(lambda i=i: GetItem.apply(g, before + (i, Ellipsis)) for i in range(len(node.inputs))))


# --- matrix products ---------------------------------------------------------------------------


def _matmul(node, g):
    a, b = node.inputs
    if a.ndim == 1 and b.ndim == 1:
        return needed(node, lambda: g * b, lambda: g * a)
    # Lift 1-D operands to matrices, as matmul itself does; the engine sums batch dims back down.
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    g2 = g.unsqueeze(-2) if a.ndim == 1 else g
    g2 = g2.unsqueeze(-1) if b.ndim == 1 else g2
    need_a, need_b = node.needs_input_grad
    grad_a = grad_b = None
    if need_a:
        grad_a = g2 @ b2.mT
        if a.ndim == 1:
            grad_a = grad_a.reshape(-1, a.shape[0]).sum(0)
    if need_b:
        grad_b = a2.mT @ g2
        if b.ndim == 1:
            grad_b = grad_b.reshape(-1, b.shape[0]).sum(0)
    return grad_a, grad_b


def _linear(node, g):
    x, weight = node.inputs[0], node.inputs[1]
    needs = node.needs_input_grad
    gx = g @ weight if needs[0] else None
    g2 = g if g.ndim == 2 else g.reshape(-1, weight.shape[0])
    gw = g2.mT @ (x if x.ndim == 2 else x.reshape(-1, weight.shape[1])) if needs[1] else None
    if len(needs) == 2:
        return gx, gw
    return gx, gw, (g2.sum(0) if needs[2] else None)


RULES: dict[type, Rule] = {
    Add: _add,
    Sub: _sub,
    Mul: _mul,
    Div: _div,
    Pow: _pow,
    Neg: _neg,
    Exp: _exp,
    Log: _log,
    Log1p: _log1p,
    Log10: _log10,
    Sqrt: _sqrt,
    Rsqrt: _rsqrt,
    Abs: _abs,
    Sin: _sin,
    Cos: _cos,
    Tanh: _tanh,
    Sigmoid: _sigmoid,
    Relu: _constant_factor,
    LeakyReLU: _constant_factor,
    Clamp: _constant_factor,
    Maximum: _constant_factor,
    Minimum: _constant_factor,
    Where: _constant_factor,
    MaskedFill: _constant_factor,
    Dropout: _constant_factor,
    Sign: _constant_factor,
    Floor: _constant_factor,
    Ceil: _constant_factor,
    Round: _constant_factor,
    VectorNorm: _vector_norm,
    Var: _var,
    Std: _std,
    ConstantFactor: _constant_factor,
    Clone: _clone,
    Cast: _cast,
    CustomNode: _custom,
    Sum: _sum,
    Mean: _mean,
    Reshape: _reshape,
    Permute: _permute,
    Expand: _expand,
    GetItem: _linear_in_input,
    Narrow: _linear_in_input,
    Gather: _linear_in_input,
    Repeat: _linear_in_input,
    Flip: _linear_in_input,
    Roll: _linear_in_input,
    Triangle: _linear_in_input,
    Cumsum: _linear_in_input,
    Adjoint: _adjoint,
    Cat: _cat,
    Stack: _stack,
    Matmul: _matmul,
    Linear: _linear,
    **LOSS_RULES,
}
