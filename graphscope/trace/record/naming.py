"""Names for the record: strings made fit for it, parameter and leaf labels, module names, source sites."""

from __future__ import annotations

import functools
import inspect
import linecache
import os
import sys
import sysconfig
import traceback
import weakref
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any

from graphscope.engine import hooks
from graphscope.engine.autograd.custom import CustomNode
from graphscope.engine.function import Function
from graphscope.engine.size import Size

from .limits import FIELDS, NAME_LIMIT, cut, fit
from .literal import visible
from .model import SourceSite

if TYPE_CHECKING:
    from graphscope.engine.nn.module import Module
    from graphscope.engine.tensor import Tensor

OpSpec = tuple[tuple[str, str], tuple[str, ...]]  # ((op, name), its arguments' names)

CUSTOM_RULE = "custom backward:"  # how a user's autograd.Function's rule begins (its op is no engine op)
INPUT_ROLES = tuple(f"input:{k}" for k in range(8))  # "input:K" for the first inputs, made once
_scopes = hooks.scopes  # the engine's module scopes, per thread


def _nobody() -> None:
    """A dead weak reference's answer."""
    return None


def name(text: str, limit: int = NAME_LIMIT) -> str:
    """A string fit for a name in the record (and a snapshot): control characters escaped, cut to
    `limit` characters."""
    return fit(str(text), limit, name=True)


def short_repr(value: object, limit: int = 100) -> str:
    """A one-line repr of a user value, bounded, even when its repr raises; a shape as `(32, -1)`."""
    if isinstance(value, Size):  # the record says what a shape is, not its type's library
        value = tuple(value)
    try:
        text = " ".join(repr(value).split())
    except Exception as e:  # noqa: BLE001 (a user object's repr may raise anything)
        text = f"<{type(value).__name__}: repr failed ({type(e).__name__})>"
    return name(text if len(text) <= limit else text[: limit - 1] + "…")


# class -> its argument_names: a forward's signature read once (explain and gradcheck ask it for every node)
_ARGUMENT_NAMES: weakref.WeakKeyDictionary[type, tuple[str, ...]] = weakref.WeakKeyDictionary()


def argument_names(cls: type) -> tuple[str, ...]:
    """The names of a Function's forward arguments (after ctx/self), by position: a class's
    `arg_names` when its forward's own names are not the user's."""
    names = _ARGUMENT_NAMES.get(cls)
    if names is None:
        names = _ARGUMENT_NAMES[cls] = _forward_names(cls)
    return names


def _forward_names(cls: type) -> tuple[str, ...]:
    names = getattr(cls, "arg_names", None)
    if names is not None:
        return tuple(names)
    forward: Any = getattr(cls, "forward", None)  # whatever the class holds: signature refuses a non-function
    try:
        parameters = list(inspect.signature(forward).parameters.values())
    except (TypeError, ValueError):
        return ()
    positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return tuple(positional[1:])  # past self (or a custom Function's ctx)


@functools.cache  # the engine's classes are all defined once it is imported
def engine_functions() -> dict[str, type[Function]]:
    """op -> the engine's Function subclass. A user's custom Function is not among them: its op is
    its class's name, and only a live run knows that class."""
    found: dict[str, type[Function]] = {}
    todo = list(Function.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if not issubclass(cls, CustomNode):
            found[cls.op] = cls
    return found


def variable_name(t: object) -> str | None:
    """The name of a variable in the user's frames that holds `t` (for an unnamed leaf)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if not frame.f_code.co_filename.startswith(hooks.PACKAGE_DIR):
            for key, value in frame.f_locals.items():
                if value is t and not key.startswith("_"):
                    return key
            owner = frame.f_locals.get("self")
            attributes: dict[str, object] = getattr(owner, "__dict__", {})
            for key, value in attributes.items():
                if value is t:
                    return key
        frame = frame.f_back
    return None


def graphscope_version() -> str:
    return getattr(sys.modules.get("graphscope"), "__version__", "")


def error_site(error: BaseException) -> SourceSite | None:
    """The innermost line of user code in the traceback (not graphscope, not the libraries)."""
    skip = (hooks.PACKAGE_DIR,) + tuple(
        os.path.join(p, "") for p in {sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib")}
    )
    found = None
    for frame in traceback.extract_tb(error.__traceback__):
        if not frame.filename.startswith(skip) and not frame.filename.startswith("<frozen"):
            found = frame
    if found is None:
        return None
    text = (found.line or "").strip()[:1000]
    return SourceSite(name(found.filename), found.lineno or 0, name(found.name), text)


class Names:
    """The names one recording gives: module and parameter names, leaf labels (unique within
    the run), the sites where leaves were made, and source sites (each made once)."""

    def __init__(self, rules: dict[str, str] | None = None) -> None:
        self.rules = {} if rules is None else rules  # op -> its Function's rule (the record's)
        # id(leaf requiring grad) -> (weakref, name)
        self._labels: dict[int, tuple[weakref.ref[Tensor], str]] = {}
        self._label_owner: dict[str, int] = {}
        self._roots: dict[int, tuple[weakref.ref[Module], str]] = {}  # id(root module) -> (weakref, name)
        # id(parameter) -> (weakref, "layers.0.weight")
        self._param_names: dict[int, tuple[weakref.ref[Tensor], str]] = {}
        self._named_a_model = False
        self._module_names: dict[str, str] = {}  # module name -> the same, fit for the record
        self._root_seen: Callable[[], Module | None] = _nobody  # the model last seen at the top (weakly)
        self._op_specs: dict[type[Function], OpSpec] = {}  # Function class -> its OpSpec
        # id(leaf) -> (weakref, the Site that made it)
        self._leaf_sites: dict[int, tuple[weakref.ref[Tensor], hooks.Site | None]] = {}
        self._sites: dict[hooks.Site, SourceSite] = {}

    # Module scopes are read from the engine's scope stack when a node is made, not followed
    # through module_entered / module_left: two events fewer per module call.

    def module(self) -> str | None:
        """The qualified name of the module whose forward is running, if any; the first time a
        model is seen from the top, its parameters are named."""
        stack = _scopes.stack
        if not stack:
            return None
        outer = stack[0][0]
        if outer is not self._root_seen():
            self._note_root(outer, stack[0][2])
            self._root_seen = weakref.ref(outer)
        key = stack[-1][2]
        clean = self._module_names.get(key)
        if clean is None:
            if len(self._module_names) > 4096:
                self._module_names.clear()
            clean = self._module_names[key] = name(key)
        return clean

    def op_spec(self, node: Function) -> OpSpec:
        """((op, name), its arguments' names) of a Function, made once per class (which also
        notes the class's rule)."""
        cls = type(node)
        spec = self._op_specs.get(cls)
        if spec is None:
            spec = self._op_specs[cls] = (name(node.op), name(node.own_name())), argument_names(cls)
            rule = getattr(cls, "rule", "")
            if isinstance(rule, str) and rule:
                self.rules.setdefault(spec[0][0], cut(visible(rule), FIELDS["rules"]))
        return spec

    def op_specs(self) -> dict[type[Function], OpSpec]:
        """Function class -> ((op, name), its arguments' names), for every class seen."""
        return dict(self._op_specs)

    def leaf_created(self, tensor: Tensor, site: hooks.Site | None) -> None:
        self._leaf_sites[id(tensor)] = (weakref.ref(tensor), site)
        if len(self._leaf_sites) % 4096 == 0:  # now and then, forget tensors that have died
            self._leaf_sites = {k: e for k, e in self._leaf_sites.items() if e[0]() is not None}

    def leaf_site(self, t: Tensor) -> hooks.Site | None:
        """The engine's Site of the line that made leaf `t`; None when made where no event told
        (by an op outside the graph): never the first line that used it."""
        made = self._leaf_sites.get(id(t))
        return made[1] if made is not None and made[0]() is t else None

    def site(self, site: hooks.Site | None) -> SourceSite | None:
        if site is None:
            return None
        source = self._sites.get(site)
        if source is None:
            text = linecache.getline(site.file, site.line).strip() if site.line > 0 else ""
            source = self._sites[site] = SourceSite(name(site.file), site.line, name(site.function), text[:1000])
        return source

    def _note_root(self, module: Module, root_name: str) -> None:
        """Name the parameters of a model called from the top: relative to it ("layers.0.weight"),
        prefixed by the model's name for any further model with parameters."""
        root = self._roots.get(id(module))
        if root is not None and root[0]() is module:
            return
        self._roots[id(module)] = (weakref.ref(module), root_name)
        named = getattr(module, "named_parameters", None)
        params = list(named()) if named is not None else []
        if not params:
            return
        prefix = f"{root_name}." if self._named_a_model else ""
        self._named_a_model = True
        for pname, param in params:
            entry = self._param_names.get(id(param))
            if entry is None or entry[0]() is not param:
                self._param_names[id(param)] = (weakref.ref(param), name(prefix + pname))

    def label(self, t: Tensor) -> str:
        """A stable name for a leaf that requires grad: its parameter name, the variable that
        holds it, or "tensor<n>"; unique within the run."""
        entry = self._labels.get(id(t))
        if entry is not None and entry[0]() is t:
            return entry[1]
        return self._new_label(t)

    def _new_label(self, t: Tensor) -> str:
        """Name a leaf seen for the first time (see `label`)."""
        entry = self._param_names.get(id(t))
        found = entry[1] if entry is not None and entry[0]() is t else variable_name(t)
        base = found if found else f"tensor{len(self._labels)}"
        label, k = name(base), 1
        while label in self._label_owner and self._label_owner[label] != id(t):
            owner = self._labels.get(self._label_owner[label])
            if owner is None or owner[0]() is None:
                break
            k += 1
            label = name(base, NAME_LIMIT - len(f"#{k}")) + f"#{k}"  # the base cut to leave room
        self._labels[id(t)] = (weakref.ref(t), label)
        self._label_owner[label] = id(t)
        if len(self._labels) % 1024 == 0:  # now and then, forget tensors that have died
            self._labels = {k: e for k, e in self._labels.items() if e[0]() is not None}
            self._label_owner = {e[1]: k for k, e in self._labels.items()}
        return label
