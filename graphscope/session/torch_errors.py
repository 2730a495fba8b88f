"""--as-torch: a script's uncaught error that means "graphscope lacks this torch name", as UnsupportedTorchName.

Python raises most of these before any graphscope code runs (an unknown keyword argument, `from
torch.nn import X`), and a `Tensor.__getattr__` for a missing method would slow every attribute
access (CPython does not specialise attribute loads on a class that has one: +3-4% on a small
model's step), so they are restated once, when the script has failed: the engine pays nothing.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import linecache
import os
import re
import types
from types import FrameType, TracebackType
from typing import cast

from graphscope.engine import keyword_arguments
from graphscope.engine.unsupported import UnsupportedTorchModule, UnsupportedTorchName, unsupported

from .torch_alias import ALIASES

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_KEYWORD = re.compile(r"^([\w.<>]+)\(\) got an unexpected keyword argument '(\w+)'$")
_IMPORT_FROM = re.compile(r"^cannot import name '(\w+)' from '([\w.]+)'")


def in_torch_terms(error: BaseException) -> BaseException:
    """`error`, or the UnsupportedTorchName it means (same traceback) when a torch name is missing."""
    if isinstance(error, UnsupportedTorchName):
        return error
    try:
        name = _missing_name(error)
    except Exception:  # noqa: BLE001 (restating is a courtesy: the script's own error must never be lost to it)
        return error
    if name is None:
        return error
    return unsupported(name).with_traceback(error.__traceback__)


def _missing_name(error: BaseException) -> str | None:
    """The torch name `error` says graphscope lacks (`torch.sum(foo=...)`), or None."""
    if isinstance(error, UnsupportedTorchModule):
        # Only torch_alias's finder raises it, always with the module's name.
        return _imported_module(error.__traceback__, cast(str, error.name))
    if isinstance(error, ImportError):
        found = _IMPORT_FROM.match(str(error))
        if found and found.group(2) in ALIASES:
            return f"{found.group(2)}.{found.group(1)}"
        return None
    if isinstance(error, AttributeError):
        if not error.name or error.name.startswith("_") or _script_frame(error.__traceback__) is None:
            return None
        owner = _torch_name(error.obj, exact=True)
        return f"{owner}.{error.name}" if owner else None
    if isinstance(error, TypeError):
        found = _KEYWORD.match(str(error))
        if found is None:
            return None
        qualname, keyword = found.groups()
        if _script_frame(error.__traceback__) is None:
            return None  # raised inside graphscope: a bug of ours, not a missing name
        callee = _callee(error.__traceback__)
        if callee is None:  # named by an expression (`torch.ones(3).sum`): go by Python's message
            owner = _by_qualname(qualname, keyword, _called_as_method(error.__traceback__))
        else:
            owner = None if _accepts(callee, keyword) else _torch_name(callee)
        return f"{owner}({keyword}=...)" if owner else None
    return None


def _supported() -> dict[str, object]:
    # Imported on first use, so that the session package does not load api_list, which then
    # runs cleanly as `python -m graphscope.session.api_list`.
    from .api_list import supported

    return supported()


def _torch_names() -> dict[int, str]:
    """{id(object): its torch name} for the supported names and the classes holding them."""
    names: dict[int, str] = {}
    for torch_name, value in _supported().items():
        names.setdefault(id(value), torch_name)
        owner, _, _ = torch_name.rpartition(".")
        holder = _lookup_path(owner)
        if holder is not None and not isinstance(holder, types.ModuleType):
            names.setdefault(id(holder), owner)  # torch.Tensor, torch.cuda
    for alias, target in ALIASES.items():  # modules reached through an alias: torch.cuda as a module
        for name, value in vars(importlib.import_module(target)).items():
            if isinstance(value, types.ModuleType) and not name.startswith("_"):
                names.setdefault(id(value), f"{alias}.{name}")
    return names


def _lookup_path(torch_name: str) -> object | None:
    """The object a dotted torch name stands for under --as-torch, or None."""
    for alias in sorted(ALIASES, key=len, reverse=True):
        if torch_name == alias or torch_name.startswith(alias + "."):
            obj: object = importlib.import_module(ALIASES[alias])
            for part in filter(None, torch_name[len(alias) :].split(".")):
                obj = getattr(obj, part, None)
            return obj
    return None


def _torch_name(obj: object, exact: bool = False) -> str | None:
    """The torch name of a graphscope object: a supported function or class, a method of a supported
    class (`torch.Tensor.sum`); with `exact`, an instance of a supported class (not of a subclass)."""
    if obj is None or (isinstance(obj, types.ModuleType) and obj.__name__ in ALIASES):
        return None  # an alias names its missing attributes itself
    names = _torch_names()
    if id(obj) in names:
        return names[id(obj)]
    if inspect.ismethod(obj) and not inspect.isclass(obj.__self__):
        owner = next((c for c in type(obj.__self__).__mro__ if obj.__name__ in vars(c)), None)
        return f"{names[id(owner)]}.{obj.__name__}" if id(owner) in names else None
    if exact and not inspect.isroutine(obj) and not inspect.isclass(obj):
        return names.get(id(type(obj)))
    return None


def _by_qualname(qualname: str, keyword: str, method: bool) -> str | None:
    """The torch name of the one supported callable with this qualified name (`sum`,
    `Linear.__init__`) that lacks `keyword`; None when there is none or more than one. A `method`
    call (`x.sum(...)`) means the Tensor method, which is the op of the function of its name."""
    found: dict[int, str] = {}
    for torch_name, obj in _supported().items():
        function = vars(obj).get("__init__") if inspect.isclass(obj) else obj
        if getattr(function, "__qualname__", None) == qualname and not _accepts(obj, keyword):
            found.setdefault(id(obj), torch_name)
    if method and len(found) > 1:
        found = {key: name for key, name in found.items() if name.startswith("torch.Tensor.")}
    return next(iter(found.values())) if len(found) == 1 else None


def _accepts(callee: object, keyword: str) -> bool:
    """Whether `callee` takes `keyword` (then the TypeError was not about it)."""
    if not callable(callee):
        return True  # as inspect.signature's TypeError below
    try:
        parameters = inspect.signature(callee).parameters.values()
    except (TypeError, ValueError):
        return True
    return any((p.name == keyword and p.kind is not p.POSITIONAL_ONLY) or p.kind is p.VAR_KEYWORD for p in parameters)


def _callee(tb: TracebackType | None) -> object | None:
    """What the failed call in the script named, from its source: `torch.sum` in `torch.sum(x, foo=1)`.

    Only a callee named by names and attributes, which are looked up again in the failed frame.
    """
    node, frame = _failed_source(tb, "eval")
    return _lookup(node.func, frame) if isinstance(node, ast.Call) and frame is not None else None


def _called_as_method(tb: TracebackType | None) -> bool:
    """Whether the failed call in the script is an attribute's (`torch.ones(3).sum(foo=1)`)."""
    node, _ = _failed_source(tb, "eval")
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)


def _imported_module(tb: TracebackType | None, parent: str) -> str:
    """The module the failed import statement asked for (`torch.utils.tensorboard`) when it is
    `parent` or inside it (Python imports `torch.utils` first, and fails there); else `parent`."""
    node, _ = _failed_source(tb, "exec", through_imports=True)
    statement = node.body[0] if isinstance(node, ast.Module) and node.body else None
    if isinstance(statement, ast.ImportFrom) and statement.level == 0:
        asked = [statement.module or ""]
    elif isinstance(statement, ast.Import):
        asked = [alias.name for alias in statement.names]
    else:
        asked = []
    return next((m for m in asked if m == parent or m.startswith(parent + ".")), parent)


def _failed_source(
    tb: TracebackType | None, mode: str, through_imports: bool = False
) -> tuple[ast.AST, FrameType] | tuple[None, None]:
    """(The parsed source of the instruction that failed in the script's innermost frame, the frame),
    or (None, None) when that frame is graphscope's or its source cannot be read. With
    `through_imports`, the import machinery's frames (and graphscope's finder) are looked through."""
    tb = _script_frame(tb, through_imports)
    if tb is None:
        return None, None
    frame, code = tb.tb_frame, tb.tb_frame.f_code
    positions = list(code.co_positions())
    if tb.tb_lasti // 2 >= len(positions):
        return None, None
    start, end, start_col, end_col = positions[tb.tb_lasti // 2]
    if start is None or end is None or start_col is None or end_col is None:
        return None, None
    lines = [line.encode() for line in linecache.getlines(code.co_filename, frame.f_globals)[start - 1 : end]]
    source = b"".join(lines)[start_col : len(b"".join(lines[:-1])) + end_col].decode(errors="replace")
    try:
        tree = ast.parse(source.strip(), mode=mode)
    except SyntaxError:
        return None, None
    return (tree.body if isinstance(tree, ast.Expression) else tree), frame  # mode "eval" parses an Expression


def _script_frame(tb: TracebackType | None, through_imports: bool = False) -> TracebackType | None:
    """The traceback entry of the innermost frame, None when it is graphscope's (with
    `through_imports`, the import machinery and graphscope's finder are looked through)."""
    innermost = None
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        forwarding = os.path.abspath(path) == _FORWARDERS  # keepdims=/out= wrappers pass the call on
        if not forwarding and not (through_imports and (path.startswith("<frozen importlib") or _is_graphscope(path))):
            innermost = tb
        tb = tb.tb_next
    if innermost is None or _is_graphscope(innermost.tb_frame.f_code.co_filename):
        return None
    return innermost


_FORWARDERS = os.path.abspath(keyword_arguments.__file__)


def _is_graphscope(path: str) -> bool:
    return os.path.abspath(path).startswith(_PACKAGE)


def _lookup(node: ast.AST, frame: FrameType) -> object:
    """The value of a `name.attr.attr` expression in `frame`, or None for anything else."""
    if isinstance(node, ast.Attribute):
        owner = _lookup(node.value, frame)
        return None if owner is None else getattr(owner, node.attr, None)
    if isinstance(node, ast.Name):
        for scope in (frame.f_locals, frame.f_globals, vars(builtins)):
            if node.id in scope:
                return scope[node.id]
    return None
