"""The engine's conformance tables, one row per op: the engine's tests check each against torch, the trace's
tests explain each."""

import math
import operator

import torch

import graphscope as gs

# --- tensor ops ------------------------------------------------------------------------------------

# Each registered elementwise op (ops/unary.py) with the input range where it is defined and smooth.
UNARY = {
    "neg": (-2.0, 2.0),
    "exp": (-2.0, 2.0),
    "log": (0.1, 3.0),
    "log1p": (-0.9, 3.0),
    "log10": (0.1, 3.0),
    "sqrt": (0.1, 3.0),
    "rsqrt": (0.1, 3.0),
    "abs": (-2.0, 2.0),
    "sign": (-2.0, 2.0),
    "sin": (-3.0, 3.0),
    "cos": (-3.0, 3.0),
    "asin": (-0.95, 0.95),
    "tanh": (-3.0, 3.0),
    "sigmoid": (-4.0, 4.0),
    "relu": (-2.0, 2.0),
}


BROADCAST_PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((4,), (3, 4)),
    ((3, 1), (1, 4)),
    ((2, 3, 4), (3, 1)),
    ((2, 1, 4), (3, 1)),
    ((1,), (2, 3)),
    ((), (3,)),
    ((2, 3), ()),
    ((), ()),
]


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
}


SCALAR_OPS = {
    "tensor+float": lambda a: a + 2.5,
    "float+tensor": lambda a: 2.5 + a,
    "tensor+int": lambda a: a + 3,
    "int+tensor": lambda a: 3 + a,
    "tensor-float": lambda a: a - 1.5,
    "float-tensor": lambda a: 1.5 - a,
    "tensor*float": lambda a: a * -0.75,
    "float*tensor": lambda a: -0.75 * a,
    "int*tensor": lambda a: 4 * a,
    "tensor/float": lambda a: a / 0.5,
    "float/tensor": lambda a: 3.0 / a,
    "int/tensor": lambda a: 2 / a,
    "tensor/int": lambda a: a / 4,
    "tensor**int": lambda a: a**3,
    "tensor**float": lambda a: a**2.5,
    "tensor**half": lambda a: a**0.5,
    "tensor**negative": lambda a: a**-1.5,
    "float**tensor": lambda a: 2.0**a,
    "int**tensor": lambda a: 3**a,
    "neg": lambda a: -a,
    "neg method": lambda a: a.neg(),
}


MATMUL_SHAPES = [
    ((4,), (4,)),
    ((4,), (4, 3)),
    ((3, 4), (4,)),
    ((3, 4), (4, 2)),
    ((5, 3, 4), (5, 4, 2)),
    ((5, 3, 4), (4, 2)),
    ((3, 4), (5, 4, 2)),
    ((5, 3, 4), (4,)),
    ((4,), (5, 4, 2)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((2, 1, 3, 4), (1, 5, 4, 2)),
]


SHAPE_OPS = {
    "reshape varargs": ((2, 3, 4), lambda x: x.reshape(6, 4)),
    "reshape tuple": ((2, 3, 4), lambda x: x.reshape((4, -1))),
    "reshape to 0-d": ((1, 1), lambda x: x.reshape(())),
    "reshape from 0-d": ((), lambda x: x.reshape(1, 1)),
    "view": ((2, 3, 4), lambda x: x.view(3, 8)),
    "view -1": ((2, 3, 4), lambda x: x.view(-1)),
    "view tuple": ((2, 3, 4), lambda x: x.view((2, 12))),
    "flatten": ((2, 3, 4), lambda x: x.flatten()),
    "flatten start": ((2, 3, 4, 5), lambda x: x.flatten(1)),
    "flatten start end": ((2, 3, 4, 5), lambda x: x.flatten(1, 2)),
    "flatten keywords": ((2, 3, 4, 5), lambda x: x.flatten(start_dim=0, end_dim=-2)),
    "flatten 0-d": ((), lambda x: x.flatten()),
    "squeeze": ((1, 3, 1, 4), lambda x: x.squeeze()),
    "squeeze dim": ((1, 3, 1, 4), lambda x: x.squeeze(2)),
    "squeeze negative dim": ((1, 3, 1), lambda x: x.squeeze(-1)),
    "squeeze non-1 dim is a no-op": ((2, 3), lambda x: x.squeeze(1)),
    "unsqueeze": ((3, 4), lambda x: x.unsqueeze(0)),
    "unsqueeze middle": ((3, 4), lambda x: x.unsqueeze(1)),
    "unsqueeze last": ((3, 4), lambda x: x.unsqueeze(-1)),
    "unsqueeze 0-d": ((), lambda x: x.unsqueeze(0)),
    "transpose": ((2, 3, 4), lambda x: x.transpose(0, 2)),
    "transpose negative": ((2, 3, 4), lambda x: x.transpose(-1, -2)),
    "permute varargs": ((2, 3, 4), lambda x: x.permute(2, 0, 1)),
    "permute tuple": ((2, 3, 4), lambda x: x.permute((1, 2, 0))),
    "permute negative": ((2, 3, 4), lambda x: x.permute(-1, 0, 1)),
    "T": ((3, 4), lambda x: x.T),
    "expand": ((3, 1), lambda x: x.expand(3, 4)),
    "expand -1": ((1, 4), lambda x: x.expand(3, -1)),
    "expand new leading dims": ((3, 1), lambda x: x.expand(2, 3, 5)),
    "expand tuple": ((1, 4), lambda x: x.expand((2, 4))),
    "expand 0-d": ((), lambda x: x.expand(3, 2)),
    "repeat": ((2, 3), lambda x: x.repeat(2, 3)),
    "repeat tuple": ((2, 3), lambda x: x.repeat((1, 2))),
    "repeat more dims": ((2, 3), lambda x: x.repeat(2, 1, 2)),
    "repeat 1-d": ((3,), lambda x: x.repeat(4)),
    "chained views": ((2, 3, 4), lambda x: x.transpose(0, 1).reshape(3, -1).T.unsqueeze(0).squeeze(0)),
}


BASIC_INDEXES = {
    "int": lambda x: x[1],
    "negative int": lambda x: x[-1],
    "two ints to 0-d": lambda x: x[1, 2],
    "three ints": lambda x: x[0, -1, 3],
    "slice": lambda x: x[1:3],
    "step slice": lambda x: x[::2],
    "slice of last dim": lambda x: x[:, :, 1:4:2],
    "column": lambda x: x[:, 1],
    "None": lambda x: x[None],
    "None in the middle": lambda x: x[:, None, 2:],
    "ellipsis": lambda x: x[..., 1],
    "ellipsis and None": lambda x: x[0, ..., None],
    "empty slice": lambda x: x[2:2],
    "list with repeats": lambda x: x[[0, 2, 2, 0]],
    "list on second dim": lambda x: x[:, [1, 1, 0]],
    "two lists": lambda x: x[[0, 1, 1], [2, 0, 2]],
    "list and slice": lambda x: x[[2, 0, 2], 1:],
    "int and list": lambda x: x[1, [0, 0, 2]],
    "negative list": lambda x: x[[-1, 0, -1]],
}


def set_item(index, value=None):
    """y = x * 1 (a non-leaf copy), then y[index] = value (a constant, or the second input)."""

    def fn(x, *v):
        y = x * 1
        y[index] = v[0] if v else value
        return y

    return fn


SETITEMS = {
    "int = float": (set_item(1, 0.5), [(3, 4)]),
    "slice = float": (set_item(slice(0, 2), -1.0), [(3, 4)]),
    "column = tensor": (set_item((slice(None), 1)), [(3, 4), (3,)]),
    "row = broadcast tensor": (set_item(0), [(3, 4), (1,)]),
    "slice = tensor": (set_item(slice(1, 3)), [(3, 4), (2, 4)]),
    "ellipsis = 0-d tensor": (set_item((Ellipsis, 2)), [(3, 4), ()]),
    "list = tensor": (set_item([0, 2]), [(3, 4), (2, 4)]),
    "int pair = 0-d tensor": (set_item((2, 3)), [(3, 4), ()]),
}


INPLACE = {
    "add_ tensor": lambda y, b: y.add_(b),
    "add_ scalar": lambda y, b: y.add_(2.0) * b,
    "sub_ tensor": lambda y, b: y.sub_(b),
    "mul_ tensor": lambda y, b: y.mul_(b),
    "mul_ scalar": lambda y, b: y.mul_(-3.0) + b,
    "div_ tensor": lambda y, b: y.div_(b),
    "div_ scalar": lambda y, b: y.div_(4) + b,
    "zero_": lambda y, b: y.zero_() + b,
    "fill_": lambda y, b: y.fill_(1.5) * b,
    "clamp_": lambda y, b: y.clamp_(-0.5, 0.5) * b,
    "clamp_ min only": lambda y, b: y.clamp_(min=0.0) * b,
    "+=": lambda y, b: operator.iadd(y, b),
    "-=": lambda y, b: operator.isub(y, b),
    "*=": lambda y, b: operator.imul(y, b),
    "/=": lambda y, b: operator.itruediv(y, b),
    "+= scalar": lambda y, b: operator.iadd(y, 1.0) * b,
    "*= scalar": lambda y, b: operator.imul(y, 2) * b,
    "chain of in-place": lambda y, b: y.mul_(b).add_(b).div_(b),
}

DIMS = [None, 0, 1, -1, (0, 2), (-1, 0)]

VECTOR_ORDS = [2, 1, 3, 0.5, 1.5, math.inf, -math.inf, 0]


# --- autograd: custom Functions and composites -----------------------------------------------------


def custom_functions(lib):
    """PyTorch tutorial Functions, written once against `lib` (gs or torch)."""

    class MyReLU(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[input < 0] = 0
            return grad_input

    class LegendrePolynomial3(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input**3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input**2 - 1)

    class MulConstant(lib.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    class LinearFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input, weight, bias):
            ctx.save_for_backward(input, weight, bias)
            return input @ weight.T + bias

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, _bias = ctx.saved_tensors
            return grad_output @ weight, grad_output.T @ input, grad_output.sum(0)

    return {
        "MyReLU": MyReLU,
        "LegendrePolynomial3": LegendrePolynomial3,
        "MulConstant": MulConstant,
        "LinearFunction": LinearFunction,
    }


GS_FUNCTIONS, TORCH_FUNCTIONS = custom_functions(gs), custom_functions(torch)


COMPOSITES = {
    "tanh of affine": (lambda x, w, b: (x @ w + b).tanh(), [(4, 3), (3, 2), (2,)]),
    "softmax weighted": (lambda x, w: (x.softmax(dim=1) * w).sum(dim=1), [(3, 4), (4,)]),
    "log_softmax nll": (lambda x: -x.log_softmax(dim=-1)[[0, 1, 2], [1, 0, 3]].mean(), [(3, 4)]),
    "layer norm by hand": (
        lambda x: (x - x.mean(dim=1, keepdim=True)) / (x.var(dim=1, keepdim=True, correction=0) + 1e-5).sqrt(),
        [(3, 5)],
    ),
    "sigmoid product": (lambda a, b: (a.sigmoid() * b.exp()).prod(dim=0), [(3, 2), (2,)]),
    "logsumexp of matmul": (lambda a, b: (a @ b).logsumexp(dim=(0, 1)), [(2, 3), (3, 4)]),
    "indexing and cat": (
        lambda a, b: gs.cat([a[1:], b.unsqueeze(0)], 0).permute(1, 0).reshape(-1) ** 2,
        [(3, 4), (4,)],
    ),
}


# --- nn.functional -----------------------------------------------------------------------------------

PAD = [
    ("constant_last_dim", (2, 3, 5), (1, 2), {}),
    ("constant_value", (2, 3, 4, 5), (1, 0, 2, 3), dict(value=1.5)),
    ("constant_crop", (2, 3, 4, 5), (1, -1, -2, 0), {}),
    ("constant_every_dim", (2, 3, 4), (1, 1, 0, 2, 1, 0), {}),
    ("constant_crop_to_empty", (2, 3, 4), (-2, -2), {}),
    ("reflect_1d", (2, 3, 5), (2, 4), dict(mode="reflect")),
    ("reflect_2d", (2, 3, 4, 5), (1, 3, 2, 0), dict(mode="reflect")),
    ("reflect_unbatched_3d", (2, 3, 4, 5), (1, 1, 1, 1, 1, 1), dict(mode="reflect")),
    ("reflect_crop", (2, 3, 5), (-1, 2), dict(mode="reflect")),
    ("replicate_1d", (2, 3, 5), (3, 1), dict(mode="replicate")),
    ("replicate_2d", (2, 3, 4, 5), (4, 2, 1, 5), dict(mode="replicate")),
    ("replicate_unbatched", (3, 4), (2, 2), dict(mode="replicate")),
    ("circular_1d", (2, 3, 5), (2, 5), dict(mode="circular")),
    ("circular_2d", (2, 3, 4, 5), (1, 3, 4, 2), dict(mode="circular")),
]

INTERPOLATE = [
    ("nearest_scale_2", (2, 3, 4, 5), dict(scale_factor=2)),
    ("nearest_scale_1_5", (2, 3, 4, 5), dict(scale_factor=1.5)),
    ("nearest_downscale", (2, 3, 7, 9), dict(scale_factor=0.6)),
    ("nearest_size", (2, 3, 7, 5), dict(size=(3, 11))),
    ("nearest_size_int", (2, 3, 7, 5), dict(size=6)),
    ("nearest_per_axis_scale", (2, 3, 4, 5), dict(scale_factor=(2.5, 0.5))),
    ("nearest_recomputed_scale", (2, 3, 5, 5), dict(scale_factor=1.7, recompute_scale_factor=True)),
    ("nearest_1d", (2, 3, 7), dict(size=10)),
    ("nearest_exact", (2, 3, 7, 5), dict(size=(3, 9), mode="nearest-exact")),
    ("bilinear_scale", (2, 3, 7, 5), dict(scale_factor=1.7, mode="bilinear")),
    ("bilinear_size", (2, 3, 7, 5), dict(size=(4, 9), mode="bilinear")),
    ("bilinear_downscale", (2, 3, 8, 9), dict(scale_factor=0.5, mode="bilinear")),
    ("bilinear_align_corners", (2, 3, 7, 5), dict(size=(4, 9), mode="bilinear", align_corners=True)),
    ("bilinear_align_corners_scale", (2, 3, 4, 5), dict(scale_factor=2, mode="bilinear", align_corners=True)),
    ("bilinear_to_one_pixel", (2, 3, 4, 5), dict(size=1, mode="bilinear", align_corners=True)),
    ("linear", (2, 3, 7), dict(size=9, mode="linear")),
    ("linear_align_corners", (2, 3, 7), dict(scale_factor=2.5, mode="linear", align_corners=True)),
    ("area", (2, 3, 7, 5), dict(size=(3, 4), mode="area")),
    ("area_1d", (2, 3, 7), dict(size=3, mode="area")),
]
