"""Tensor's methods and operators are the ops themselves, set by the ops: tensor.py holds no forwarders."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from graphscope.engine import Tensor, ops
from graphscope.engine.ops.tensor_methods import METHODS

TENSOR_PY = Path(__file__).resolve().parents[2] / "graphscope" / "engine" / "tensor.py"


def _imported_modules(path: Path) -> set[str]:
    """Every module an import statement in `path` names, relative ones with their dots."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.add(base)
            names.update(f"{base}.{alias.name}" if node.module else base + alias.name for alias in node.names)
    return names


def test_tensor_py_never_imports_the_ops():
    imported = _imported_modules(TENSOR_PY)
    assert not [name for name in imported if "ops" in name.split(".")], imported


def _is_method_only(name, fn) -> bool:
    """A function that exists only as a Tensor method, putting an op's arguments in its order."""
    return fn.__qualname__ == f"Tensor.{name}"


def test_each_tensor_method_from_an_op_module_went_through_the_registry():
    for name, value in vars(Tensor).items():
        fn = getattr(value, "fget", value)
        fn = getattr(fn, "__wrapped__", fn)
        if callable(fn) and getattr(fn, "__module__", "").startswith("graphscope.engine.ops"):
            assert METHODS.get(name) is fn, name


def test_a_method_is_its_op_unless_it_reorders_the_arguments():
    public = {id(f) for n, f in vars(ops).items() if callable(f) and not n.startswith("_")}
    for name, fn in METHODS.items():
        op = vars(ops).get(name)
        if _is_method_only(name, fn):
            if callable(op):  # only where the op's arguments differ: otherwise the op would do
                method_args = list(inspect.signature(fn).parameters.values())[1:]
                op_args = list(inspect.signature(op).parameters.values())[1:]
                assert method_args != op_args, name
        else:
            assert id(fn) in public, f"Tensor.{name} is not a public op"
            if callable(op):
                assert fn is op, f"Tensor.{name} is not ops.{name}"


def test_methods_and_operators_are_the_op_functions_with_nothing_in_between():
    assert Tensor.exp is ops.exp and Tensor.matmul is ops.matmul and Tensor.reshape is ops.reshape
    assert Tensor.__add__ is ops.add and Tensor.__mul__ is ops.mul and Tensor.__getitem__ is ops.getitem
    assert Tensor.__neg__ is ops.neg and Tensor.__lt__ is ops.lt and Tensor.clip is ops.clamp
    for name, fn in METHODS.items():
        value = vars(Tensor)[name]
        if isinstance(value, property):
            assert value.fget is fn, name
        elif value is not fn:  # only the `keepdims=` spelling may wrap a method (x.sum(1, keepdims=True))
            assert value.__wrapped__ is fn and "keepdim" in inspect.signature(fn).parameters, name


def test_methods_read_as_torch_names_them():
    assert Tensor.sum.__name__ == "sum" and "keepdim" in str(inspect.signature(Tensor.sum))
    assert Tensor.where.__name__ == "where" and list(inspect.signature(Tensor.where).parameters) == [
        "self",
        "condition",
        "other",
    ]
    assert Tensor.__radd__.__name__ == "__radd__" and Tensor.T.__doc__
