"""Tensor: a device array plus its place in the autograd graph, with PyTorch's API.

The class holds a tensor's own state (its array, dtype, device, grad, version) and what reads it;
its ops, as methods and operators, are the op functions themselves, set on it by engine/ops
(`ops/tensor_methods.py`), so this module never imports the ops.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from . import backend, dtypes, hooks, printing
from .dims import normalize_dim
from .size import Size
from .size import of as _size_of

_ndarray = np.ndarray
_new = object.__new__


def wrap(array, requires_grad=False, grad_fn=None):
    """A new Tensor around `array` (the engine's fast constructor; no copies, no checks)."""
    if type(array) is not _ndarray:
        array = as_array(array)
    t = _new(Tensor)
    t.array = array
    t.requires_grad = requires_grad
    t.grad_fn = grad_fn
    t._vc = [0]
    return t


# Writes made through `.data` tensors, counted: they leave the tensor's version unchanged (as
# torch), so an observer that copies values (the recorder) also compares this count.
data_writes = [0]


class _DataVersion(list):
    """The version counter of a `.data` tensor: its own, and every bump also counted in data_writes."""

    def __setitem__(self, index, value):
        data_writes[0] += 1
        super().__setitem__(index, value)


def as_array(value):
    """NumPy returns scalars from 0-d operations; tensors always hold arrays."""
    if isinstance(value, np.generic):
        return np.asarray(value)
    return value


def to_arguments(args, kwargs) -> tuple:
    """(device, dtype) from the arguments of `Tensor.to` / `Module.to`, either may be None."""
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for arg in args:
        if isinstance(arg, dtypes.dtype):
            dtype = arg
        elif isinstance(arg, Tensor):
            dtype, device = arg.dtype, arg.device
        elif isinstance(arg, (str, backend.Device)):
            device = arg
        else:
            raise TypeError(f"to() expects a dtype, a device or a tensor, got {arg!r}")
    return device, dtype


class RemovableHandle:
    """Returned by register_hook; `remove()` takes the hook out again."""

    __slots__ = ("_hooks", "_hook")

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class Tensor:
    """An n-dimensional array that records the ops applied to it when it requires grad.

    `array` is the raw NumPy (cpu) or CuPy (cuda) array. `_vc` is the version counter, a
    one-element list shared with views so in-place changes to saved tensors are detected.
    """

    __slots__ = ("array", "requires_grad", "grad_fn", "_vc", "__dict__", "__weakref__")

    __array_priority__ = 1000  # NumPy defers `ndarray * tensor` to Tensor.__rmul__
    __hash__ = object.__hash__  # __eq__ is elementwise, identity stays the hash

    # Rarely set state lives in the instance dict; these are the defaults.
    _grad = None  # the accumulated grad (a Tensor) of a leaf, or of a non-leaf that retains it
    _base: Tensor | None = None  # the tensor this one is a view of
    _hooks = None  # hooks of a leaf, run before its grad is accumulated
    _accumulator = None  # the AccumulateGrad node shown in next_functions
    _retains_grad = False

    def __init__(self, *args, device=None):
        """torch.Tensor's forms: Tensor(), Tensor(2, 3), Tensor(size), Tensor([1, 2]), Tensor(tensor)."""
        self.array, self._vc = _legacy.new_array(args, None, device, "Tensor")
        self.grad_fn = None
        self.requires_grad = False

    # --- properties ------------------------------------------------------------------------

    @property
    def shape(self) -> Size:
        return _size_of(self.array.shape)

    @property
    def ndim(self) -> int:
        return self.array.ndim

    @property
    def dtype(self) -> dtypes.dtype:
        return backend.dtype_of(self.array)

    @property
    def device(self) -> backend.Device:
        return backend.device_of(self.array)

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return type(self.array) is _ndarray or self.device.type == "cpu"

    def get_device(self) -> int:
        """The CUDA device index, or -1 on the CPU (as torch)."""
        device = self.device
        return -1 if device.type == "cpu" else device.index or 0

    @property
    def _version(self) -> int:
        return self._vc[0]

    def _bump_version(self) -> None:
        """Record an in-place change of `array` (checked by nodes that saved this tensor)."""
        self._vc[0] += 1

    @property
    def data(self) -> Tensor:
        """A detached tensor sharing this one's storage, with a version counter of its own (as
        PyTorch's `.data`, unlike detach()): in-place changes through it go unseen by backward."""
        out = wrap(self.array)
        out._vc = _DataVersion([0])
        return out

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be set to a Tensor, got {type(value).__name__}")
        self.array = value.array

    def _set_grad(self, value):
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(
                f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}"
            )
        if value is not None and value.shape != self.shape:
            raise RuntimeError(
                f"assigned grad has data of a different size: grad {tuple(value.shape)}, tensor {tuple(self.shape)}"
            )
        if value is None and self._grad is not None and hooks.observers:
            hooks.announce("grad_clearing", self)
        self._grad = value

    # `.grad` is read for every parameter at every step: its getter is a C attrgetter, not a frame.
    grad = property(operator.attrgetter("_grad"), _set_grad, doc="The accumulated grad (a Tensor), or None.")

    # --- conversions -----------------------------------------------------------------------

    def item(self):
        if self.array.size != 1:
            raise RuntimeError(
                f"a Tensor with {self.array.size} elements cannot be converted to Scalar; "
                "item() needs exactly one element"
            )
        return backend.scalar(self.array)

    def tolist(self):
        return backend.to_host(self.array).tolist()

    def numpy(self) -> np.ndarray:
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if type(self.array) is not _ndarray:
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. "
                "Use Tensor.cpu() to copy the tensor to host memory first."
            )
        return self.array

    def __array__(self, dtype=None, copy=None):
        array = backend.to_host(self.array)
        return array if dtype is None else array.astype(dtype)

    def size(self, dim=None):
        if dim is None:
            return _size_of(self.array.shape)
        return self.array.shape[normalize_dim(dim, self.array.ndim)]

    def stride(self, dim=None):
        """The step, in elements, between neighbours along each dim (the array's strides, as torch's)."""
        array = self.array
        strides = tuple(step // array.itemsize for step in array.strides)
        return strides if dim is None else strides[normalize_dim(dim, array.ndim)]

    def is_contiguous(self) -> builtins.bool:
        """Whether the elements lie in row-major order without gaps (as after .contiguous())."""
        return builtins.bool(self.array.flags.c_contiguous)

    def numel(self) -> int:
        return int(self.array.size)

    nelement = numel

    def dim(self) -> int:
        return self.array.ndim

    def __len__(self):
        if self.array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.array.shape[0]

    def __iter__(self):
        if self.array.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.array.shape[0]))

    def __bool__(self):
        if self.array.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {self.array.size} values is ambiguous; use .any() or .all()"
            )
        return bool(self.item())

    def __float__(self):
        return float(self._one_element())

    def __int__(self):
        return int(self._one_element())

    def _one_element(self):
        """The value of a one-element tensor; torch's ValueError (not item()'s RuntimeError) else."""
        if self.array.size != 1:
            raise ValueError(
                f"only one element tensors can be converted to Python scalars; this one has {self.array.size}"
            )
        return backend.scalar(self.array)

    def __index__(self):
        if self.dtype.is_floating_point or self.array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __format__(self, spec):
        """As torch: a plain 0-d tensor formats as its number (`f"{loss}"`, `f"{loss:.4f}"`); any
        other tensor only with an empty spec, as its repr."""
        if self.array.ndim == 0 and type(self) is Tensor:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __pos__(self):
        return self

    # `to` itself is ops/unary.py's, beside the cast and the move it is made of.

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def half(self):
        return self.to(dtypes.float16)

    def long(self):
        return self.to(dtypes.int64)

    def int(self):
        return self.to(dtypes.int32)

    def bool(self):
        return self.to(dtypes.bool_)

    def type(self, dtype=None):
        """The legacy type name ('torch.FloatTensor'), or a copy converted to `dtype` (a dtype,
        a legacy type such as LongTensor, or its name)."""
        if dtype is None:
            return _legacy.type_name(self.dtype, self.device)
        return self.to(_legacy.dtype_of_type(dtype))

    def type_as(self, other):
        return self.to(other.dtype)

    def cpu(self):
        return self.to(backend.CPU)

    def cuda(self, device=None):
        return self.to(backend.Device("cuda", device) if isinstance(device, int) else (device or "cuda"))

    def is_floating_point(self) -> builtins.bool:  # (`bool` in here is the method)
        return backend.is_floating(self.array)

    # --- autograd --------------------------------------------------------------------------

    def requires_grad_(self, requires_grad=True):
        if not self.is_leaf:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. "
                "Use .detach() to get a leaf that shares this tensor's values."
            )
        if requires_grad and not backend.is_floating(self.array):
            raise RuntimeError(
                "Only Tensors of floating point dtype can require gradients "
                f"(this one is {self.dtype}); convert it with .float() first"
            )
        if requires_grad and not self.requires_grad and hooks.observers:
            hooks.announce_leaf_created(self)  # where the debugger says it was made
        self.requires_grad = bool(requires_grad)
        return self

    def detach(self) -> Tensor:
        out = wrap(self.array)
        out._vc = self._vc
        return out

    def detach_(self) -> Tensor:
        self.grad_fn = None
        self.requires_grad = False
        return self

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        from .backward import RetainGrad

        if self.grad_fn.pre_hooks is None:
            self.grad_fn.pre_hooks = []
        self.grad_fn.pre_hooks.append(RetainGrad(self))
        self._retains_grad = True

    @property
    def retains_grad(self) -> builtins.bool:
        return self._retains_grad and not self.is_leaf

    def register_hook(self, hook):
        """Call `hook(grad)` when this tensor's grad is computed; a returned tensor replaces it."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        else:
            if self.grad_fn.pre_hooks is None:
                self.grad_fn.pre_hooks = []
            hooks = self.grad_fn.pre_hooks
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def _grad_accumulator(self):
        if self._accumulator is None:
            from .function import AccumulateGrad

            self._accumulator = AccumulateGrad(self)
        return self._accumulator

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the grads of this tensor w.r.t. the graph's leaves and add them to their `.grad`."""
        retain = create_graph if retain_graph is None else retain_graph  # as PyTorch: a graph of grads keeps the graph
        _backward.run_backward(self, gradient, retain_graph=bool(retain), create_graph=create_graph, inputs=inputs)

    # --- printing --------------------------------------------------------------------------

    def __repr__(self):
        return printing.tensor_repr(self)


# The backward pass and the legacy constructors build on Tensor; its methods resolve them at call time.
from . import backward as _backward  # noqa: E402 (they import Tensor: loaded once it exists)
from . import legacy as _legacy  # noqa: E402 (they import Tensor: loaded once it exists)
