"""Module: the base of every layer; registers parameters and submodules, and announces its scope.

Over 400 lines on purpose: one class, nn.Module, whose methods are PyTorch's API (registration,
traversal, state dicts, hooks, train/eval, devices).
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, namedtuple
from typing import Any

from .. import backend, dtypes
from ..hooks import announce, handlers, handlers_by_event, observers
from ..tensor import Tensor, to_arguments
from . import scope
from .parameter import Parameter


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the keys it did not find and the keys it did not expect."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _HookHandle:
    """Returned by register_*_hook; `remove()` takes the hook out again."""

    _ids = itertools.count()

    def __init__(self, module, registry):
        self.id = next(self._ids)
        self._module, self._registry = module, registry

    def remove(self):
        self._registry.pop(self.id, None)
        self._module._refresh_hook_flag()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def indented(text, spaces):
    """`text` with every line after the first indented by `spaces` (a child module's repr)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    """Base class of all layers, as torch.nn.Module.

    Parameters, buffers and submodules assigned as attributes are registered (in assignment
    order) and also kept in the instance `__dict__`, so reading `self.weight` in `forward`
    is a plain attribute lookup.
    """

    training: bool
    # Set in __init__ through object.__setattr__ (not the registering __setattr__).
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Any]
    _modules: dict[str, Module | None]
    _has_hooks = False  # any forward-pre, forward or backward hook registered on this module

    def __init__(self):
        set_ = object.__setattr__
        set_(self, "training", True)
        set_(self, "_parameters", OrderedDict())
        set_(self, "_buffers", OrderedDict())
        set_(self, "_non_persistent_buffers", set())
        set_(self, "_modules", OrderedDict())
        set_(self, "_forward_pre_hooks", OrderedDict())
        set_(self, "_forward_hooks", OrderedDict())
        set_(self, "_backward_hooks", OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # --- calling ---------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        if self._has_hooks or observers:
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    def _call_with_hooks(self, args, kwargs):
        if not self._has_hooks:  # an observer and no hooks: the common case while recording
            name = scope.enter(self)
            for handler in handlers("module_entered") if handlers_by_event["module_entered"] else ():
                handler(self, name)
            try:
                return self.forward(*args, **kwargs)
            finally:
                scope.leave()
                if observers:
                    for handler in handlers("module_left") if handlers_by_event["module_left"] else ():
                        handler(self, name)
        entered = None
        if observers:
            entered = scope.enter(self, self._has_hooks)
            announce("module_entered", self, entered)
        try:
            for hook in tuple(self._forward_pre_hooks.values()):
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
            backward_state = None
            if self._backward_hooks:
                from .backward_hooks import BackwardHookState

                backward_state = BackwardHookState(self)
                args = backward_state.wrap_inputs(args)
            output = self.forward(*args, **kwargs)
            for hook in tuple(self._forward_hooks.values()):
                result = hook(self, args, output)
                if result is not None:
                    output = result
            if backward_state is not None:
                output = backward_state.wrap_outputs(output)
            return output
        finally:
            if entered is not None:
                scope.leave()
                if observers:
                    announce("module_left", self, entered)

    # --- hooks -----------------------------------------------------------------------------

    def _refresh_hook_flag(self):
        object.__setattr__(
            self, "_has_hooks", bool(self._forward_pre_hooks or self._forward_hooks or self._backward_hooks)
        )

    def _register(self, registry, hook):
        if not callable(hook):
            raise TypeError(f"hook must be callable, got {type(hook).__name__}")
        handle = _HookHandle(self, registry)
        registry[handle.id] = hook
        self._refresh_hook_flag()
        return handle

    def register_forward_pre_hook(self, hook):
        """`hook(module, args)` runs before forward; a returned value replaces args."""
        return self._register(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook):
        """`hook(module, args, output)` runs after forward; a returned value replaces output."""
        return self._register(self._forward_hooks, hook)

    def register_full_backward_hook(self, hook):
        """`hook(module, grad_input, grad_output)` runs once the grads of the module's inputs are known.

        grad_input / grad_output are tuples of Tensors (None where an input needs no grad); a
        returned tuple replaces grad_input.
        """
        return self._register(self._backward_hooks, hook)

    # --- registration ----------------------------------------------------------------------

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            params[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                    "(graphscope.nn.Parameter or None expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            modules = d.get("_modules")
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name)
            modules[name] = value
            scope.structure_changed()
        elif params is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as child module '{name}' "
                    "(graphscope.nn.Module or None expected)"
                )
            d["_modules"][name] = None
            scope.structure_changed()
        elif params is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as buffer '{name}' (graphscope.Tensor or None expected)"
                )
            d["_buffers"][name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = d.get(registry)
            if entries is not None and name in entries:
                del entries[name]
                if registry == "_modules":
                    scope.structure_changed()
                if registry == "_buffers":
                    d["_non_persistent_buffers"].discard(name)
        object.__delattr__(self, name)

    def _forget(self, name):
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = d.get(registry)
            if entries is not None and name in entries:
                del entries[name]
        d.get("_non_persistent_buffers", set()).discard(name)

    def _check_name(self, name, kind):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")

    def register_parameter(self, name, param):
        self._check_name(name, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                "(graphscope.nn.Parameter or None required)"
            )
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        self._forget(name)
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def register_buffer(self, name, tensor, persistent=True):
        self._check_name(name, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' (graphscope.Tensor or None required)"
            )
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        self._forget(name)
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent_buffers.add(name)
        object.__setattr__(self, name, tensor)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._forget(name)
        self._modules[name] = module
        object.__setattr__(self, name, module)
        scope.structure_changed()

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        module = self
        for item in target.split("."):
            child = module._modules.get(item) if isinstance(module, Module) else None
            if child is None:
                raise AttributeError(f"{type(module).__name__} has no submodule `{item}` (looking up '{target}')")
            module = child
        return module

    def get_parameter(self, target: str) -> Parameter | None:  # (None where registered as None)
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if name not in module._parameters:
            raise AttributeError(f"{type(module).__name__} has no parameter `{name}` (looking up '{target}')")
        return module._parameters[name]

    # --- traversal -------------------------------------------------------------------------

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(qualified name, module) for this module and every submodule, in registration order."""
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if id(module) in memo:
                    continue
                memo.add(id(module))
            yield name, module
            children = [
                (name + ("." if name else "") + key, child)
                for key, child in module._modules.items()
                if child is not None
            ]
            stack.extend(reversed(children))

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, registry, prefix, recurse, remove_duplicate):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for key, value in getattr(module, registry).items():
                if value is None:
                    continue
                if remove_duplicate:
                    if id(value) in memo:
                        continue
                    memo.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + key, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, Parameter) pairs named as PyTorch names them: `layers.0.weight`."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    # --- modes and grads -------------------------------------------------------------------

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Clear every parameter's grad: to None (the default), or to zeros in place."""
        if observers:
            announce("grads_zeroing", self, list(self.parameters()), set_to_none)
        for param in self.parameters():
            _clear_grad(param, set_to_none)

    # --- conversion ------------------------------------------------------------------------

    def apply(self, fn):
        """Call `fn` on every submodule (children first) and then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        """to(device), to(dtype), to(device, dtype), to(tensor): convert parameters and buffers in place.

        Only floating point parameters and buffers change dtype, as in PyTorch.
        """
        device, dtype = to_arguments(args, kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")
        device = None if device is None else backend.as_device(device)
        return self._convert(device, dtype)

    def _convert(self, device, dtype):
        def convert_array(array):
            if device is not None:
                array = backend.to_device(array, device)
            if dtype is not None and backend.is_floating(array) and backend.dtype_of(array) is not dtype:
                array = backend.astype(array, backend.native_dtype(dtype, array))
            return array

        for module in self.modules():
            for tensor in itertools.chain(module._parameters.values(), module._buffers.values()):
                if tensor is None:
                    continue
                new = convert_array(tensor.array)
                if new is not tensor.array:
                    tensor.array = new
                    tensor._bump_version()
                grad = tensor._grad
                if grad is not None:
                    new_grad = convert_array(grad.array)
                    if new_grad is not grad.array:
                        grad.array = new_grad
        return self

    def float(self):
        return self._convert(None, dtypes.float32)

    def double(self):
        return self._convert(None, dtypes.float64)

    def half(self):
        return self._convert(None, dtypes.float16)

    def cpu(self):
        return self._convert(backend.CPU, None)

    def cuda(self, device=None):
        device = backend.Device("cuda", device) if isinstance(device, int) else backend.as_device(device or "cuda")
        return self._convert(device, None)

    # --- state -----------------------------------------------------------------------------

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """Parameters and persistent buffers by qualified name, as detached Tensors sharing storage."""
        if destination is None:
            destination = OrderedDict()
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values (Tensors, NumPy arrays, anything array-like) into the parameters and buffers.

        With strict=True, missing or unexpected keys raise a RuntimeError that lists them all;
        shapes must match. Nothing is changed when an error is raised.
        """
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict).__name__}.")
        own = self.state_dict(keep_vars=True)
        missing = [key for key in own if key not in state_dict]
        unexpected = [key for key in state_dict if key not in own]
        errors = []
        if strict:
            if unexpected:
                errors.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        arrays = {}
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            array = _as_array_like(value, target)
            if array is None:
                errors.append(
                    f'While copying the parameter named "{key}", expected an array-like value, '
                    f"got {type(value).__name__}."
                )
                continue
            if tuple(array.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {tuple(array.shape)} from "
                    f"checkpoint, the shape in current model is {tuple(target.shape)}."
                )
                continue
            arrays[key] = array
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        for key, array in arrays.items():
            target = own[key]
            if assign:
                target.array = backend.astype(array, target.array.dtype, copy=False)
            else:
                target.array[...] = array
            target._bump_version()
        return _IncompatibleKeys(missing, unexpected)

    # --- printing --------------------------------------------------------------------------

    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's repr (override in layers)."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + indented(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    def __setstate__(self, state):
        self.__dict__.update(state)


def _type_name(value) -> str:
    module = type(value).__module__
    if module.startswith("graphscope"):
        return "graphscope." + type(value).__name__
    return type(value).__name__


def _as_array_like(value, target):
    """`value` as an array on `target`'s device and of its dtype, or None if it is not array-like."""
    if isinstance(value, Tensor):
        array = value.array
        if not backend.same_device(array, target.array):
            array = backend.to_device(array, target.device)
    elif backend.is_array(value):
        array = value if backend.same_device(value, target.array) else backend.to_device(value, target.device)
    elif hasattr(value, "__array__") or isinstance(value, (list, tuple, int, float)):
        array = backend.from_data(value, target.device)
    else:
        return None
    return backend.astype(array, target.array.dtype, copy=False)


def _clear_grad(param, set_to_none):
    grad = param._grad
    if grad is None:
        return
    if set_to_none:
        param._grad = None
        return
    if grad.grad_fn is not None:
        grad = grad.detach()
        param._grad = grad
    grad.array[...] = 0
    grad._bump_version()
