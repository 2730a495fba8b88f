"""Every op and module of the engine's conformance tables as a case to explain: the explain tests check each
explained grad against torch and each printed formula against its arithmetic."""

import numpy as np
import torch

import graphscope as gs
from tests.engine import op_tables
from tests.engine.nn import module_tables


def _op_cases():
    """(id, fn on gs or torch tensors, input specs, module maker or None) from the engine's tables."""
    cases = []
    for op, (low, high) in op_tables.UNARY.items():
        cases.append((f"unary {op}", lambda x, op=op: getattr(x, op)(), [(3, 4)], (low, high)))
    binary = op_tables.BINARY
    for op, fn in binary.items():
        for shapes in op_tables.BROADCAST_PAIRS:
            cases.append((f"{op} {shapes}", fn, list(shapes), (0.5, 2.0)))
    for op, fn in op_tables.SCALAR_OPS.items():
        cases.append((op, fn, [(3, 4)], (0.5, 2.0)))
    for shapes in op_tables.MATMUL_SHAPES:
        cases.append((f"matmul {shapes}", lambda a, b: a @ b, list(shapes), (-2.0, 2.0)))
    for name, (shape, fn) in op_tables.SHAPE_OPS.items():
        cases.append((name, fn, [shape], (-2.0, 2.0)))
    for name, fn in op_tables.BASIC_INDEXES.items():
        cases.append((f"index {name}", fn, [(3, 4, 5)], (-2.0, 2.0)))
    for name, (fn, shapes) in op_tables.SETITEMS.items():
        cases.append((f"setitem {name}", fn, shapes, (-2.0, 2.0)))
    for name, fn in op_tables.INPLACE.items():
        cases.append((f"inplace {name}", lambda x, b, fn=fn: fn(x * 2, b), [(3, 4), (4,)], (0.5, 2.0)))
    for op in ["sum", "mean", "amax", "amin", "var", "std", "prod", "logsumexp", "softmax", "log_softmax"]:
        for dim in op_tables.DIMS:
            if dim is None and op in ("logsumexp", "softmax", "log_softmax"):
                continue
            if op in ("softmax", "log_softmax", "prod") and not isinstance(dim, (int, type(None))):
                continue  # torch takes one dim for these
            kwargs = {} if dim is None else {"dim": dim}
            cases.append((f"{op} dim={dim}", lambda x, op=op, kw=kwargs: getattr(x, op)(**kw), [(2, 3, 4)], (0.5, 2.0)))
    for name, (fn, shapes) in op_tables.COMPOSITES.items():
        if name == "indexing and cat":  # it calls gs.cat by name, so it has no torch twin; cat is below
            continue
        cases.append((f"composite {name}", fn, shapes, (-1.0, 1.0)))
    for name, shape, pad, kwargs in op_tables.PAD:
        cases.append((f"pad {name}", lambda x, p=pad, kw=kwargs: _F(x).pad(x, p, **kw), [shape], (-2.0, 2.0)))
    for name, shape, kwargs in op_tables.INTERPOLATE:
        cases.append((f"interpolate {name}", lambda x, kw=kwargs: _F(x).interpolate(x, **kw), [shape], (-2.0, 2.0)))
    for ord in op_tables.VECTOR_ORDS:
        cases.append((f"vector_norm {ord}", lambda x, o=ord: _lib(x).linalg.vector_norm(x, o, 1), [(3, 4)], (0.5, 2.0)))
    # Ops whose conformance tests list their cases inline (a parametrize, not a table): one case each.
    more = {
        "cat": (lambda a, b: _lib(a).cat([a, b], 1), [(3, 2), (3, 4)]),
        "stack": (lambda a, b: _lib(a).stack([a, b]), [(3, 2), (3, 2)]),
        "where": (lambda a, b: _lib(a).where(a > b, a, b), [(3, 4), (4,)]),
        "maximum": (lambda a, b: _lib(a).maximum(a, b), [(3, 4), (4,)]),
        "minimum": (lambda a, b: _lib(a).minimum(a, b), [(3, 4), (3, 1)]),
        "clamp": (lambda x: x.clamp(-0.5, 0.5), [(3, 4)]),
        "clamp min": (lambda x: x.clamp(min=0.0), [(3, 4)]),
        "masked_fill": (lambda x: x.masked_fill(x > 0.5, 2.0), [(3, 4)]),
        "gather": (lambda x: _lib(x).gather(x, 1, _lib(x).tensor([[0, 2], [1, 1], [3, 0]])), [(3, 4)]),
        "flip": (lambda x: x.flip(0), [(3, 4)]),
        "roll": (lambda x: x.roll(1, 1), [(3, 4)]),
        "tril": (lambda x: x.tril(), [(3, 4)]),
        "triu": (lambda x: x.triu(1), [(3, 4)]),
        "cumsum": (lambda x: x.cumsum(1), [(3, 4)]),
        "sort": (lambda x: x.sort(1)[0], [(3, 4)]),
        "topk": (lambda x: x.topk(2, 1)[0], [(3, 4)]),
        "max dim": (lambda x: x.max(1)[0], [(3, 4)]),
        "min dim": (lambda x: x.min(0)[0], [(3, 4)]),
        "narrow": (lambda x: _lib(x).narrow(x, 1, 1, 2), [(3, 4)]),
        "remainder": (lambda a, b: a % b, [(3, 4), (4,)]),
        "floor": (lambda x: x.floor(), [(3, 4)]),
        "round": (lambda x: x.round(), [(3, 4)]),
        "clone": (lambda x: x.clone() * 2, [(3, 4)]),
        "leaky_relu": (lambda x: _F(x).leaky_relu(x, 0.2), [(3, 4)]),
        "gelu": (lambda x: _F(x).gelu(x), [(3, 4)]),
        "layer_norm": (lambda x, w, b: _F(x).layer_norm(x, (4,), w, b), [(3, 4), (4,), (4,)]),
        "mse_loss": (lambda x, y: _F(x).mse_loss(x, y), [(3, 4), (3, 4)]),
        "cast": (lambda x: x.float().double() * 3, [(3, 4)]),
        "ceil": (lambda x: x.ceil(), [(3, 4)]),
        "nuclear norm": (lambda x: _lib(x).linalg.matrix_norm(x, "nuc"), [(3, 4)]),
        "embedding": (lambda w: _F(w).embedding(_lib(w).tensor([[0, 2], [2, 1]]), w), [(3, 4)]),
        "l1_loss": (lambda x, y: _F(x).l1_loss(x, y), [(3, 4), (3, 4)]),
    }
    for name, (fn, shapes) in more.items():
        cases.append((name, fn, shapes, (0.25, 2.0)))
    return cases


def _lib(x):
    """graphscope or torch, whichever `x` belongs to: one lambda serves both."""
    return torch if isinstance(x, torch.Tensor) else gs


def _F(x):
    return torch.nn.functional if isinstance(x, torch.Tensor) else gs.nn.functional


CASES = _op_cases()


def _module_cases():
    """(id, make(nn), input arrays) from the nn conformance tables: layers, losses, conv, pooling, norms."""
    rng = np.random.default_rng(1)
    cases = []
    for name, make, shapes in module_tables.LAYERS:
        if name == "identity":  # it makes no node: no step to explain
            continue
        cases.append((name, lambda lib, make=make: make()[lib is torch.nn], [rng.uniform(-2, 2, s) for s in shapes]))
    for name, make, inputs in module_tables.LOSSES:
        cases.append((name, lambda lib, make=make: make()[lib is torch.nn], inputs()))
    for name, options, specs in module_tables.LOSS_MODULES:
        if name == "CosineEmbeddingLoss":  # its target is -1/1 ints and its table spec carries them
            continue
        cases.append(
            (name, lambda lib, n=name, o=options: getattr(lib, n)(**o), [rng.uniform(-2, 2, s) for s in specs])
        )
    for table in (
        module_tables.CONV_MODULES,
        module_tables.POOLING_MODULES,
        module_tables.BATCHNORM_MODULES,
        module_tables.UPSAMPLE,
    ):
        for name, make, shape in table:
            cases.append((name, make, [rng.uniform(-2, 2, shape)]))
    return cases


MODULE_CASES = _module_cases()
