"""NumPy arrays in torch.save's files: written as Python's pickler writes them, read back without NumPy's unpickling.

An array pickles as `numpy._core.multiarray._reconstruct(numpy.ndarray, (0,), b'b')` and then its state (the
shape, a `numpy.dtype(...)` with its own state, the order, the bytes). Loading rebuilds only arrays of plain
numbers: the dtype is checked to be a bool, integer, float or complex one, the bytes to fill the shape
exactly, before NumPy is handed them; an array of objects, or any other NumPy name, is refused.
"""

from __future__ import annotations

import math

import numpy as np

from .pickle_writer import Call, Global

# The modules NumPy 2 and NumPy 1 name `_reconstruct` in (files written with either load).
RECONSTRUCT_MODULES = ("numpy._core.multiarray", "numpy.core.multiarray")
NUMERIC_KINDS = "biufc"  # bool, int, unsigned int, float, complex
SAVABLE = "NumPy arrays and scalars of bools and numbers"


def reduce(obj) -> Call | Global | None:
    """How Python's pickler spells a NumPy array, scalar, dtype or the ndarray class; None for anything else."""
    if obj is np.ndarray or obj is np.dtype:
        return Global("numpy", obj.__name__)
    if type(obj) is np.ndarray or isinstance(obj, (np.generic, np.dtype)):
        dtype = obj if isinstance(obj, np.dtype) else obj.dtype
        if dtype.kind not in NUMERIC_KINDS or dtype.fields is not None or dtype.subdtype is not None:
            raise TypeError(
                f"graphscope.save cannot save a NumPy {type(obj).__name__} of dtype {dtype}: it saves {SAVABLE}"
            )
        reduced = tuple(obj.__reduce_ex__(2))  # (function, args) or (function, args, state)
        function, args = reduced[:2]
        return Call(Global(function.__module__, function.__qualname__), args, reduced[2] if len(reduced) > 2 else None)
    return None


class NumpyLoading:
    """The NumPy names a file may use for its arrays, and the states it may give them, for one load."""

    def __init__(self, refusal):
        self.refusal = refusal  # text -> the error to raise
        self.dtypes: set = set()  # ids of the dtypes this load made (only those take a state)
        self.made: list = []  # keeps them alive, so their ids stay theirs

    def find(self, module: str, name: str):
        """The callable a NumPy GLOBAL gives, or None when it names anything else."""
        if module in RECONSTRUCT_MODULES and name == "_reconstruct":
            return self.reconstruct
        if module in RECONSTRUCT_MODULES and name == "scalar":
            return self.scalar
        if module == "numpy" and name == "ndarray":
            return np.ndarray
        if module == "numpy" and name == "dtype":
            return self.dtype
        return None

    def reconstruct(self, subtype, shape, typecode):
        """An empty array that the file's BUILD fills (only a plain ndarray)."""
        if subtype is not np.ndarray or shape != (0,) or typecode not in (b"b", "b"):
            raise self.refusal(
                "refusing numpy._core.multiarray._reconstruct with arguments other than NumPy's own "
                "(numpy.ndarray, (0,), b'b'): only plain NumPy arrays load"
            )
        return np.ndarray((0,), np.uint8)

    def dtype(self, code, align=False, copy=True):
        """numpy.dtype(code, align, copy) for a code of bools or numbers ('f4', 'i8', 'b1', 'c16', ...)."""
        if type(code) is not str or type(align) is not bool or type(copy) is not bool:
            raise self.refusal("damaged pickle: numpy.dtype takes a type code and two bools (as NumPy pickles it)")
        try:
            made = np.dtype(code, align, True)  # a copy: its state must never reach NumPy's shared dtypes
        except TypeError:
            raise self.refusal(f"refusing NumPy dtype {code[:20]!r}: only bools and numbers load") from None
        if made.kind not in NUMERIC_KINDS or made.fields is not None or made.subdtype is not None:
            raise self.refusal(f"refusing NumPy dtype {code[:20]!r}: only bools and numbers load")
        self.dtypes.add(id(made))
        self.made.append(made)
        return made

    def scalar(self, dtype, data):
        """A NumPy scalar from its dtype and bytes."""
        if id(dtype) not in self.dtypes or type(data) is not bytes or len(data) != dtype.itemsize:
            raise self.refusal("damaged pickle: a NumPy scalar takes its dtype and that many bytes")
        return _scalar(dtype, data)

    def build(self, target, state) -> bool:
        """Sets the state of an array or dtype this load made; False for any other target."""
        if type(target) is np.ndarray:
            self._fill(target, state)
            return True
        if id(target) in self.dtypes:
            self._set_byte_order(target, state)
            return True
        return False

    def _set_byte_order(self, dtype, state) -> None:
        if (
            type(state) is not tuple
            or len(state) != 8
            or state[0] != 3
            or state[1] not in ("<", ">", "|", "=")
            or state[2:5] != (None, None, None)
            or state[5:] != (-1, -1, 0)
        ):
            raise self.refusal(
                f"refusing a NumPy dtype state other than a plain byte order (as NumPy pickles {dtype}): "
                "only bools and numbers load"
            )
        dtype.__setstate__(state)

    def _fill(self, array, state) -> None:
        if (
            type(state) is not tuple
            or len(state) != 5
            or state[0] != 1
            or type(state[1]) is not tuple
            or not all(type(n) is int and n >= 0 for n in state[1])
            or id(state[2]) not in self.dtypes
            or type(state[3]) is not bool
            or type(state[4]) is not bytes
        ):
            raise self.refusal(
                "refusing a NumPy array state other than (1, shape, dtype, Fortran order, bytes) as NumPy "
                "pickles it: only plain NumPy arrays of bools and numbers load"
            )
        _, shape, dtype, _, data = state
        if array.size or math.prod(shape) * dtype.itemsize != len(data):
            raise self.refusal(
                f"damaged pickle: a NumPy array of shape {shape[:8]} and dtype {dtype} needs "
                f"{math.prod(shape) * dtype.itemsize} bytes, got {len(data)}"
            )
        array.__setstate__(state)


def _scalar(dtype, data):
    """The NumPy scalar of `dtype` whose bytes are `data` (exactly its size)."""
    return np.frombuffer(data, dtype)[0]
