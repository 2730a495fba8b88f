"""Imports point down only: tui -> session -> trace -> engine (docs/architecture.md), checked on the source."""

import ast
import functools
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "graphscope"
LAYERS = ("engine", "trace", "session", "tui")
# (cupy, matplotlib and tensorboard are optional: used only when installed, imported where they are used)
THIRD_PARTY = {"numpy", "rich", "textual", "cupy", "cupyx", "matplotlib", "tensorboard", "grandalf"}

# The engine modules the session may use, and why: it observes the engine and picks devices; the
# rest serves --as-torch, which speaks in the engine's own names. Array math comes from trace.
SESSION_USES_OF_THE_ENGINE = {
    "graphscope.engine.hooks": "observing: the recorder and the step gate are observers",
    "graphscope.engine.backend": "devices: --device and the default device",
    "graphscope.engine.library_name": "--as-torch: shapes and dtypes print under torch's names",
    "graphscope.engine.unsupported": "--as-torch: the one error for a torch name graphscope lacks",
    "graphscope.engine.keyword_arguments": "--as-torch: errors raised through its wrappers are the script's",
    "graphscope.engine.tensor": "--as-torch: the README's API list reads Tensor's methods",
}


@functools.cache  # three tests walk each layer's files: parsed once a process
def imports(path: Path) -> tuple[str, ...]:
    """The absolute module names `path` imports (relative imports stay inside its own layer)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            module = node.module or ""
            names += [f"{module}.{a.name}" if module == "graphscope.engine" else module for a in node.names]
    return tuple(names)


def layer_files(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "graphscope" and len(parts) > 1 and parts[1] in LAYERS else None


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_only_the_layers_below_it(layer):
    below = LAYERS[: LAYERS.index(layer)]
    for path in layer_files(layer):
        for module in imports(path):
            used = layer_of(module)
            assert used is None or used == layer or used in below, (
                f"{path.relative_to(PACKAGE)} imports {module}: {layer} may import only {', '.join(below) or 'itself'}"
            )


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_only_the_standard_library_and_its_dependencies(layer):
    allowed = {"graphscope", "__future__"} | THIRD_PARTY | set(sys.stdlib_module_names)
    if layer != "tui":
        allowed -= {"textual", "grandalf"}  # grandalf: the graph picture's layout
    for path in layer_files(layer):
        for module in imports(path):
            assert module.split(".")[0] in allowed, f"{path.relative_to(PACKAGE)} imports {module}"


def test_the_tui_never_touches_the_engine():
    for path in layer_files("tui"):
        for module in imports(path):
            assert layer_of(module) != "engine", f"{path.relative_to(PACKAGE)} imports {module}: show the record"


def test_the_session_reaches_the_engine_only_to_observe_pick_devices_and_speak_torch():
    for path in layer_files("session"):
        for module in imports(path):
            if layer_of(module) == "engine":
                assert module in SESSION_USES_OF_THE_ENGINE, (
                    f"{path.relative_to(PACKAGE)} imports {module}: take array math from trace instead"
                )
