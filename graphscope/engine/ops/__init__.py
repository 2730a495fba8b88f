"""The engine's ops as PyTorch-named functions (each primitive lives beside its derivative rule)."""

from .arithmetic import add, div, maximum, minimum, mul, pow, sub, where
from .comparison import (
    allclose,
    bitwise_xor,
    eq,
    equal,
    ge,
    gt,
    isfinite,
    isnan,
    le,
    logical_and,
    logical_not,
    logical_or,
    lt,
    ne,
)
from .histogram import histc, histogram
from .indexing import gather, getitem, index_add, masked_fill, narrow
from .inplace import (
    add_,
    bernoulli_,
    clamp_,
    copy_,
    div_,
    fill_,
    index_add_,
    masked_fill_,
    mul_,
    normal_,
    relu_,
    setitem,
    sin_,
    sub_,
    uniform_,
    zero_,
)
from .matmul import matmul
from .reduction import all, amax, amin, any, argmax, argmin, max, mean, min, prod, std, sum, var
from .sampling import bernoulli, multinomial, normal, poisson
from .shape import (
    cat,
    chunk,
    concat,
    concatenate,
    expand,
    flatten,
    permute,
    repeat,
    reshape,
    split,
    squeeze,
    stack,
    swapaxes,
    t,
    transpose,
    unsqueeze,
    view,
)
from .softmax import log_softmax, logsumexp, softmax
from .unary import ELEMENTWISE as _ELEMENTWISE
from .unary import cast, clamp, clone, to_device

globals().update(_ELEMENTWISE)  # abs, exp, neg, relu, tanh, ...: registered in unary.py, one line each

true_divide = divide = div
multiply = mul
subtract = sub
clip = clamp
negative = _ELEMENTWISE["neg"]
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

# Legacy and convenience names (issue 14): rounding, floor division, ordering, products, norms.
# Loaded last so that their Tensor methods register after the others (the method table keeps its order).
from .norms import dist, norm  # noqa: E402 (loaded last, see above)
from .ordering import argsort, sort, topk, unique  # noqa: E402 (loaded last, see above)
from .products import bmm, cross, dot, einsum, mm, mv  # noqa: E402 (loaded last, see above)
from .reorder import cumsum, flip, roll, tril, triu  # noqa: E402 (loaded last, see above)
from .rounding import ceil, floor, floor_divide, fmod, remainder, round  # noqa: E402 (loaded last, see above)
