"""Qualified module names for the debugger: "model" for the outermost module called, "model.layers.0" below it.

Only used while an observer is installed. The outermost module called is named after the
variable that holds it in the calling user frame (or its class name lowercased); its
submodules by their attribute path, from the root's `named_modules()`, cached per root
until any module's set of children changes.
"""

from __future__ import annotations

import sys
import weakref
from typing import TYPE_CHECKING

from ..hooks import PACKAGE_DIR, scopes, user_site

if TYPE_CHECKING:
    from types import FrameType

_structure = [0]  # bumped whenever a submodule is added or removed anywhere
# id(root) -> (weakref to root, structure version, {module: path}); a plain dict keyed by id,
# since a WeakKeyDictionary lookup makes a weak reference every time (once per module call).
_names_cache: dict = {}


def structure_changed() -> None:
    _structure[0] += 1


def enter(module, hooked: bool = False) -> str:
    """Push `module` on this thread's scope stack and return its qualified name.

    A stack entry is (root, root's name, this module's name, site): submodules are named by
    their path below the root that is running. `site` is where the user's code called into a
    graphscope module with no hooks (`hooked` False): its forward runs graphscope code only,
    so every node it makes has that site (hooks.user_site); None for the user's own modules.
    """
    stack = scopes.stack
    if not stack:
        site = user_site() if not hooked and _is_own(module) else None
        name = root_name(module)
        entry = (module, name, name, site)
    else:
        root, root_label, parent_name, parent_site = stack[-1]
        if hooked or not _is_own(module):  # noqa: SIM108 (a nested ternary would lose the comment below)
            site = None
        else:  # what user_site() would answer, without the call
            site = parent_site if parent_site is not None else user_site()
        cached = _names_cache.get(id(root))
        if cached is not None and cached[1] == _structure[0] and cached[0]() is root:
            relative = cached[2].get(module)
        else:
            relative = submodule_names(root).get(module)
        if relative is None:
            # Not a registered submodule of the running root (made inside forward, say):
            # name it below its caller and let it root the names of its own submodules.
            name = f"{parent_name}.{type(module).__name__.lower()}"
            entry = (module, name, name, site)
        else:
            name = f"{root_label}.{relative}" if relative else root_label
            entry = (root, root_label, name, site)
    stack.append(entry)
    return name


def leave() -> None:
    scopes.stack.pop()


_own_classes: dict = {}  # module class -> whether it and every base are graphscope's


def _is_own(module) -> bool:
    """Whether `module` runs graphscope's code only: its class and bases are graphscope's and
    no `forward` was set on the instance."""
    kind = type(module)
    own = _own_classes.get(kind)
    if own is None:
        own = _own_classes[kind] = all(
            c is object or (getattr(c, "__module__", "") or "").partition(".")[0] == "graphscope" for c in kind.__mro__
        )
    return own and "forward" not in module.__dict__


def submodule_names(root) -> dict:
    """{module: dotted path below root} (root itself maps to ""), cached until the structure changes."""
    cached = _names_cache.get(id(root))
    if cached is not None and cached[1] == _structure[0] and cached[0]() is root:
        return cached[2]
    names: dict = {}
    for path, module in root.named_modules():
        names.setdefault(module, path)
    _names_cache[id(root)] = (weakref.ref(root, _forget(_names_cache, id(root))), _structure[0], names)
    return names


def _forget(cache: dict, key: int):
    """A weakref callback that drops `cache[key]` once its module is gone (if still its entry)."""

    def callback(ref):
        entry = cache.get(key)
        if entry is not None and entry[0] is ref:
            del cache[key]

    return callback


def root_name(module) -> str:
    """The variable that holds `module` in the innermost user frame, else its class name
    lowercased; found at the module's first call and kept, so a model keeps one name."""
    entry = _root_names.get(id(module))
    if entry is not None and entry[0]() is module:
        return entry[1]
    name = _find_root_name(module)
    _root_names[id(module)] = (weakref.ref(module, _forget(_root_names, id(module))), name)
    return name


_root_names: dict = {}  # id(module) -> (weakref to it, its name)


def _find_root_name(module) -> str:
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
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
