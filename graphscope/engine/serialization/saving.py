"""graphscope.save: tensors and plain Python values in torch.save's zip format, which torch.load reads."""

from __future__ import annotations

from collections import OrderedDict

from .. import backend, dtypes
from ..nn.module import Module
from ..nn.parameter import Parameter
from ..optim.optimizer import Optimizer
from ..size import Size
from ..tensor import Tensor
from . import archive, module_pickle, numpy_arrays
from .pickle_writer import Call, Global, NewObject, PersistentId, PickleWriter
from .torch_names import DTYPE_NAMES, STORAGE_NAMES

REBUILD_TENSOR = Global("torch._utils", "_rebuild_tensor_v2")
REBUILD_PARAMETER = Global("torch._utils", "_rebuild_parameter")
DEVICE = Global("torch", "device")
SIZE = Global("torch", "Size")
_STORAGE = "storage"  # one object, so the pickle memoizes it as torch's does

SAVABLE = (
    "tensors, Parameters, dtypes, devices and nested dict, OrderedDict, list, tuple and set "
    "of them with str, bytes, int, float, complex, bool and None (what torch.load reads "
    f"with weights_only=True), and {numpy_arrays.SAVABLE}"
)


def save(
    obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True, _disable_byteorder_record=False
) -> None:
    """Save `obj` (tensors, state dicts, nested containers of plain values, NumPy arrays, a whole model)
    to a path or binary file.

    The file is in torch.save's zip format, so torch.load reads it too; each tensor keeps its
    dtype, shape, values, requires_grad and device (graphscope.load puts it back there). A whole
    model is pickled as torch pickles one, for torch.load(weights_only=False); graphscope.load
    never loads one (it would have to run the file's code), so save its state_dict() to reload it.
    """
    if pickle_module is not None:
        raise TypeError("graphscope.save writes its own pickles: pickle_module must be None")
    if pickle_protocol != 2:
        raise ValueError(
            f"graphscope.save writes pickle protocol 2 (torch.save's default), got pickle_protocol={pickle_protocol!r}"
        )
    if not _use_new_zipfile_serialization:
        raise ValueError(
            "graphscope.save writes only torch's zip format (_use_new_zipfile_serialization=True), not the legacy one"
        )
    if _disable_byteorder_record:
        raise ValueError("graphscope.save always records the byte order (_disable_byteorder_record=False)")
    storages = _Storages()
    try:
        data = PickleWriter(storages.reduce).dumps(obj)
    except RecursionError:
        raise ValueError("graphscope.save: the object is nested too deeply to save") from None
    with archive.opened(f, "wb") as file:
        archive.write(file, data, storages.data)


class _Storages:
    """Each distinct device array becomes one storage (tensors sharing an array share it)."""

    def __init__(self):
        self.keys: dict = {}  # id(array) -> key
        self.arrays: list = []  # the arrays, alive while their ids are keys
        self.data: list = []  # their bytes, by key
        self.locations: dict = {}  # str(device) -> one str object, memoized once in the pickle

    def reduce(self, obj) -> Call | Global | NewObject:
        """torch's spelling of the objects that are not plain Python values."""
        if isinstance(obj, Parameter):
            return Call(REBUILD_PARAMETER, (self.tensor(obj, False), obj.requires_grad, OrderedDict()))
        if type(obj) is Tensor:
            return self.tensor(obj, obj.requires_grad)
        if type(obj) is dtypes.dtype:
            return Global("torch", DTYPE_NAMES[obj])
        if type(obj) is backend.Device:
            return Call(DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index))
        if type(obj) is Size:  # a tensor's shape: torch.Size((3, 4)), as torch pickles it
            return Call(SIZE, (tuple(obj),))
        if isinstance(obj, Module):
            return module_pickle.reduce(obj)
        spelling = numpy_arrays.reduce(obj)
        if spelling is not None:
            return spelling
        hint = ""
        if isinstance(obj, Optimizer):
            hint = f"; save its state_dict() instead, and load that into a new {type(obj).__name__}"
        raise TypeError(
            f"graphscope.save cannot save a {type(obj).__module__}.{type(obj).__qualname__} "
            f"object: it saves {SAVABLE}{hint}"
        )

    def tensor(self, tensor: Tensor, requires_grad: bool) -> Call:
        array = tensor.array
        key = self.keys.get(id(array))
        if key is None:
            key = self.keys[id(array)] = str(len(self.arrays))
            self.arrays.append(array)
            self.data.append(backend.to_bytes(array))
        location = str(tensor.device)
        location = self.locations.setdefault(location, location)
        storage = (_STORAGE, Global("torch", STORAGE_NAMES[tensor.dtype]), key, location, tensor.numel())
        shape = tuple(tensor.shape)
        return Call(
            REBUILD_TENSOR, (PersistentId(storage), 0, shape, _contiguous_strides(shape), requires_grad, OrderedDict())
        )


def _contiguous_strides(shape: tuple) -> tuple:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))
