"""The supported PyTorch API, read from the --as-torch aliases and grouped as PyTorch's docs group it.

It is the README's list: `python -m graphscope.session.api_list --write` rewrites the part of
README.md between the two api-list marker comments (a test fails while they differ).
"""

from __future__ import annotations

import importlib
import inspect
import sys
import textwrap
import types

from graphscope.engine.tensor import Tensor
from graphscope.readme_section import ReadmeSection

from .torch_alias import ALIASES

# Names of the `torch` module that graphscope has but that are graphscope's own, not PyTorch's.
GRAPHSCOPE_ONLY = {"engine", "hooks"}

# PyTorch's groups of `torch.*` functions, found from the engine module that defines each name.
TORCH_GROUP_BY_MODULE = {
    "tensor": "Tensors",
    "dtypes": "dtypes and devices",
    "backend": "dtypes and devices",
    "creation": "Creation ops",
    "ops.shape": "Indexing, slicing, joining, mutating ops",
    "ops.indexing": "Indexing, slicing, joining, mutating ops",
    "ops.inplace": "Indexing, slicing, joining, mutating ops",
    "random": "Random sampling",
    "ops.arithmetic": "Math operations: pointwise",
    "ops.unary": "Math operations: pointwise",
    "ops.reduction": "Math operations: reduction",
    "ops.comparison": "Math operations: comparison",
    "ops.matmul": "Math operations: BLAS and LAPACK",
    "ops.softmax": "Math operations: other",
    "grad_mode": "Locally disabling gradient computation",
    "size": "Tensors",
    "legacy": "Tensors",
    "ops.rounding": "Math operations: pointwise",
    "ops.ordering": "Math operations: reduction",
    "ops.norms": "Math operations: reduction",
    "ops.reorder": "Math operations: other",
    "ops.products": "Math operations: BLAS and LAPACK",
    "ops.sampling": "Random sampling",
    "printing": "Tensors",
    "ops.histogram": "Math operations: other",
}
# ...and the names that PyTorch's docs group apart from their engine module's siblings.
TORCH_GROUP_BY_NAME = {
    "is_tensor": "Tensors",
    "numel": "Tensors",
    "is_floating_point": "Tensors",
    "cuda": "dtypes and devices",
    "logsumexp": "Math operations: reduction",
    "normal": "Random sampling",
    "bernoulli": "Random sampling",
    "multinomial": "Random sampling",
    "poisson": "Random sampling",
    "Generator": "Random sampling",
    "save": "Serialization",
    "load": "Serialization",
}
# PyTorch's kinds of nn layers, found from (a word in) the name of the file that defines the class.
NN_KIND_BY_FILE_WORD = [
    ("module", "Containers"),
    ("container", "Containers"),
    ("parameter", "Parameters"),
    ("conv", "Convolution layers"),
    ("pool", "Pooling layers"),
    ("pad", "Padding layers"),
    ("activation", "Non-linear activations"),
    ("norm", "Normalization layers"),
    ("rnn", "Recurrent layers"),
    ("recurrent", "Recurrent layers"),
    ("transformer", "Transformer layers"),
    ("attention", "Non-linear activations"),
    ("linear", "Linear layers"),
    ("dropout", "Dropout layers"),
    ("sparse", "Sparse layers"),
    ("embedding", "Sparse layers"),
    ("loss", "Loss functions"),
    ("util", "Utilities"),
]
SECTION_TITLES = {
    "torch.nn.functional": "nn.functional",
    "torch.nn.init": "nn.init",
    "torch.optim": "Optimizers",
    "torch.optim.lr_scheduler": "Learning-rate schedulers",
    "torch.autograd": "Autograd",
}
# The order of PyTorch's docs; groups not named here follow "Learning-rate schedulers".
ORDER = [
    "Tensors",
    "Tensor attributes",
    "Tensor methods",
    "Tensor operators",
    "dtypes and devices",
    "Creation ops",
    "Indexing, slicing, joining, mutating ops",
    "Random sampling",
    "Math operations: pointwise",
    "Math operations: reduction",
    "Math operations: comparison",
    "Math operations: BLAS and LAPACK",
    "Math operations: other",
    "Locally disabling gradient computation",
    "Autograd",
    "Containers",
    "Parameters",
    "Convolution layers",
    "Pooling layers",
    "Padding layers",
    "Non-linear activations",
    "Normalization layers",
    "Recurrent layers",
    "Transformer layers",
    "Linear layers",
    "Dropout layers",
    "Sparse layers",
    "Utilities",
    "Other layers",
    "nn.functional",
    "Loss functions",
    "nn.init",
    "Optimizers",
    "Learning-rate schedulers",
]
LAST = ["Serialization", "Other"]

OPERATORS = {
    "__add__": "+",
    "__sub__": "-",
    "__mul__": "*",
    "__truediv__": "/",
    "__floordiv__": "//",
    "__mod__": "%",
    "__pow__": "**",
    "__matmul__": "@",
    "__neg__": "-x",
    "__pos__": "+x",
    "__abs__": "abs(x)",
    "__eq__": "==",
    "__ne__": "!=",
    "__lt__": "<",
    "__le__": "<=",
    "__gt__": ">",
    "__ge__": ">=",
    "__invert__": "~",
    "__and__": "&",
    "__or__": "|",
    "__xor__": "^",
    "__iadd__": "+=",
    "__isub__": "-=",
    "__imul__": "*=",
    "__itruediv__": "/=",
    "__ifloordiv__": "//=",
    "__imod__": "%=",
    "__getitem__": "x[i]",
    "__setitem__": "x[i] = v",
    "__len__": "len(x)",
    "__iter__": "iter(x)",
    "__bool__": "bool(x)",
    "__float__": "float(x)",
    "__int__": "int(x)",
    "__index__": "x as an index",
}


def public_names(module: types.ModuleType) -> list[str]:
    """A module's public API: its `__all__`, else its public names that are not modules."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return [n for n in names if not isinstance(getattr(module, n), types.ModuleType)]


def _namespace_members(obj: object) -> list[str] | None:
    """`torch.cuda.is_available`...: the members of a class used as a namespace (static members only)."""
    if not inspect.isclass(obj):
        return None
    members = [n for n, v in vars(obj).items() if not n.startswith("_")]
    if members and all(isinstance(vars(obj)[n], (staticmethod, classmethod, type)) for n in members):
        return members
    return None


def supported() -> dict[str, object]:
    """Every supported torch name (`torch.sum`, `torch.nn.Linear`, `torch.Tensor.sum`) and its object."""
    names: dict[str, object] = {}
    for alias, target in ALIASES.items():
        module = importlib.import_module(target)
        for name in public_names(module):
            if alias == "torch" and name in GRAPHSCOPE_ONLY:
                continue
            obj = getattr(module, name)
            members = _namespace_members(obj) if alias == "torch" else None
            for member in members or ():
                names.setdefault(f"{alias}.{name}.{member}", getattr(obj, member))
            if not members:
                names.setdefault(f"{alias}.{name}", obj)
    for name in dir(Tensor):
        if not name.startswith("_"):
            names[f"torch.Tensor.{name}"] = getattr(Tensor, name)
    return names


def _engine_module(obj: object) -> str:
    """The engine module defining `obj`, relative to graphscope.engine (`ops.unary`, `nn.linear`)."""
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str):
        module = type(obj).__module__
    return module.removeprefix("graphscope.engine").lstrip(".")


def _nn_kind(obj: object) -> str:
    stem = _engine_module(obj).rpartition(".")[2]
    return next((kind for word, kind in NN_KIND_BY_FILE_WORD if word in stem), "Other layers")


def group_of(torch_name: str, obj: object) -> tuple[str, str]:
    """(group title, the prefix its names are written under) for one supported name."""
    parent, _, name = torch_name.rpartition(".")
    if parent == "torch.Tensor":
        kind = "Tensor methods" if callable(obj) and not inspect.isdatadescriptor(obj) else "Tensor attributes"
        return kind, "torch.Tensor"
    if torch_name.count(".") > 1 and parent.rpartition(".")[0] == "torch" and parent not in ALIASES:
        parent, name = "torch", torch_name.removeprefix("torch.")  # a namespace member: cuda.is_available
    if parent == "torch":
        head = name.partition(".")[0]
        group = TORCH_GROUP_BY_NAME.get(head)
        if group is None and head.startswith("rand"):
            group = "Random sampling"
        return group or TORCH_GROUP_BY_MODULE.get(_engine_module(obj), "Other"), "torch"
    if parent == "torch.nn":
        return (_nn_kind(obj) if inspect.isclass(obj) else "Utilities"), "torch.nn"
    return SECTION_TITLES.get(parent, parent.removeprefix("torch.")), parent


def groups() -> dict[str, tuple[str, list[str]]]:
    """{title: (prefix, sorted names)} in PyTorch's docs order."""
    found: dict[str, tuple[str, list[str]]] = {}
    for torch_name, obj in supported().items():
        title, prefix = group_of(torch_name, obj)
        found.setdefault(title, (prefix, []))[1].append(torch_name.removeprefix(prefix + "."))
    operators = [
        symbol
        for dunder, symbol in OPERATORS.items()
        if hasattr(Tensor, dunder) and getattr(Tensor, dunder) is not getattr(object, dunder, None)
    ]
    found["Tensor operators"] = ("torch.Tensor", operators)
    ordered = [t for t in ORDER if t in found]
    ordered += sorted(t for t in found if t not in ORDER and t not in LAST)
    ordered += [t for t in LAST if t in found]
    return {
        t: (found[t][0], found[t][1] if t == "Tensor operators" else sorted(found[t][1], key=str.lower))
        for t in ordered
    }


def _lines() -> list[str]:
    """The list's lines: one wrapped bullet per group."""
    lines = []
    for title, (prefix, names) in groups().items():
        text = f"- **{title}** (`{prefix}`): " + ", ".join(f"`{n}`" for n in names)
        lines += textwrap.wrap(text, 100, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)
    return lines


SECTION = ReadmeSection("api-list", "list", _lines)
render, replaced = SECTION.render, SECTION.replaced


if __name__ == "__main__":
    sys.exit(SECTION.main(None, __doc__.splitlines()[0]))
