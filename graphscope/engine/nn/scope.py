"""Qualified module names for the debugger: "model" for the outermost module called, "model.layers.0" below it.

Only used while an observer is installed. The outermost module called is named after the
variable that holds it in the calling user frame (or its class name lowercased); its
submodules by their attribute path, from the root's `named_modules()`, cached per root
until any module's set of children changes.
"""

from __future__ import annotations

import sys
import threading
import weakref

from ..hooks import _PACKAGE_DIR

_local = threading.local()
_structure = [0]  # bumped whenever a submodule is added or removed anywhere
_names_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def structure_changed() -> None:
    _structure[0] += 1


def _stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def enter(module) -> str:
    """Push `module` on this thread's scope stack and return its qualified name.

    A stack entry is (root, root's name, this module's name): submodules are named by their
    path below the root that is running.
    """
    stack = _stack()
    if not stack:
        name = root_name(module)
        entry = (module, name, name)
    else:
        root, root_label, parent_name = stack[-1]
        relative = submodule_names(root).get(module)
        if relative is None:
            # Not a registered submodule of the running root (made inside forward, say):
            # name it below its caller and let it root the names of its own submodules.
            name = f"{parent_name}.{type(module).__name__.lower()}"
            entry = (module, name, name)
        else:
            name = f"{root_label}.{relative}" if relative else root_label
            entry = (root, root_label, name)
    stack.append(entry)
    return name


def leave() -> None:
    _stack().pop()


def submodule_names(root) -> dict:
    """{module: dotted path below root} (root itself maps to ""), cached until the structure changes."""
    cached = _names_cache.get(root)
    if cached is not None and cached[0] == _structure[0]:
        return cached[1]
    names = {}
    for path, module in root.named_modules():
        names.setdefault(module, path)
    _names_cache[root] = (_structure[0], names)
    return names


def root_name(module) -> str:
    """The variable that holds `module` in the innermost user frame, else its class name
    lowercased; found at the module's first call and kept, so a model keeps one name."""
    name = _root_names.get(module)
    if name is None:
        name = _root_names[module] = _find_root_name(module)
    return name


_root_names: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _find_root_name(module) -> str:
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is not None:
        found = _variable_holding(module, frame)
        if found is not None:
            return found
    return type(module).__name__.lower()


def _variable_holding(module, frame):
    local_vars = frame.f_locals
    for name, value in local_vars.items():
        if value is module:
            return name
    owner = local_vars.get("self")
    owner_dict = getattr(owner, "__dict__", None)
    if owner_dict is not None:
        for name, value in owner_dict.items():
            if value is module:
                return name
    if frame.f_globals is not local_vars:
        for name, value in frame.f_globals.items():
            if value is module:
                return name
    return None
