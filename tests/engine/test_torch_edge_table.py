"""The engine's edge cases against torch 2.13: each row runs the same expression in graphscope and in
torch, and both must give the same exception type, or the same dtype, shape and values.

The rows come from small tables: binary op families over pairs of operands of every promotion
category (dimensioned tensors, zero-dim tensors, Python scalars); creation; errors that torch raises
as RuntimeError, IndexError or NotImplementedError (a script's `except RuntimeError` must catch
ours); Python ints that wrap into integer dtypes; bitwise operators; reductions and softmax over
empty tensors. Some error rows also check the message: torch's first sentence where graphscope
keeps it, else graphscope's own clearer one.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import graphscope as gs

# --- operands: name -> builder(lib) ------------------------------------------------------------------

OPERANDS = {
    "bool[3]": lambda lib: lib.tensor([True, False, True]),
    "uint8[3]": lambda lib: lib.tensor([1, 2, 250], dtype=lib.uint8),
    "int8[3]": lambda lib: lib.tensor([-3, 2, 5], dtype=lib.int8),
    "int32[3]": lambda lib: lib.tensor([-3, 2, 7], dtype=lib.int32),
    "int64[3]": lambda lib: lib.tensor([-3, 2, 7]),
    "float16[3]": lambda lib: lib.tensor([0.5, -1.5, 2.25], dtype=lib.float16),
    "float32[3]": lambda lib: lib.tensor([0.5, -1.5, 2.25]),
    "float64[3]": lambda lib: lib.tensor([0.5, -1.5, 2.25], dtype=lib.float64),
    "bool 0-d": lambda lib: lib.tensor(True),
    "uint8 0-d": lambda lib: lib.tensor(3, dtype=lib.uint8),
    "int16 0-d": lambda lib: lib.tensor(3, dtype=lib.int16),
    "int64 0-d": lambda lib: lib.tensor(3),
    "float16 0-d": lambda lib: lib.tensor(1.5, dtype=lib.float16),
    "float64 0-d": lambda lib: lib.tensor(1.5, dtype=lib.float64),
    "int": lambda lib: 3,
    "float": lambda lib: 1.5,
    "bool": lambda lib: True,
}

# Pairs that cover torch's rules: the higher category wins; within one category a dimensioned
# tensor beats a zero-dim one, which beats a Python scalar; a zero-dim tensor of a higher category
# keeps its own dtype, a Python scalar of a higher category gives the default dtype.
PAIRS = [
    ("int32[3]", "float64 0-d"),
    ("float64 0-d", "int32[3]"),
    ("int32[3]", "float16 0-d"),
    ("uint8[3]", "int16 0-d"),
    ("int8[3]", "int64 0-d"),
    ("bool[3]", "uint8 0-d"),
    ("bool[3]", "int64 0-d"),
    ("bool[3]", "float64 0-d"),
    ("float16[3]", "float64 0-d"),
    ("float32[3]", "int64 0-d"),
    ("int64 0-d", "float16 0-d"),
    ("uint8 0-d", "int16 0-d"),
    ("uint8[3]", "int8[3]"),
    ("int32[3]", "float16[3]"),
    ("bool[3]", "int8[3]"),
    ("float16[3]", "float32[3]"),
    ("int32[3]", "float"),
    ("int8[3]", "int"),
    ("bool[3]", "int"),
    ("bool[3]", "float"),
    ("uint8[3]", "bool"),
    ("float16[3]", "int"),
    ("int", "int16 0-d"),
    ("float", "int64 0-d"),
    ("bool 0-d", "bool[3]"),
]

BINARY = {
    "add": lambda lib, a, b: lib.add(a, b) if _any_tensor(a) else a + b,
    "sub": lambda lib, a, b: lib.sub(a, b) if _any_tensor(a) else a - b,
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b,
    "true_divide": lambda lib, a, b: lib.true_divide(a, b) if _any_tensor(a) else a / b,
    "floor_divide": lambda lib, a, b: a // b,
    "remainder": lambda lib, a, b: a % b,
    "pow": lambda lib, a, b: a**b,
    "eq": lambda lib, a, b: a == b,
    "lt": lambda lib, a, b: a < b,
    "ge": lambda lib, a, b: a >= b,
    "maximum": lambda lib, a, b: lib.maximum(_as_tensor(lib, a), _as_tensor(lib, b)),
    "where": lambda lib, a, b: lib.where(lib.tensor([True, False, True]), a, b),
}


def _any_tensor(value) -> bool:
    """A tensor of either library (the function forms take a tensor first; a number goes through
    the operator, which reflects it)."""
    return hasattr(value, "shape")


def _as_tensor(lib, value):
    """maximum takes tensors only (in torch too): a Python number goes in as a 0-d tensor."""
    return value if _any_tensor(value) else lib.tensor(value)


def _promotion_case(op, left, right):
    def build(lib):
        return BINARY[op](lib, OPERANDS[left](lib), OPERANDS[right](lib))

    return build


PROMOTION = {f"{op}({left}, {right})": _promotion_case(op, left, right) for op in BINARY for left, right in PAIRS}

# --- creation --------------------------------------------------------------------------------------

CREATION = {
    "tensor([-1], uint8) wraps": lambda lib: lib.tensor([-1], dtype=lib.uint8),
    "tensor([-128, -1], uint8) wraps": lambda lib: lib.tensor([-128, -1], dtype=lib.uint8),
    "tensor(-1, uint8) wraps": lambda lib: lib.tensor(-1, dtype=lib.uint8),
    "tensor([256], uint8) overflows": lambda lib: lib.tensor([256], dtype=lib.uint8),
    "tensor([-129], int8) overflows": lambda lib: lib.tensor([-129], dtype=lib.int8),
    "tensor([1.5, 2], int32) truncates": lambda lib: lib.tensor([1.5, -2.7], dtype=lib.int32),
    "tensor([1, 2.5]) is float": lambda lib: lib.tensor([1, 2.5]),
    "tensor([True, 2]) is int64": lambda lib: lib.tensor([True, 2]),
    "tensor([]) is float": lambda lib: lib.tensor([]),
}

# --- errors: torch raises RuntimeError (or IndexError) -------------------------------------------

ERRORS = {
    "add: shapes (2, 3) and (4,)": lambda lib: lib.ones(2, 3) + lib.ones(4),
    "mul: shapes (3,) and (2,)": lambda lib: lib.ones(3) * lib.ones(2),
    "sub: shapes (2, 3) and (3, 2)": lambda lib: lib.ones(2, 3) - lib.ones(3, 2),
    "div: shapes (5,) and (4,)": lambda lib: lib.ones(5) / lib.ones(4),
    "pow: shapes (5,) and (4,)": lambda lib: lib.ones(5) ** lib.ones(4),
    "maximum: shapes (5,) and (4,)": lambda lib: lib.maximum(lib.ones(5), lib.ones(4)),
    "eq: shapes (5,) and (4,)": lambda lib: lib.ones(5) == lib.ones(4),
    "lt: shapes (5,) and (4,)": lambda lib: lib.ones(5) < lib.ones(4),
    "where: shapes (2,), (3,), (3,)": lambda lib: lib.where(lib.tensor([True, False]), lib.ones(3), lib.zeros(3)),
    "add_: shapes (3,) into (2,)": lambda lib: lib.ones(2).add_(lib.ones(3)),
    "add_: broadcast (2, 3) into (3,)": lambda lib: lib.ones(3).add_(lib.ones(2, 3)),
    "view: 6 elements as (4,)": lambda lib: lib.ones(6).view(4),
    "view: two -1": lambda lib: lib.ones(6).view(-1, -1),
    "view: -1 that does not divide": lambda lib: lib.ones(6).view(-1, 4),
    "reshape: 6 elements as (2, 2)": lambda lib: lib.ones(6).reshape(2, 2),
    "reshape: two -1": lambda lib: lib.ones(6).reshape(-1, -1),
    "view of a transposed tensor": lambda lib: lib.ones(2, 3).t().view(6),
    "dot of unequal sizes": lambda lib: lib.dot(lib.ones(3), lib.ones(4)),
    "dot of 2-d tensors": lambda lib: lib.dot(lib.ones(2, 2), lib.ones(2, 2)),
    "dot of float and double": lambda lib: lib.dot(lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "mm of (2, 3) and (2, 3)": lambda lib: lib.mm(lib.ones(2, 3), lib.ones(2, 3)),
    "matmul of (2, 3) and (2, 3)": lambda lib: lib.ones(2, 3) @ lib.ones(2, 3),
    "matmul of (3,) and (4,)": lambda lib: lib.ones(3) @ lib.ones(4),
    "mv of (2, 3) and (2,)": lambda lib: lib.mv(lib.ones(2, 3), lib.ones(2)),
    "bmm of 2-d tensors": lambda lib: lib.bmm(lib.ones(2, 3), lib.ones(3, 2)),
    "int tensor ** -1": lambda lib: lib.tensor([1, 2]) ** -1,
    "int tensor ** int tensor of negatives": lambda lib: lib.tensor([1, 2]) ** lib.tensor([-1, 2]),
    "pow(int tensor, -2)": lambda lib: lib.pow(lib.tensor([2, 3], dtype=lib.int32), -2),
    "bool - bool": lambda lib: lib.tensor([True, False]) - lib.tensor([True, True]),
    "bool - True": lambda lib: lib.tensor([True, False]) - True,
    "sub(bool, bool)": lambda lib: lib.sub(lib.tensor([True]), lib.tensor([False])),
    "-bool tensor": lambda lib: -lib.tensor([True, False]),
    "neg(bool tensor)": lambda lib: lib.neg(lib.tensor([True, False])),
    "cat of mismatched shapes": lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 4)]),
    "stack of mismatched shapes": lambda lib: lib.stack([lib.ones(2), lib.ones(3)]),
    "index out of range": lambda lib: lib.ones(3)[3],
    "negative index out of range": lambda lib: lib.ones(3)[-4],
    "dim out of range for sum": lambda lib: lib.ones(3).sum(1),
    "dim out of range for softmax": lambda lib: lib.ones(3).softmax(2),
    "dim out of range for unsqueeze": lambda lib: lib.ones(3).unsqueeze(3),
    "permute with too few dims": lambda lib: lib.ones(2, 3).permute(0),
    "transpose dim out of range": lambda lib: lib.ones(2, 3).transpose(0, 2),
    "expand to a smaller size": lambda lib: lib.ones(3).expand(2),
    "gather index out of range": lambda lib: lib.gather(lib.ones(3), 0, lib.tensor([3])),
    "integer floor_divide by zero": lambda lib: lib.tensor([1, 2]) // lib.tensor([1, 0]),
    "integer remainder by zero": lambda lib: lib.tensor([1, 2]) % 0,
    "floor_divide of bools": lambda lib: lib.tensor([True]) // lib.tensor([True]),
    "backward of a non-scalar": lambda lib: lib.ones(2, requires_grad=True).mul(2).backward(),
    "backward of a tensor without grad": lambda lib: lib.ones(2).sum().backward(),
    "squeeze dim out of range": lambda lib: lib.ones(2, 1).squeeze(2),
    "split of size 0": lambda lib: lib.ones(4).split(0),
    "max(dim) of an empty dim": lambda lib: lib.ones(0, 3).max(0),
    "argmax of an empty tensor": lambda lib: lib.ones(0).argmax(),
    "max of an empty tensor": lambda lib: lib.ones(0).max(),
    "min of an empty tensor": lambda lib: lib.ones(0, 2).min(),
    "amax of an empty tensor": lambda lib: lib.ones(0).amax(),
    "argmin(dim) over an empty dim": lambda lib: lib.ones(2, 0).argmin(1),
}

MORE_ERRORS = {
    "ones(-1)": lambda lib: lib.ones(-1),
    "zeros(2.5)": lambda lib: lib.zeros(2.5),
    "stack of an empty list": lambda lib: lib.stack([]),
    "arange with step 0": lambda lib: lib.arange(0, 5, 0),
    "randint with high <= low": lambda lib: lib.randint(3, 3, (2,)),
    "split sections that do not sum": lambda lib: lib.ones(4).split([1, 2]),
    "chunk into 0": lambda lib: lib.ones(4).chunk(0),
    "flatten with start after end": lambda lib: lib.ones(2, 3, 4).flatten(2, 1),
    "t() of a 3-d tensor": lambda lib: lib.ones(2, 3, 4).t(),
    "repeat with too few sizes": lambda lib: lib.ones(2, 3).repeat(2),
    "expand with too few sizes": lambda lib: lib.ones(2, 3).expand(3),
    "cat of an empty list": lambda lib: lib.cat([]),
    "masked_fill with a mask that does not broadcast": lambda lib: lib.ones(3).masked_fill(
        lib.tensor([True, False]), 0.0
    ),
    "setitem of a value that does not fit": lambda lib: lib.ones(3).__setitem__(slice(0, 2), lib.ones(3)),
    "gather with an index of other rank": lambda lib: lib.gather(lib.ones(3, 2), 0, lib.tensor([0])),
    "amax over an empty dim": lambda lib: lib.ones(0, 3).amax(0),
    "int tensor add_ a float": lambda lib: lib.tensor([1, 2]).add_(1.5),
    "int tensor mul_ a float tensor": lambda lib: lib.tensor([1, 2]).mul_(lib.tensor([1.5, 2.0])),
    "bool tensor sub_": lambda lib: lib.tensor([True, False]).sub_(lib.tensor([True, True])),
    "add_ of a leaf": lambda lib: lib.ones(3, requires_grad=True).add_(1),
    "add_ of a slice of a leaf": lambda lib: lib.ones(3, requires_grad=True)[0:2].add_(1),
    "mul_ of a view of a leaf": lambda lib: lib.ones(3, requires_grad=True).view(3).mul_(2),
    "setitem of a slice of a leaf": lambda lib: lib.ones(3, requires_grad=True)[:2].__setitem__(0, 1.0),
    "fill_ of an element of a leaf": lambda lib: lib.ones(3, requires_grad=True)[0].fill_(1.0),
    "view of a sliced tensor": lambda lib: lib.ones(4, 4)[:, :2].view(8),
    "view of a permuted tensor, dims kept apart": lambda lib: lib.ones(2, 3, 4).permute(1, 0, 2).view(6, 4),
}

# Python integers that do not fit an integer tensor's dtype wrap around, as a C cast (NumPy raises).
WRAPPING = {
    "uint8 tensor + -1": lambda lib: lib.zeros(2, dtype=lib.uint8) + (-1),
    "uint8 tensor + 300": lambda lib: lib.zeros(2, dtype=lib.uint8) + 300,
    "int8 tensor * 200": lambda lib: lib.ones(2, dtype=lib.int8) * 200,
    "-1 - uint8 tensor": lambda lib: -1 - lib.ones(2, dtype=lib.uint8),
    "uint8 tensor == -1": lambda lib: lib.zeros(2, dtype=lib.uint8) == -1,
    "int16 tensor fill_(70000) overflows": lambda lib: lib.zeros(2, dtype=lib.int16).fill_(70000),
    "uint8 tensor fill_(-1)": lambda lib: lib.zeros(2, dtype=lib.uint8).fill_(-1),
    "uint8 tensor fill_(-256) overflows": lambda lib: lib.zeros(2, dtype=lib.uint8).fill_(-256),
    "int8 tensor setitem 128 overflows": lambda lib: _set(lib.zeros(2, dtype=lib.int8), 0, 128),
    "uint8 tensor setitem -1": lambda lib: _set(lib.zeros(2, dtype=lib.uint8), 0, -1),
    "uint8 masked_fill -1": lambda lib: lib.zeros(2, dtype=lib.uint8).masked_fill(lib.tensor([True, False]), -1),
    "uint8 clamp(min=-1)": lambda lib: lib.zeros(2, dtype=lib.uint8).clamp(min=-1),
    "uint8 add_(-1)": lambda lib: lib.zeros(2, dtype=lib.uint8).add_(-1),
}

# Bitwise operators: logical on bools, bitwise on integers, refused on floats.
BITWISE = {
    "int & int": lambda lib: lib.tensor([1, 2, 6]) & lib.tensor([3, 3, 4]),
    "int | bool tensor": lambda lib: lib.tensor([1, 2]) | lib.tensor([True, False]),
    "bool & 1": lambda lib: lib.tensor([True, False]) & 1,
    "int ^ int": lambda lib: lib.tensor([1, 2]) ^ lib.tensor([3, 3]),
    "bool ^ bool": lambda lib: lib.tensor([True, False]) ^ lib.tensor([True, True]),
    "~int": lambda lib: ~lib.tensor([1, -2], dtype=lib.int32),
    "~bool": lambda lib: ~lib.tensor([True, False]),
    "~float": lambda lib: ~lib.tensor([1.0]),
    "float & float": lambda lib: lib.tensor([1.0]) & lib.tensor([1.0]),
    "bool | bool": lambda lib: lib.tensor([True, False]) | lib.tensor([False, False]),
}

OTHERS = {
    "where of two Python floats": lambda lib: lib.where(lib.tensor([True, False]), 1.0, 0.0),
    "where of a float and an int": lambda lib: lib.where(lib.tensor([True, False]), 1.0, 0),
    "where of two ints": lambda lib: lib.where(lib.tensor([True, False]), 1, 0),
    "where of two bools": lambda lib: lib.where(lib.tensor([True, False]), True, False),
    "where of an int64 condition": lambda lib: lib.where(lib.tensor([1, 0]), 1.0, 0.0),
    "where of a float condition": lambda lib: lib.where(lib.tensor([1.0, 0.0]), lib.ones(2), lib.zeros(2)),
    "cat of 0-d tensors": lambda lib: lib.cat([lib.tensor(1.0), lib.tensor(2.0)]),
    "arange with a step of the wrong sign": lambda lib: lib.arange(0, 5, -1),
    "arange(5, 5)": lambda lib: lib.arange(5, 5),
    "float() of two elements": lambda lib: float(lib.ones(2)),
    "int() of two elements": lambda lib: int(lib.ones(2)),
    "item() of two elements": lambda lib: lib.ones(2).item(),
    "linear with the wrong in_features": lambda lib: lib.nn.functional.linear(lib.ones(2, 4), lib.ones(2, 3)),
    "mse_loss of shapes that do not broadcast": lambda lib: lib.nn.functional.mse_loss(lib.ones(2, 3), lib.ones(4, 3)),
    "cross_entropy of probabilities of another shape": lambda lib: lib.nn.functional.cross_entropy(
        lib.ones(2, 3), lib.ones(2, 4)
    ),
}

# nn's errors of torch's types: RuntimeError from shapes, ValueError where torch checks sizes itself.
NN_ERRORS = {
    "cross_entropy of a 2-d class target": lambda lib: lib.nn.functional.cross_entropy(
        lib.ones(2, 3), lib.tensor([[0], [1]])
    ),
    "cross_entropy of another batch size": lambda lib: lib.nn.functional.cross_entropy(
        lib.ones(2, 3), lib.tensor([0, 1, 2])
    ),
    "cross_entropy of a wrong spatial target": lambda lib: lib.nn.functional.cross_entropy(
        lib.ones(2, 3, 4), lib.zeros(2, 5, dtype=lib.int64)
    ),
    "nll_loss of another batch size": lambda lib: lib.nn.functional.nll_loss(lib.ones(2, 3), lib.tensor([0, 1, 2])),
    "layer_norm of another normalized_shape": lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3), (4,)),
    "embedding of float indices": lambda lib: lib.nn.functional.embedding(lib.tensor([0.0]), lib.ones(3, 2)),
    "binary_cross_entropy of a value above 1": lambda lib: lib.nn.functional.binary_cross_entropy(
        lib.tensor([1.5]), lib.tensor([1.0])
    ),
    "binary_cross_entropy of shapes that differ": lambda lib: lib.nn.functional.binary_cross_entropy(
        lib.tensor([0.5, 0.5]), lib.tensor([1.0])
    ),
    "binary_cross_entropy_with_logits of shapes that differ": lambda lib: (
        lib.nn.functional.binary_cross_entropy_with_logits(lib.ones(2), lib.ones(3))
    ),
    "l1_loss of shapes that differ": lambda lib: lib.nn.functional.l1_loss(lib.ones(2), lib.ones(3)),
    "huber_loss of shapes that differ": lambda lib: lib.nn.functional.huber_loss(lib.ones(2), lib.ones(3)),
    "kl_div of shapes that differ": lambda lib: lib.nn.functional.kl_div(lib.ones(2), lib.ones(3)),
    "linear with a 1-d weight": lambda lib: lib.nn.functional.linear(lib.ones(2, 3), lib.ones(3)),
    "linear with a 1-d weight and a bias": lambda lib: lib.nn.functional.linear(
        lib.ones(2, 3), lib.ones(3), lib.tensor(0.5)
    ),
    "linear with a 3-d weight": lambda lib: lib.nn.functional.linear(lib.ones(2, 3), lib.ones(1, 3, 3)),
    "masked_fill of a float mask": lambda lib: lib.ones(2).masked_fill(lib.ones(2), 0.0),
    "masked_fill of a list mask": lambda lib: lib.ones(2).masked_fill([True, False], 0.0),
}


def _set(tensor, index, value):
    tensor[index] = value
    return tensor


# Rows whose message graphscope keeps as torch's (its first sentence, at least).
TORCH_MESSAGES = {
    "bool - bool",
    "bool - True",
    "-bool tensor",
    "int tensor ** -1",
    "add_ of a leaf",
    "add_ of a slice of a leaf",
    "mul_ of a view of a leaf",
    "setitem of a slice of a leaf",
    "fill_ of an element of a leaf",
    "view of a transposed tensor",
}

# graphscope's own (clearer) message where it differs from torch's: what it must begin with.
GRAPHSCOPE_MESSAGES = {
    "add: shapes (2, 3) and (4,)": "add: shapes (2, 3) and (4,) cannot be broadcast together",
    "where: shapes (2,), (3,), (3,)": "where: shapes (2,), (3,) and (3,) cannot be broadcast together",
    "view: 6 elements as (4,)": "reshape: shape (6,) (6 elements) cannot become (4,)",
    "matmul of (2, 3) and (2, 3)": "matmul: (2, 3) @ (2, 3): inner dimensions 3 and 2 differ",
    "floor_divide of bools": "floor_divide is not implemented for bool tensors",
    "pow(bool 0-d, bool[3])": "pow is not implemented for a bool base and a bool exponent",
    "max(dim) of an empty dim": "max(): expected reduction dim 0 to have non-zero size",
    "argmax of an empty tensor": "argmax(): expected a non-empty tensor, got shape (0,); give the reduction dim",
    "max of an empty tensor": "max(): expected a non-empty tensor, got shape (0,)",
    "gather index out of range": "gather: index out of range: values must be in [0, 3) for dim 0",
    "int16 tensor fill_(70000) overflows": "value cannot be converted to type int16 without overflow: 70000",
    "float & float": "bitwise_and is not implemented for floating point operands",
    "~float": "~ (operator.invert) is only implemented on integer and Boolean-type tensors",
    "where of an int64 condition": "where expected condition to be a boolean tensor, but got a tensor with dtype int64",
    "cat of 0-d tensors": "zero-dimensional tensor (at position 0) cannot be concatenated",
    "arange with a step of the wrong sign": "arange: upper bound and lower bound inconsistent with step sign",
    "float() of two elements": "only one element tensors can be converted to Python scalars",
    "ones(-1)": "Trying to create tensor with negative dimension -1",
    "linear with the wrong in_features": "linear: input of shape (2, 4) does not match weight of shape (2, 3)",
}

# --- empty tensors that give empty (or well-defined) results -----------------------------------

EMPTY = {
    "softmax of an empty tensor": lambda lib: lib.ones(0).softmax(0),
    "softmax of (0, 3) over dim 1": lambda lib: lib.ones(0, 3).softmax(1),
    "softmax of (0, 3) over dim 0": lambda lib: lib.ones(0, 3).softmax(0),
    "log_softmax of (2, 0)": lambda lib: lib.ones(2, 0).log_softmax(1),
    "max(dim=1) of (0, 3)": lambda lib: lib.ones(0, 3).max(dim=1),
    "min(dim=1) of (0, 3)": lambda lib: lib.ones(0, 3).min(dim=1),
    "argmax(dim=1) of (0, 3)": lambda lib: lib.ones(0, 3).argmax(dim=1),
    "amax(dim=1) of (0, 3)": lambda lib: lib.ones(0, 3).amax(dim=1),
    "sum of an empty tensor": lambda lib: lib.ones(0).sum(),
    "mean of an empty tensor": lambda lib: lib.ones(0).mean(),
    "prod of an empty tensor": lambda lib: lib.ones(0).prod(),
    "sum(dim=0) of (0, 3)": lambda lib: lib.ones(0, 3).sum(0),
    "cumsum of an empty tensor": lambda lib: lib.ones(0).cumsum(0),
    "logsumexp of an empty tensor": lambda lib: lib.ones(0).logsumexp(0),
    "sort of an empty tensor": lambda lib: lib.ones(0).sort(),
    "matmul of (2, 0) and (0, 3)": lambda lib: lib.ones(2, 0) @ lib.ones(0, 3),
    "cat of an empty and a full": lambda lib: lib.cat([lib.ones(0, 2), lib.ones(1, 2)]),
    "exp of an empty tensor": lambda lib: lib.ones(0).exp(),
    "empty + 0-d": lambda lib: lib.ones(0) + lib.tensor(2.0),
    "all of an empty tensor": lambda lib: lib.ones(0).all(),
    "any of an empty tensor": lambda lib: lib.ones(0).any(),
    "norm of an empty tensor": lambda lib: lib.ones(0).norm(),
}

CASES = {**PROMOTION, **CREATION, **ERRORS, **MORE_ERRORS, **WRAPPING, **BITWISE, **OTHERS, **NN_ERRORS, **EMPTY}


def _builtin_type(error: BaseException) -> str:
    """The nearest builtin exception class: what a script's `except` clause sees."""
    for cls in type(error).__mro__:
        if cls.__module__ == "builtins":
            return cls.__name__
    raise AssertionError(f"no builtin base for {type(error)!r}")


def _outcome(lib, build):
    """('raises', type name) or ('gives', [(dtype, shape, values)...]) for one library."""
    try:
        result = build(lib)
    except Exception as error:  # noqa: BLE001 (the row compares whatever each library raises)
        return ("raises", _builtin_type(error), str(error))
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    described = []
    for item in results:
        if hasattr(item, "shape"):
            described.append((str(item.dtype).split(".")[-1], tuple(item.shape), item.detach().cpu().numpy()))
        else:
            described.append((type(item).__name__, (), np.asarray(item)))
    return ("gives", described)


def _same_values(got, expected) -> bool:
    if got.dtype.kind == "f" or expected.dtype.kind == "f":
        return bool(np.allclose(got.astype(np.float64), expected.astype(np.float64), rtol=1e-3, equal_nan=True))
    return bool(np.array_equal(got, expected))


@pytest.mark.filterwarnings("ignore:Using a target size", "ignore:reduction")  # torch warns before it raises
@pytest.mark.parametrize("case", list(CASES))
def test_the_engine_matches_torch(case):
    got, expected = _outcome(gs, CASES[case]), _outcome(torch, CASES[case])
    if expected[0] == "raises":
        assert got[0] == "raises", f"torch raises {expected[1]}: {expected[2]}; graphscope gives {got[1]}"
        assert got[1] == expected[1], f"graphscope raises {got[1]}: {got[2]}; torch raises {expected[1]}: {expected[2]}"
        if case in TORCH_MESSAGES:
            assert got[2].startswith(expected[2].split(". ")[0]), f"{got[2]!r} does not begin as {expected[2]!r}"
        if GRAPHSCOPE_MESSAGES.get(case):
            assert got[2].startswith(GRAPHSCOPE_MESSAGES[case]), got[2]
        return
    assert got[0] == "gives", f"graphscope raises {got[1]}: {got[2]}; torch gives {expected[1]}"
    assert len(got[1]) == len(expected[1])
    for (g_dtype, g_shape, g_values), (e_dtype, e_shape, e_values) in zip(got[1], expected[1]):
        assert (g_dtype, g_shape) == (e_dtype, e_shape)
        assert _same_values(g_values, e_values), f"{g_values} != {e_values}"


def test_the_table_has_at_least_150_rows():
    assert len(CASES) >= 150
    assert set(CASES) >= TORCH_MESSAGES | set(GRAPHSCOPE_MESSAGES)
