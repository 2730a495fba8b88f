"""Tensor's methods and operators are the ops themselves, each registered beside its op's definition.

A method set here is a plain function attribute of Tensor, as fast to call as a `def` in the class.
"""

from __future__ import annotations

from ..keyword_arguments import accepts_keepdims
from ..tensor import Tensor

METHODS: dict = {}  # Tensor attribute name -> the function it is, as defined (before keepdims= is added)


def method(*names: str, keepdims: bool = False):
    """Decorator: the op is also Tensor.<name> for each of `names`, with the tensor as its first
    argument; `keepdims` lets the methods also take NumPy's `keepdims=` for `keepdim=`, as torch."""

    def register(fn):
        attribute = accepts_keepdims(fn) if keepdims else fn
        for name in names:
            METHODS[name] = fn
            setattr(Tensor, name, attribute)
        return fn

    return register


def method_only(name: str):
    """Decorator: a function that is only Tensor.<name>, putting an op's arguments in the method's
    order (`x.where(c, y)` is `where(c, x, y)`); it takes the method's name for help() and errors."""

    def register(fn):
        fn.__name__, fn.__qualname__ = name, f"Tensor.{name}"
        return method(name)(fn)

    return register


def attribute(name: str):
    """Decorator: the one-tensor function is also the read-only attribute Tensor.<name> (x.T)."""

    def register(fn):
        fn.__name__, fn.__qualname__ = name, f"Tensor.{name}"
        METHODS[name] = fn
        setattr(Tensor, name, property(fn, doc=fn.__doc__))
        return fn

    return register
