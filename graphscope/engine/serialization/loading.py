"""graphscope.load: files of torch.save and graphscope.save, read without running code from them."""

from __future__ import annotations

import os

from .. import backend
from ..nn.parameter import Parameter
from ..size import Size
from ..tensor import Tensor, wrap
from . import archive, numpy_arrays
from .numpy_arrays import NumpyLoading
from .pickle_reader import SafeUnpickler, UnpicklingError
from .saving import SAVABLE
from .short_repr import short_name, short_repr
from .torch_names import DTYPES, MISSING_DTYPES, STORAGE_DTYPES, missing_dtype_error


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load what torch.save or graphscope.save wrote to a path or binary file.

    Only tensors, Parameters, dtypes, devices and plain containers and values load: the file
    names what to rebuild, and graphscope rebuilds only those, calling nothing else the file
    names (torch.load's weights_only=True; with weights_only=False too). Tensors go back to the
    device they were saved from unless `map_location` (a device, a str, a dict of location
    strings, or a callable `(storage, location)` as in torch) says otherwise.
    """
    if pickle_module is not None:
        raise TypeError("graphscope.load reads pickles itself, without running code: pickle_module must be None")
    if mmap:
        raise ValueError("graphscope.load does not memory-map files (mmap=True): it reads them into memory")
    if weights_only not in (None, True, False):
        raise TypeError(f"weights_only must be a bool or None, got {weights_only!r}")
    encoding = pickle_load_args.pop("encoding", "utf-8")
    if pickle_load_args:
        raise TypeError(f"load() got unexpected keyword arguments {sorted(pickle_load_args)}")
    restore = _placement(map_location)
    what = repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file"
    with archive.opened(f, "rb") as file:
        files = archive.Archive(file, what)
        loader = _Loader(files, restore, what, weights_only is False)
        unpickler = SafeUnpickler(
            files.read("data.pkl"), loader.find_global, loader.persistent_load, encoding, what=what
        )
        if loader.numpy is not None:
            loader.numpy.refusal = unpickler.refusal
            unpickler.build = loader.numpy.build
        return unpickler.load()


class _StorageType:
    """A torch storage class named in the file (`torch.FloatStorage`): it gives the dtype."""

    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype

    def __repr__(self):
        return f"torch.{self.name}"


class _Storage:
    """One storage of the file: its elements on the host, and the device its tensors go to."""

    def __init__(self, host, device):
        self.host, self.device = host, device


class _Loader:
    """The globals a file may name, and its storages, for one load."""

    def __init__(self, files: archive.Archive, restore, what: str, unsafe_asked: bool):
        self.files, self.restore, self.what, self.unsafe_asked = files, restore, what, unsafe_asked
        self.numpy = NumpyLoading(None) if unsafe_asked else None  # its refusal is the unpickler's
        self.storages: dict = {}
        self.big_endian = files.big_endian()
        self.globals = {
            ("torch._utils", "_rebuild_tensor_v2"): self.rebuild_tensor,
            ("torch._utils", "_rebuild_parameter"): self.rebuild_parameter,
            ("torch._utils", "_rebuild_parameter_with_state"): self.rebuild_parameter_with_state,
            ("torch", "Size"): self.size,
            ("torch", "device"): self.device,
        }

    def find_global(self, module: str, name: str):
        found = self.globals.get((module, name))
        if found is not None:
            return found
        if module == "numpy" or module.startswith("numpy."):
            return self.numpy_global(module, name)
        if module == "torch":
            if name in DTYPES:
                return DTYPES[name]
            if name in STORAGE_DTYPES:
                return _StorageType(name, STORAGE_DTYPES[name])
            if name in MISSING_DTYPES:
                raise missing_dtype_error(self.what, MISSING_DTYPES[name])
            if name in MISSING_DTYPES.values():
                raise missing_dtype_error(self.what, name)
        also = " (not with weights_only=False either: it never runs code from a file)" if self.unsafe_asked else ""
        raise UnpicklingError(
            f"{self.what} names {short_name(module)}.{short_name(name)}, which graphscope.load does not load{also}: it "
            f"loads {SAVABLE}. If the file holds a whole model (torch.save(model)), save "
            "model.state_dict() instead and load that into the model"
        )

    def numpy_global(self, module: str, name: str):
        """A NumPy name: with weights_only=False, the ones of arrays of numbers (rebuilt here, running nothing
        from the file); as torch 2.13, none by default."""
        found = None if self.numpy is None else self.numpy.find(module, name)
        if found is not None:
            return found
        if self.numpy is None and NumpyLoading(None).find(module, name) is not None:
            raise UnpicklingError(
                f"{self.what} holds a NumPy array or scalar ({short_name(module)}.{short_name(name)}), which "
                "torch.load does not load with weights_only=True, its default: load it with weights_only=False "
                "(graphscope then rebuilds arrays of numbers itself, and still runs no code from the file)"
            )
        raise UnpicklingError(
            f"{self.what} names {short_name(module)}.{short_name(name)}, which graphscope.load does not load: of "
            f"NumPy it loads only {numpy_arrays.SAVABLE}, with weights_only=False"
        )

    def persistent_load(self, pid):
        if (
            type(pid) is not tuple
            or len(pid) != 5
            or pid[0] not in ("storage", b"storage")
            or type(pid[1]) is not _StorageType
            or not _is_name(pid[2])
            or not _is_name(pid[3])
            or type(pid[4]) is not int
            or pid[4] < 0
        ):
            raise UnpicklingError(
                f"{self.what} is damaged: a persistent id must be ('storage', storage "
                f"type, key, location, size), got {short_repr(pid)}"
            )
        _, kind, key, location, numel = pid
        storage = self.storages.get(key)
        if storage is None:
            buffer = self.files.read_storage(key, numel * kind.dtype.itemsize)
            host = backend.from_bytes(buffer, kind.dtype, self.big_endian)
            storage = self.storages[key] = _Storage(host, self.restore(location, host))
        elif backend.dtype_of(storage.host) is not kind.dtype:
            raise UnpicklingError(
                f"{self.what} views storage {key!r} as both "
                f"{backend.dtype_of(storage.host).name} and {kind.dtype.name}, "
                "which graphscope cannot load"
            )
        return storage

    def rebuild_tensor(self, storage, storage_offset, size, stride, requires_grad, backward_hooks=None, metadata=None):
        """torch._utils._rebuild_tensor_v2: a tensor over a storage, at an offset, with strides."""
        if type(storage) is not _Storage or not _int64s((storage_offset,)):
            raise UnpicklingError(f"{self.what} is damaged: a tensor needs a storage and an offset")
        if (
            type(size) not in (tuple, list)
            or type(stride) not in (tuple, list)
            or len(size) != len(stride)
            or not _int64s(size)
            or not _int64s(stride)
        ):
            raise UnpicklingError(
                f"{self.what} is damaged: a tensor's size {short_repr(size)} and stride "
                f"{short_repr(stride)} must be equally long tuples of non-negative ints "
                "below 2**63"
            )
        if backward_hooks or metadata:
            raise UnpicklingError(
                f"{self.what} holds a tensor with backward hooks or metadata "
                f"({short_repr(backward_hooks or metadata)}), which graphscope cannot load"
            )
        empty = 0 in size
        last = storage_offset + sum((n - 1) * s for n, s in zip(size, stride))
        if (not empty and last >= storage.host.size) or storage_offset > storage.host.size:
            raise UnpicklingError(
                f"{self.what} is damaged: a tensor of size {short_repr(tuple(size))} and stride "
                f"{short_repr(tuple(stride))} at offset {storage_offset} reaches past its "
                f"storage of {storage.host.size} elements"
            )
        # A dimension of size 1 never steps, so its stride may be anything below 2**63 (torch loads
        # those files), more than NumPy can hold in bytes: it steps by 0 instead; all do when empty.
        steps = [0 if empty or n == 1 else s for n, s in zip(size, stride)]
        try:
            array = backend.from_storage(storage.host, size, storage_offset, steps, storage.device)
        except ValueError as error:  # NumPy's limits: 64 dimensions, 2**63 bytes
            raise UnpicklingError(
                f"{self.what} holds a tensor of size {short_repr(tuple(size))}, which graphscope cannot hold: {error}"
            ) from None
        tensor = wrap(array)
        if requires_grad:
            tensor.requires_grad_(True)
        return tensor

    def rebuild_parameter(self, data, requires_grad, backward_hooks=None):
        """torch._utils._rebuild_parameter: a Parameter around a rebuilt tensor."""
        if type(data) is not Tensor:
            raise UnpicklingError(
                f"{self.what} is damaged: a Parameter's data must be a tensor, got {type(data).__name__}"
            )
        if backward_hooks:
            raise UnpicklingError(f"{self.what} holds a Parameter with backward hooks, which graphscope cannot load")
        return Parameter(data, bool(requires_grad))

    def rebuild_parameter_with_state(self, data, requires_grad, backward_hooks, state):
        """torch._utils._rebuild_parameter_with_state: only an empty state (no Python attributes) loads."""
        if state:
            names = list(state) if isinstance(state, dict) else state
            raise UnpicklingError(
                f"{self.what} holds a Parameter with Python attributes {short_repr(names)}, "
                "which graphscope cannot load"
            )
        return self.rebuild_parameter(data, requires_grad, backward_hooks)

    def device(self, *args):
        """torch.device(...): a graphscope Device."""
        try:
            return backend.Device(*args)
        except (TypeError, RuntimeError) as error:
            raise UnpicklingError(
                f"{self.what} holds torch.device{short_repr(args)}, which graphscope cannot "
                f"make: {short_name(str(error))}"
            ) from None

    def size(self, dims):
        """torch.Size(dims): a graphscope Size."""
        if type(dims) not in (tuple, list) or not _ints(dims):
            raise UnpicklingError(f"{self.what} is damaged: torch.Size needs ints, got {short_repr(dims)}")
        return Size(dims)


def _is_name(value) -> bool:
    """Whether `value` is a short printable str, as storage keys ('0') and locations ('cuda:1') are."""
    return type(value) is str and short_name(value) == value


def _ints(values) -> bool:
    return all(type(v) is int for v in values)


def _int64s(values) -> bool:
    """Whether `values` are ints from 0 to 2**63 - 1 (torch's sizes, strides and offsets are int64)."""
    return all(type(v) is int and 0 <= v < 2**63 for v in values)


# --- where tensors go (map_location) --------------------------------------------------------------


def _placement(map_location):
    """A function (location, host storage) -> Device, from torch.load's `map_location`."""
    if map_location is None:
        return lambda location, host: _restore(location)
    if isinstance(map_location, (str, backend.Device)):
        return lambda location, host: _restore(str(map_location))
    if isinstance(map_location, dict):
        for key, value in map_location.items():
            if not isinstance(key, str) or not isinstance(value, (str, backend.Device)):
                raise TypeError(
                    "map_location as a dict maps location strings to devices "
                    f"(e.g. {{'cuda:1': 'cpu'}}), got {key!r}: {value!r}"
                )
        return lambda location, host: _restore(str(map_location.get(location, location)))
    if callable(map_location):

        def call(location, host):
            result = map_location(wrap(host), location)
            if result is None:
                return _restore(location)
            if not isinstance(result, Tensor):
                raise TypeError(
                    "map_location(storage, location) must return a storage (a tensor in "
                    f"graphscope) or None, got {type(result).__name__}"
                )
            return result.device

        return call
    raise TypeError(
        f"map_location must be None, a str, a device, a dict or a callable, got {type(map_location).__name__}"
    )


def _restore(location: str) -> backend.Device:
    """The device for a location string (torch's default_restore_location), checked usable."""
    try:
        device = backend.as_device(location)
    except RuntimeError as error:
        raise RuntimeError(
            f"cannot place tensors saved on {location!r}: {error}; pass map_location='cpu' to load them on the CPU"
        ) from None
    if device.type == "cuda":
        if not backend.cuda_available():
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but graphscope.cuda.is_available() "
                "is False. If you are running on a CPU-only machine, please use graphscope.load with "
                "map_location='cpu' to map your storages to the CPU."
            )
        count = backend.cuda_device_count()
        if (device.index or 0) >= count:
            raise RuntimeError(
                f"Attempting to deserialize object on CUDA device {device.index} but "
                f"graphscope.cuda.device_count() is {count}. Please use graphscope.load with "
                "map_location to map your storages to an existing device."
            )
    backend.device_type(device)  # any other device type: usable, or a clear error
    return device
