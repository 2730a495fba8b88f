"""torch.backends: flags for libraries graphscope's engine does not use, kept so scripts that set
them run; setting one says once that it has no effect."""

from __future__ import annotations

import sys
import types
import warnings

from .. import library_name

_said: set = set()


class NoOpFlags(types.ModuleType):
    """A module whose public flags can be set and read back; the first set of each flag warns."""

    def __setattr__(self, name, value):
        if not name.startswith("_") and not callable(value) and not isinstance(value, types.ModuleType):
            where = f"{library_name.library()}.backends.{self.__name__.partition('.torch_backends.')[2]}.{name}"
            if where not in _said:
                _said.add(where)
                warnings.warn(
                    f"{where} has no effect in graphscope: its engine runs on NumPy (cpu) and "
                    "CuPy (cuda); the value is kept but nothing reads it",
                    UserWarning,
                    stacklevel=_script_level(),
                )
        super().__setattr__(name, value)


def _script_level() -> int:
    """The warnings stack level of the first caller outside graphscope (past --as-torch's alias)."""
    frame: types.FrameType | None
    level, frame = 2, sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("graphscope."):
        level, frame = level + 1, frame.f_back
    return level


from . import cuda, cudnn, mkldnn, mps  # noqa: E402 (the submodules import NoOpFlags and _script_level above)
