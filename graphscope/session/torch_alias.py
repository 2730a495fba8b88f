"""--as-torch: for one run, `import torch` (and torch.nn, torch.optim, ...) resolves to graphscope's engine."""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import types
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from typing import Self

from graphscope.engine import library_name
from graphscope.engine.unsupported import UnsupportedTorchModule, unsupported

ALIASES = {
    "torch": "graphscope",
    "torch.nn": "graphscope.engine.nn",
    "torch.nn.functional": "graphscope.engine.nn.functional",
    "torch.nn.init": "graphscope.engine.nn.init",
    "torch.optim": "graphscope.engine.optim",
    "torch.optim.lr_scheduler": "graphscope.engine.optim.lr_scheduler",
    "torch.autograd": "graphscope.engine.autograd",
    "torch.autograd.variable": "graphscope.engine.autograd.variable",
    "torch.linalg": "graphscope.engine.linalg",
    "torch.functional": "graphscope.engine.torch_functional",
    "torch.onnx": "graphscope.engine.onnx",
    "torch.backends": "graphscope.engine.torch_backends",
    "torch.backends.cudnn": "graphscope.engine.torch_backends.cudnn",
    "torch.nn.utils": "graphscope.engine.nn.utils",
    "torch.utils": "graphscope.engine.utils",
    "torch.utils.data": "graphscope.engine.utils.data",
    "torch.utils.data.dataset": "graphscope.engine.utils.data.dataset",
    "torch.utils.data.sampler": "graphscope.engine.utils.data.sampler",
    "torch.utils.data.dataloader": "graphscope.engine.utils.data.dataloader",
    "torch.utils.tensorboard": "graphscope.engine.utils.tensorboard",
    "torch.utils.tensorboard.writer": "graphscope.engine.utils.tensorboard.writer",
}


class TorchAlias(types.ModuleType):
    """Stands in for a torch module: forwards to the graphscope module, names what is missing."""

    def __init__(self, name: str, target: types.ModuleType) -> None:
        super().__init__(name, target.__doc__)
        self.__dict__["_target"] = target
        self.__dict__["__path__"] = []  # a package, so `import torch.<anything>` reaches the finder below

    def __getattr__(self, attr: str) -> object:
        try:
            value = getattr(self.__dict__["_target"], attr)
        except AttributeError:
            raise unsupported(f"{self.__name__}.{attr}") from None
        if callable(value) or isinstance(value, types.ModuleType):
            # Kept on the alias: `torch.log` in a loop is then an attribute read, not this call. (A flag,
            # which a script may set through the alias, is still read from the engine's module each time.)
            self.__dict__[attr] = value
        return value

    def __setattr__(self, name: str, value: object) -> None:
        """Setting a flag the engine's module has reaches it (torch.backends.cudnn.benchmark = True);
        anything else stays on the alias, so a script's assignments end with its run."""
        target = self.__dict__["_target"]
        current = vars(target).get(name, self)
        if (
            current is self
            or callable(current)
            or isinstance(current, types.ModuleType)
            or isinstance(value, TorchAlias)
        ):
            super().__setattr__(name, value)
        else:
            setattr(target, name, value)

    def __dir__(self) -> list[str]:
        return dir(self.__dict__["_target"])


class _UnsupportedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Any other `torch.*` import fails with a message naming the module."""

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None
    ) -> ModuleSpec | None:
        if name == "torch" or name.startswith("torch."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec: ModuleSpec) -> types.ModuleType:
        raise UnsupportedTorchModule(str(unsupported(spec.name)), name=spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class TorchAliases:
    """Install the aliases for the block; afterwards sys.modules is as it was (real torch included)."""

    def __enter__(self) -> Self:
        import importlib

        self.saved = {
            name: sys.modules.get(name) for name in list(sys.modules) if name == "torch" or name.startswith("torch.")
        }
        for name in self.saved:
            del sys.modules[name]
        for name, target in ALIASES.items():
            sys.modules[name] = TorchAlias(name, importlib.import_module(target))
        for name in ALIASES:
            parent, _, child = name.rpartition(".")
            if not parent:
                continue
            own = vars(importlib.import_module(ALIASES[parent])).get(child)
            if own is None or isinstance(own, types.ModuleType):  # a function of the module's name stays,
                setattr(sys.modules[parent], child, sys.modules[name])  # as torch.autograd.variable does
        self.finder = _UnsupportedModules()
        sys.meta_path.insert(0, self.finder)
        self.library = library_name.set_library("torch")  # shapes and dtypes print as torch.Size, torch.float32
        return self

    def __exit__(self, *exc: object) -> None:
        library_name.set_library(self.library)
        sys.meta_path.remove(self.finder)
        for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
            del sys.modules[name]
        sys.modules.update({k: v for k, v in self.saved.items() if v is not None})
